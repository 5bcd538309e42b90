// Measured times from trace files (testdata/profiles/, written in the format
// of xprof's trace.json.gz: Chrome trace events with XLA's args) joined to the
// instructions of jit_step.hlo: by hlo_op and hlo_module, by sanitised kernel
// name, by TPU `XLA Ops` events; gzip; B/E pairs; and the errors.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "indexing/cost/profile.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_cost_profile_cases {

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

TEST_CASE("profile: a file read in pieces of any size reads the same", "[cost][profile]") {
  // Tokens and gzip's magic bytes split across pieces, as a file's reads may split them.
  for (const std::size_t piece : {1, 2, 7, 4096}) {
    INFO("pieces of " << piece);
    check_gpu_annotated(cost::parse_profile(read_file(k_dir / "gpu_annotated.trace.json"), piece));
    check_gpu_annotated(cost::parse_profile(read_file(k_dir / "gpu_annotated.trace.json.gz"), piece));
    CHECK(error_of(read_file(k_dir / "malformed.trace.json"), piece) ==
          "line 3, column 1 (byte 78): syntax error while parsing array - unexpected '{'; expected ']'");
  }
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
        "line 1, column 24 (at the end, after 23 bytes): syntax error while parsing object separator - unexpected end "
        "of input; expected ':'");
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","ts":0,"dur":1,"name":"k"})") ==
        "line 1, column 53 (at the end, after 52 bytes): syntax error while parsing array - unexpected end of input; "
        "expected ']'");
  // Something else than the end is an error, in the array form too.
  CHECK(error_of(R"([{"ph":"X","ts":0,"dur":1,"name":"k"} x)") ==
        "line 1, column 39 (byte 39): syntax error while parsing array - invalid literal; last read: '\"k\"} x'; "
        "expected ']'");
}

TEST_CASE("profile: malformed JSON names the line, column and byte", "[cost][profile]") {
  CHECK(error_reading(k_dir / "malformed.trace.json") ==
        "line 3, column 1 (byte 78): syntax error while parsing array - unexpected '{'; expected ']'");
  CHECK(error_reading(k_dir / "malformed.trace.json.gz") ==
        "line 3, column 1 (byte 78 of the decompressed text): syntax error while parsing array - unexpected '{'; "
        "expected ']'");
  CHECK(error_of("") == "empty file, not a trace");
  CHECK(error_of("  \n ") == "empty file, not a trace");
  // An .xplane.pb (protobuf) given for its trace.json.gz.
  CHECK(error_of(std::string("\x08\x96\x01\x12\x0d/device:TPU:0", 17)) ==
        "not JSON: line 1, column 1 (byte 1): syntax error while parsing value - invalid literal; last read: "
        "'<U+0008>'");
  // Bytes that are not UTF-8 show in hex; a number out of a double's range is nlohmann's error.
  CHECK(error_of("{\"traceEvents\":[],\"x\":\"\xff\"}") ==
        "line 1, column 24 (byte 24): syntax error while parsing value - invalid string: ill-formed UTF-8 byte; last "
        "read: '\"<0xFF>'");
  CHECK(error_of(R"([{"ph":"X","ts":0,"dur":1e999,"name":"k"}])") == "byte 29: number overflow parsing '1e999'");
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

TEST_CASE("profile: a byte order mark may come first", "[cost][profile]") {
  CHECK(cost::parse_profile("\xef\xbb\xbf[{\"ph\":\"X\",\"ts\":0,\"dur\":1,\"name\":\"k\"}]", 1).total_events == 1);
  CHECK(
      error_of("\xef\xbb[]") ==
      "not JSON: line 1, column 3 (byte 3): syntax error while parsing value - invalid BOM; must be 0xEF 0xBB 0xBF if "
      "given; last read: '<0xEF><0xBB>['");
}

}  // namespace test_cost_profile_cases
