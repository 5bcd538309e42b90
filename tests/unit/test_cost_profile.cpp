// Measured times from trace files (testdata/profiles/, written in the format
// of xprof's trace.json.gz: Chrome trace events with XLA's args) joined to the
// instructions of jit_step.hlo: by hlo_op and hlo_module, by sanitised kernel
// name, by TPU `XLA Ops` events; gzip; B/E pairs; the errors; and the JSON
// reader against nlohmann's on random text.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "indexing/cost/profile.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

using namespace hlo_index;
using cost::MeasuredTime;
using cost::Profile;
using cost::ProfileError;
using cost::ProfileJoin;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "profiles";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The modules of testdata/profiles/`file`, their source named `source_name` (the file's path by default).
std::vector<hlo::Module> load(const std::string& file, const std::string& source_name = "") {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(read_file(k_dir / file),
                                        source_name.empty() ? (k_dir / file).string() : source_name, diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE_FALSE(diagnostics.has_errors());
  REQUIRE(modules.size() == 1);
  return modules;
}

/// jit_step.hlo, then jit_other.hlo.
std::vector<hlo::Module> both_modules() {
  std::vector<hlo::Module> modules = load("jit_step.hlo");
  modules.push_back(std::move(load("jit_other.hlo").front()));
  return modules;
}

Profile read(const std::string& file) { return cost::read_profile((k_dir / file).string()); }

/// The time joined to `instruction` of module `module`, or {-1 s, 0, 0} when none.
MeasuredTime time_of(const ProfileJoin& join, std::size_t module, const std::string& instruction) {
  return join.measured(module, instruction).value_or(MeasuredTime{-1, 0, 0});
}

/// The unmatched kernels as `name: reason`, in the join's order.
std::vector<std::string> unmatched(const Profile& profile, const ProfileJoin& join) {
  std::vector<std::string> out;
  for (const cost::UnmatchedKernel& u : join.unmatched) {
    out.push_back(fmt::format("{}: {}", profile.kernels[u.kernel].name, u.reason));
  }
  return out;
}

std::string error_of(std::string_view bytes, std::size_t piece_bytes = 0) {
  try {
    cost::parse_profile(bytes, piece_bytes);
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "no error";
}

std::string error_reading(const std::filesystem::path& path) {
  try {
    cost::read_profile(path.string());
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "no error";
}

/// The checks on gpu_annotated.trace.json joined to jit_step.hlo, shared by its plain and gzip forms.
void check_gpu_annotated(const Profile& profile) {
  const std::vector<hlo::Module> modules = load("jit_step.hlo");
  const ProfileJoin join = profile.join(modules);

  // fusion.1 ran once on each GPU; the host's thunk event (50 us, same hlo_op) does not count.
  const MeasuredTime fusion = time_of(join, 0, "fusion.1");
  CHECK(fusion.seconds == 4.5e-6);
  CHECK(fusion.events == 2);
  CHECK(fusion.devices == 2);
  // The while body's fusion: three iterations, summed.
  const MeasuredTime body = time_of(join, 0, "fusion.12");
  CHECK(body.seconds == 4.5e-6);
  CHECK(body.events == 3);
  CHECK(body.devices == 1);
  // The cuBLAS gemm and its split-K reduction: two kernels of one custom-call.
  const MeasuredTime gemm = time_of(join, 0, "custom-call.4");
  CHECK(gemm.seconds == 8.5e-6);
  CHECK(gemm.events == 2);
  CHECK_FALSE(join.measured(0, "while.3"));
  CHECK_FALSE(join.measured(0, "fusion_1"));

  CHECK(unmatched(profile, join) ==
        std::vector<std::string>{"fusion_1: module 'jit_other' is not among the modules read",
                                 "MemcpyD2D: no instruction is named 'MemcpyD2D' or gives it as a kernel name"});
  CHECK(profile.processes == std::vector<std::string>{"/device:GPU:0", "/device:GPU:1"});
  CHECK(profile.total_seconds == 20.75e-6);
  CHECK(profile.total_events == 9);
  CHECK(profile.trace_events == 18);
  CHECK(profile.unpaired_events == 0);
  CHECK_FALSE(profile.host_only);
  CHECK(join.matched_seconds == 17.5e-6);
  CHECK(join.matched_events == 7);
  CHECK(join.matched_share() == 17.5e-6 / 20.75e-6);

  // The one-instruction form joins the same way.
  const std::optional<MeasuredTime> alone = profile.measured(modules.front(), "fusion.12");
  REQUIRE(alone);
  CHECK(alone->seconds == 4.5e-6);
  CHECK(alone->events == 3);
}

}  // namespace

TEST_CASE("profile: GPU kernels join by hlo_op and hlo_module and host events do not count", "[cost][profile]") {
  const Profile profile = read("gpu_annotated.trace.json");
  CHECK_FALSE(profile.compressed);
  check_gpu_annotated(profile);
}

TEST_CASE("profile: each kernel joins the module its hlo_module names", "[cost][profile]") {
  const Profile profile = read("gpu_annotated.trace.json");
  const std::vector<hlo::Module> modules = both_modules();
  const ProfileJoin join = profile.join(modules);
  const MeasuredTime other = time_of(join, 1, "fusion.1");
  CHECK(other.seconds == 3e-6);
  CHECK(other.events == 1);
  CHECK(time_of(join, 0, "fusion.1").seconds == 4.5e-6);
  CHECK(unmatched(profile, join) ==
        std::vector<std::string>{"MemcpyD2D: no instruction is named 'MemcpyD2D' or gives it as a kernel name"});
  CHECK(join.matched_seconds == 20.5e-6);
}

TEST_CASE("profile: the program id of the dump's file name must be the kernels'", "[cost][profile]") {
  const Profile profile = read("gpu_annotated.trace.json");
  const std::vector<hlo::Module> program_12 =
      load("jit_step.hlo", "dump/module_0012.jit_step.sm_9.0_gpu_after_optimizations.txt");
  CHECK(time_of(profile.join(program_12), 0, "fusion.1").events == 2);

  const std::vector<hlo::Module> program_13 =
      load("jit_step.hlo", "dump/module_0013.jit_step.sm_9.0_gpu_after_optimizations.txt");
  const ProfileJoin join = profile.join(program_13);
  CHECK_FALSE(join.measured(0, "fusion.1"));
  CHECK(join.matched_seconds == 0);
  const std::vector<std::string> reasons = unmatched(profile, join);
  REQUIRE(reasons.size() == 6);
  CHECK(reasons[0] ==
        "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
        "cublas: program 12 of module 'jit_step' is not the one read (the dump's file name gives another)");
}

TEST_CASE("profile: gzip is recognised by its magic bytes, whatever the name", "[cost][profile]") {
  const Profile gz = read("gpu_annotated.trace.json.gz");
  CHECK(gz.compressed);
  check_gpu_annotated(gz);

  // The same bytes under a name without .gz, and plain text under a name with it.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("hlo_index_profile_test_{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(k_dir / "gpu_annotated.trace.json.gz", dir / "trace.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(k_dir / "gpu_annotated.trace.json", dir / "plain.json.gz",
                             std::filesystem::copy_options::overwrite_existing);
  const Profile renamed = cost::read_profile((dir / "trace.json").string());
  CHECK(renamed.compressed);
  check_gpu_annotated(renamed);
  const Profile plain = cost::read_profile((dir / "plain.json.gz").string());
  CHECK_FALSE(plain.compressed);
  check_gpu_annotated(plain);
  std::filesystem::remove_all(dir);

  // From memory too.
  check_gpu_annotated(cost::parse_profile(read_file(k_dir / "gpu_annotated.trace.json.gz")));
}

TEST_CASE("profile: several gzip members are one text", "[cost][profile]") {
  const Profile profile = read("two_members.trace.json.gz");
  CHECK(profile.compressed);
  check_gpu_annotated(profile);
}

TEST_CASE("profile: truncated and corrupt gzip are errors", "[cost][profile]") {
  CHECK_THAT(error_reading(k_dir / "truncated.trace.json.gz"),
             Catch::StartsWith("truncated gzip data: the compressed stream ends early (after "));
  const auto text_size = std::filesystem::file_size(k_dir / "gpu_annotated.trace.json");
  CHECK(error_reading(k_dir / "bad_checksum.trace.json.gz") ==
        fmt::format("corrupt gzip data: incorrect data check (after {} bytes of text)", text_size));
  // A gzip member followed by bytes that are not another one.
  CHECK(error_of(read_file(k_dir / "gpu_annotated.trace.json.gz") + "junk") ==
        fmt::format("bytes that are not gzip data after the gzip data (after {} bytes of text)", text_size));
}

TEST_CASE("profile: kernels without hlo_op join by their sanitised names when one instruction gives them",
          "[cost][profile]") {
  const Profile profile = read("gpu_kernel_names.trace.json");
  const std::vector<hlo::Module> modules = load("jit_step.hlo");
  const ProfileJoin join = profile.join(modules);
  CHECK(time_of(join, 0, "fusion.1").seconds == 4e-6);
  CHECK(time_of(join, 0, "fusion.1").events == 2);
  CHECK(time_of(join, 0, "fusion.12").seconds == 1.5e-6);
  CHECK(time_of(join, 0, "fusion.12").events == 3);
  // copy_6 is an instruction's own name: it is that instruction's, not copy.6's.
  CHECK(time_of(join, 0, "copy_6").seconds == 0.25e-6);
  CHECK_FALSE(join.measured(0, "copy.6"));
  // An event named exactly like an instruction.
  CHECK(time_of(join, 0, "add.8").seconds == 1e-6);
  CHECK(unmatched(profile, join) ==
        std::vector<std::string>{
            "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32: no instruction is named "
            "'sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x32' or gives it as a kernel name",
            "copy_7: instructions copy-7, copy.7 of module 'jit_step' all give the kernel name 'copy_7'"});
  CHECK(profile.total_seconds == 10.875e-6);
  CHECK(profile.processes == std::vector<std::string>{"/device:GPU:0"});

  CHECK(cost::sanitized_kernel_name("copy-start.5") == "copy_start_5");
  CHECK(cost::sanitized_kernel_name("a$b_c/d e") == "a$b_c_d_e");
}

TEST_CASE("profile: a kernel name two modules give joins neither", "[cost][profile]") {
  const Profile profile = read("gpu_kernel_names.trace.json");
  const std::vector<hlo::Module> modules = both_modules();
  const ProfileJoin join = profile.join(modules);
  CHECK_FALSE(join.measured(0, "fusion.1"));
  CHECK_FALSE(join.measured(1, "fusion.1"));
  CHECK(unmatched(profile, join).front() == "fusion_1: its instruction is in several modules: jit_step, jit_other");
  CHECK(time_of(join, 0, "fusion.12").events == 3);
}

TEST_CASE("profile: TPU XLA Ops events join by op name and take their module from the XLA Modules line",
          "[cost][profile]") {
  const Profile profile = read("tpu_xla_ops.trace.json");
  const std::vector<hlo::Module> modules = load("jit_step.hlo");
  const ProfileJoin join = profile.join(modules);
  CHECK(time_of(join, 0, "fusion.1").seconds == 4e-6);
  CHECK(time_of(join, 0, "while.3").seconds == 60e-6);
  const MeasuredTime body = time_of(join, 0, "fusion.12");
  CHECK(body.seconds == 30e-6);
  CHECK(body.events == 3);
  // The display name `Copy`: its long_name names the op.
  CHECK(time_of(join, 0, "copy_6").seconds == 2e-6);
  // Async XLA Ops, Steps and XLA Modules lines are not ops.
  CHECK_FALSE(join.measured(0, "copy-start.5"));
  // Program 13 is jit_other's (its XLA Modules event), not among the modules joined.
  CHECK(unmatched(profile, join) ==
        std::vector<std::string>{"fusion.1: module 'jit_other' is not among the modules read"});
  // The body's ops run inside the while: in its time, not again in the total.
  CHECK(profile.total_seconds == 71e-6);
  CHECK(profile.total_events == 7);
  CHECK(join.matched_seconds == 66e-6);
  CHECK(profile.processes == std::vector<std::string>{"/device:TPU:0"});

  const std::vector<hlo::Module> two = both_modules();
  CHECK(time_of(profile.join(two), 1, "fusion.1").seconds == 5e-6);
}

TEST_CASE("profile: B/E pairs on a CPU profile where only events naming an HLO op count", "[cost][profile]") {
  const Profile profile = read("cpu_begin_end.trace.json");
  const std::vector<hlo::Module> modules = load("jit_step.hlo");
  const ProfileJoin join = profile.join(modules);
  CHECK(profile.host_only);
  CHECK(profile.processes == std::vector<std::string>{"/host:CPU"});
  CHECK(time_of(join, 0, "while.3").seconds == 10e-6);
  CHECK(time_of(join, 0, "fusion.12").seconds == 2.5e-6);
  CHECK(time_of(join, 0, "fusion.12").events == 2);
  // The hlo_op of this pair is in the E's args.
  CHECK(time_of(join, 0, "fusion.1").seconds == 2e-6);
  // The E before any B, and the B never ended.
  CHECK(profile.unpaired_events == 2);
  // train_step (no hlo_op) does not count; the body's fusions are inside the while.
  CHECK(profile.kernels.size() == 3);
  CHECK(profile.total_seconds == 12e-6);
  CHECK(profile.total_events == 4);
  CHECK(join.matched_share() == 1);
}

TEST_CASE("profile: which events count without process names", "[cost][profile]") {
  const std::vector<hlo::Module> modules = load("jit_step.hlo");
  // Some event names an HLO op: only those count.
  const Profile with_op = cost::parse_profile(R"([
    {"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"thunk","args":{"hlo_op":"fusion.1"}},
    {"ph":"X","pid":1,"tid":1,"ts":2,"dur":2,"name":"fusion_12"}])");
  CHECK(with_op.total_seconds == 1e-6);
  CHECK(with_op.processes == std::vector<std::string>{"pid 1"});
  CHECK(with_op.measured(modules.front(), "fusion.1")->seconds == 1e-6);
  CHECK_FALSE(with_op.measured(modules.front(), "fusion.12"));
  // None does: every event counts, and joins by name.
  const Profile names = cost::parse_profile(R"([
    {"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"fusion_1"},
    {"ph":"X","pid":1,"tid":1,"ts":2,"dur":2,"name":"fusion_12"}])");
  CHECK(names.total_seconds == 3e-6);
  CHECK(names.measured(modules.front(), "fusion.12")->seconds == 2e-6);
}

TEST_CASE("profile: timestamps keep their digits and quoted numbers read", "[cost][profile]") {
  // In a double an epoch timestamp in microseconds keeps a quarter of a microsecond; the pair is 1.25 us.
  const Profile epoch = cost::parse_profile(R"([
    {"ph":"B","pid":1,"tid":1,"ts":1700000000000000.125,"name":"fusion.1"},
    {"ph":"E","pid":1,"tid":1,"ts":1700000000000001.375}])");
  CHECK(epoch.total_seconds == 1.25e-6);
  const Profile quoted = cost::parse_profile(R"([{"ph":"X","pid":1,"tid":1,"ts":"10.5","dur":"2.25","name":"k"}])");
  CHECK(quoted.total_seconds == 2.25e-6);
  // displayTimeUnit is for display: ts and dur are microseconds whatever it says.
  const Profile ns =
      cost::parse_profile(R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","ts":0,"dur":3,"name":"k"}]})");
  CHECK(ns.total_seconds == 3e-6);
}

TEST_CASE("profile: the array form may end without its closing bracket", "[cost][profile]") {
  CHECK(cost::parse_profile(R"([{"ph":"X","ts":0,"dur":1,"name":"k"})").total_events == 1);
  CHECK(cost::parse_profile("[{\"ph\":\"X\",\"ts\":0,\"dur\":1,\"name\":\"k\"},\n").total_events == 1);
  // Not inside an event, and not in the object form.
  CHECK(error_of(R"([{"ph":"X","ts":0,"dur")") ==
        "line 1, column 24 (at the end, after 23 bytes): expected ':' after an object key, found the end of the text");
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","ts":0,"dur":1,"name":"k"})") ==
        "line 1, column 53 (at the end, after 52 bytes): expected ',' or ']' after an array element, found the end "
        "of the text");
  // Something else than the end is an error, in the array form too.
  CHECK(error_of(R"([{"ph":"X","ts":0,"dur":1,"name":"k"} x)") ==
        "line 1, column 39 (byte 39): expected ',' or ']' after an array element, found 'x'");
}

TEST_CASE("profile: malformed JSON names the line, column and byte", "[cost][profile]") {
  CHECK(error_reading(k_dir / "malformed.trace.json") ==
        "line 3, column 1 (byte 78): expected ',' or ']' after an array element, found '{'");
  CHECK(error_reading(k_dir / "malformed.trace.json.gz") ==
        "line 3, column 1 (byte 78 of the decompressed text): expected ',' or ']' after an array element, found '{'");
  CHECK(error_of("") == "empty file, not a trace");
  CHECK(error_of("  \n ") == "empty file, not a trace");
  // An .xplane.pb (protobuf) given for its trace.json.gz.
  CHECK(error_of(std::string("\x08\x96\x01\x12\x0d/device:TPU:0", 17)) ==
        "not JSON: line 1, column 1 (byte 1): expected a JSON value, found byte 0x08");
}

TEST_CASE("profile: JSON that is not a trace is an error that says why", "[cost][profile]") {
  CHECK(error_of("42") ==
        "the file is a number in JSON, not a trace (an object with \"traceEvents\", or an array of events)");
  CHECK(error_of(R"({"traceEvents": 3})") == "\"traceEvents\" is a number, not an array of events");
  CHECK(error_of(R"({"traceEvents": {}})") == "\"traceEvents\" is an object, not an array of events");
  CHECK(error_of(R"({"displayTimeUnit": "ns"})") == "no \"traceEvents\" array in the top-level object: not a trace");
  CHECK(error_of(R"([{"ph":"M"}, "x"])") == "event 1 is a string, not an event object");
  CHECK(error_of(R"({"traceEvents":[[]]})") == "traceEvents[0] is an array, not an event object");
  CHECK(error_of(R"([{"ph":"X","ts":1,"dur":"fast","name":"k"}])") ==
        "event 0 (\"k\", ph \"X\"): \"dur\" is \"fast\", not a number of microseconds");
  CHECK(error_of(R"({"traceEvents":[{},{"ph":"X","ts":1,"dur":-2,"name":"k"}]})") ==
        "traceEvents[1] (\"k\", ph \"X\"): \"dur\" is -2, a negative duration");
  CHECK(error_of(R"([{"ph":"X","dur":1,"name":"k"}])") == "event 0 (\"k\", ph \"X\"): no \"ts\"");
  CHECK(error_of(R"([{"ph":"X","ts":1,"name":"k"}])") == "event 0 (\"k\", ph \"X\"): no \"dur\"");
  CHECK(error_of(R"([{"ph":"B","ts":5,"name":"k"},{"ph":"E","ts":4}])") ==
        "event 1 (\"\", ph \"E\"): ends at ts 4 before its \"B\" (event 0) begins at ts 5");
  // Phases that are not a kernel's time need no ts or dur; neither do other keys' values.
  CHECK(cost::parse_profile(R"([{"ph":"i","name":"mark"},{"ph":"C","args":{"x":[1,{"y":2}]}}])").trace_events == 2);
}

TEST_CASE("profile: files that cannot be read", "[cost][profile]") {
  CHECK(error_reading("/nonexistent/trace.json.gz") == "cannot open file: No such file or directory");
  CHECK(error_reading(k_dir) == "is a directory, not a trace file");
}

// The JSON reader against nlohmann's (RFC 8259, strict): random values, valid or with a byte
// changed, read whole and in pieces of 1, 2 and 7 bytes (tokens split across pieces).

namespace {

std::string random_whitespace(test::Rng& rng) {
  static constexpr std::string_view k_spaces[] = {"", "", "", " ", "\n", "\t", "\r\n", "  "};
  return std::string(k_spaces[rng.index(std::size(k_spaces))]);
}

/// A JSON string literal: letters, every escape, \u escapes and raw UTF-8 of 1 to 4 bytes, and
/// sometimes what JSON forbids (a lone surrogate, an unknown escape, a control character, bytes
/// that are not UTF-8).
std::string random_string(test::Rng& rng) {
  std::string s = "\"";
  const auto pieces = rng.uniform(0, 6);
  for (std::int64_t i = 0; i < pieces; ++i) {
    switch (rng.uniform(0, 9)) {
      case 0: s += "abc_1.2"; break;
      case 1:
        s += std::vector<std::string>{"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"}[rng.index(8)];
        break;
      case 2: s += fmt::format("\\u{:04x}", rng.uniform(0, 0xd7ff)); break;
      case 3: s += fmt::format("\\u{:04X}", rng.uniform(0xe000, 0xffff)); break;
      case 4: s += "\\ud83d\\ude00"; break;                        // a pair: U+1F600
      case 5: s += "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"; break;  // e-acute, euro, U+1F600
      case 6: s += "fusion.12"; break;
      case 7:  // forbidden
        s += std::vector<std::string>{
            "\\ud800", "\\udc00x", "\\q",      "\\u12g4",      std::string(1, '\x01'), "\n",
            "\xff",    "\xc0\x80", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80"}[rng.index(11)];
        break;
      default: s += " "; break;
    }
  }
  return s + "\"";
}

/// A JSON number, sometimes one JSON forbids (01, 1., .5, +1, -).
std::string random_number(test::Rng& rng) {
  if (rng.chance(10))
    return std::vector<std::string>{"01", "1.", ".5", "+1", "-", "1e", "1e+", "-a", "0x1"}[rng.index(9)];
  std::string s = rng.chance(20) ? "-" : "";
  s += rng.chance(30) ? "0" : std::to_string(rng.uniform(1, 1000000000000));
  if (rng.chance(50)) s += "." + std::to_string(rng.uniform(0, 999999));
  if (rng.chance(20))
    s += fmt::format("{}{}{}", rng.chance(50) ? "e" : "E", std::vector<std::string>{"", "+", "-"}[rng.index(3)],
                     rng.uniform(0, 99));
  return s;
}

std::string random_value(test::Rng& rng, int depth) {
  const std::int64_t kind = rng.uniform(depth > 0 ? 0 : 2, 6);
  const auto ws = [&] { return random_whitespace(rng); };
  switch (kind) {
    case 0: {
      std::string s = "{" + ws();
      const auto n = rng.uniform(0, 3);
      for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0) s += "," + ws();
        s += fmt::format("\"k{}\"{}:{}{}{}", i, ws(), ws(), random_value(rng, depth - 1), ws());
      }
      return s + "}";
    }
    case 1: {
      std::string s = "[" + ws();
      const auto n = rng.uniform(0, 3);
      for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0) s += "," + ws();
        s += random_value(rng, depth - 1) + ws();
      }
      return s + "]";
    }
    case 2:
    case 3: return random_string(rng);
    case 4: return random_number(rng);
    default: return std::vector<std::string>{"true", "false", "null", "tru", "nul"}[rng.index(rng.chance(90) ? 3 : 5)];
  }
}

/// `text` with one byte deleted, inserted or replaced.
std::string mutated(std::string text, test::Rng& rng) {
  static constexpr std::string_view k_bytes = "{}[],:\"\\ 0a-.e+tn\x01\x80";
  const std::size_t at = rng.index(text.size() + 1);
  const char byte = k_bytes[rng.index(k_bytes.size())];
  switch (rng.uniform(0, 2)) {
    case 0:
      if (at < text.size()) text.erase(at, 1);
      break;
    case 1: text.insert(at, 1, byte); break;
    default:
      if (at < text.size()) text[at] = byte;
      break;
  }
  return text;
}

/// What nlohmann makes of `text`: valid JSON, not, or stopped at a number out of a double's
/// range (JSON to our reader: RFC 8259 leaves the range to readers; a `ts` or `dur` out of range
/// is an error of the trace).
enum class Oracle { kValid, kInvalid, kOutOfRange };
Oracle nlohmann_on(const std::string& text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    static_cast<void>(parsed);
    return Oracle::kValid;
  } catch (const nlohmann::json::parse_error&) {
    return Oracle::kInvalid;
  } catch (const nlohmann::json::out_of_range&) {  // "number overflow", thrown where the number is
    return Oracle::kOutOfRange;
  }
}

/// Checks what reading `text` gave (`error`, "no error" when none) against nlohmann: valid JSON
/// gives no syntax error (an error of the trace may come); invalid JSON an error (of the trace
/// when one comes first: the reader reports the first problem it meets).
void check_against_nlohmann(const std::string& text, const std::string& error);

/// Whether `message` is one of the JSON reader's (not a complaint about the trace in valid JSON).
bool syntax_error(const std::string& message) {
  return message.starts_with("line ") || message.starts_with("not JSON: ") || message == "empty file, not a trace";
}

void check_against_nlohmann(const std::string& text, const std::string& error) {
  switch (nlohmann_on(text)) {
    case Oracle::kValid: CHECK_FALSE(syntax_error(error)); break;
    case Oracle::kInvalid: CHECK(error != "no error"); break;
    case Oracle::kOutOfRange: break;  // nlohmann stops there: what follows is not known to be JSON
  }
}

/// The error of reading `text`, the same whole and in pieces of 1, 2 and 7 bytes ("no error" when none).
std::string error_in_any_pieces(const std::string& text) {
  std::string whole = error_of(text);
  for (const std::size_t piece : {1, 2, 7}) {
    INFO("pieces of " << piece);
    CHECK(error_of(text, piece) == whole);
  }
  return whole;
}

}  // namespace

TEST_CASE("profile: the JSON reader accepts what nlohmann accepts in any pieces", "[cost][profile]") {
  test::Rng rng(25);
  int valid = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string value = random_value(rng, 3);
    if (rng.chance(50)) value = mutated(value, rng);
    // In a trace's metadata (skipped whole at the top level) or in an event's args.
    const std::string text = rng.chance(50)
                                 ? R"({"traceEvents":[{"ph":"X","ts":0,"dur":1,"name":"k"}],"metadata":)" + value + "}"
                                 : R"([{"ph":"X","ts":0,"dur":1,"name":"k","args":{"x":)" + value + "}}]";
    INFO(text);
    check_against_nlohmann(text, error_in_any_pieces(text));
    valid += nlohmann_on(text) == Oracle::kValid ? 1 : 0;
  }
  CHECK(valid > 300);  // both kinds are drawn
  CHECK(valid < 1200);
}

TEST_CASE("profile: strings decode as nlohmann decodes them", "[cost][profile]") {
  test::Rng rng(7);
  int valid = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string name = random_string(rng);
    if (rng.chance(20)) name = mutated(name, rng);
    const std::string text = R"([{"ph":"X","ts":0,"dur":1,"name":)" + name + "}]";
    INFO(text);
    const std::string error = error_in_any_pieces(text);
    check_against_nlohmann(text, error);
    if (nlohmann_on(text) != Oracle::kValid || error != "no error") continue;
    ++valid;
    const std::string expected = nlohmann::json::parse(text)[0]["name"].get<std::string>();
    for (const std::size_t piece : {0, 1, 3}) CHECK(cost::parse_profile(text, piece).kernels.at(0).name == expected);
  }
  CHECK(valid > 500);
}

TEST_CASE("profile: numbers read as nlohmann reads them", "[cost][profile]") {
  test::Rng rng(11);
  int valid = 0;
  for (int i = 0; i < 1500; ++i) {
    std::string number = random_number(rng);
    if (rng.chance(10)) number = mutated(number, rng);
    const std::string text = R"([{"ph":"X","ts":0,"dur":)" + number + R"(,"name":"k"}])";
    INFO(text);
    const std::string error = error_in_any_pieces(text);
    check_against_nlohmann(text, error);
    if (nlohmann_on(text) != Oracle::kValid) continue;
    const double dur = nlohmann::json::parse(text)[0]["dur"].get<double>();
    if (dur < 0) {
      CHECK(error.ends_with("a negative duration"));
      continue;
    }
    ++valid;
    CHECK(cost::parse_profile(text, 1).total_seconds == dur / 1e6);
  }
  CHECK(valid > 500);
}

TEST_CASE("profile: a byte order mark may come first", "[cost][profile]") {
  CHECK(cost::parse_profile("\xef\xbb\xbf[{\"ph\":\"X\",\"ts\":0,\"dur\":1,\"name\":\"k\"}]", 1).total_events == 1);
  CHECK(error_of("\xef\xbb[]") == "not JSON: line 1, column 3 (byte 3): a byte order mark is EF BB BF, found '['");
}
