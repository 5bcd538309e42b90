// The X3-free reader of common instruction statements (parser/plain_instruction.hpp) against
// the grammar it stands in for: wherever it accepts a statement, the grammar must accept it
// too, read the same fields at the same places of the text and stop at the same byte. It
// is run on hand-written statements, on every line of the HLO files under testdata/ and on
// mutated copies of those lines.
#include <boost/spirit/home/x3.hpp>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "parser/grammar.hpp"
#include "parser/plain_instruction.hpp"
#include "parser/syntax_error.hpp"
#include "test_rng.hpp"
#include "tests/corpus.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_plain_instruction_cases {

using namespace hlo_index;
using namespace hlo_index::parser;

namespace {

struct Reading {
  bool ok = false;
  const char* end = nullptr;
  ast::Instruction instruction;
};

Reading by_grammar(std::string_view text) {
  Reading r;
  const char* p = text.data();
  try {
    r.ok = boost::spirit::x3::phrase_parse(p, text.data() + text.size(), grammar::instruction(), grammar::blank,
                                           r.instruction, boost::spirit::x3::skip_flag::dont_post_skip);
  } catch (const boost::spirit::x3::expectation_failure<const char*>&) {
    r.ok = false;
  } catch (const SyntaxError&) {
    r.ok = false;
  }
  r.end = p;
  return r;
}

Reading plain(std::string_view text) {
  Reading r;
  const char* p = text.data();
  r.ok = read_plain_instruction(p, text.data() + text.size(), r.instruction);
  r.end = p;
  return r;
}

// The same text at the same place of the source (diagnostics point with data()).
bool same(std::string_view a, std::string_view b) { return a.data() == b.data() && a.size() == b.size(); }

bool same(const ast::Instruction& a, const ast::Instruction& b) {
  if (a.is_root != b.is_root || !same(a.name, b.name) || !same(a.shape, b.shape) || !same(a.opcode, b.opcode) ||
      a.has_literal != b.has_literal || !same(a.literal, b.literal) || a.operands.size() != b.operands.size() ||
      a.attributes.size() != b.attributes.size())
    return false;
  for (std::size_t k = 0; k < a.operands.size(); ++k)
    if (!same(a.operands[k].shape, b.operands[k].shape) || !same(a.operands[k].name, b.operands[k].name) ||
        !same(a.operands[k].nested, b.operands[k].nested))
      return false;
  for (std::size_t k = 0; k < a.attributes.size(); ++k)
    if (!same(a.attributes[k].name, b.attributes[k].name) || !same(a.attributes[k].value, b.attributes[k].value))
      return false;
  return true;
}

// Whether the plain reader agrees with the grammar on `text`; counts what it accepted.
bool agrees(std::string_view text, std::size_t& accepted) {
  const Reading fast = plain(text);
  if (!fast.ok) return fast.end == text.data();  // declined: `p` left where it was
  ++accepted;
  const Reading slow = by_grammar(text);
  return slow.ok && slow.end == fast.end && same(slow.instruction, fast.instruction);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Compares the reader with the grammar on every instruction-like line of the files under
// `dir` (all of them when `every_file`, else .hlo and .txt ones) and on `mutations` mutated
// copies of each line: a byte replaced by one that matters to the syntax, or bytes deleted.
void check_lines_of(const std::filesystem::path& dir, bool every_file, int mutations) {
  static constexpr char k_bytes[] = " ,()[]{}=%\"'/*:.-_a0\n";
  test::Rng rng(20261125);
  std::size_t lines = 0, accepted = 0, mutated_accepted = 0;
  for (const auto& path : corpus::files(dir)) {
    const std::string ext = path.extension().string();
    if (!every_file && ext != ".hlo" && ext != ".txt") continue;
    for (const std::string& line : lines_of(corpus::read(path))) {
      if (line.find(" = ") == std::string::npos) continue;
      ++lines;
      INFO(path.string() << ": " << line);
      REQUIRE(agrees(line, accepted));
      for (int m = 0; m < mutations; ++m) {
        std::string mutated = line;
        const std::size_t at = rng.index(mutated.size());
        if (m % 2 == 0)
          mutated[at] = k_bytes[rng.index(sizeof k_bytes - 1)];
        else
          mutated.erase(at, 1 + rng.index(3));
        INFO("mutated: " << mutated);
        const std::size_t before = accepted;
        REQUIRE(agrees(mutated, accepted));
        mutated_accepted += accepted - before;
      }
    }
  }
  // The reader is there for the common form: most lines of real dumps are in it.
  CHECK(lines > 1000);
  CHECK(accepted - mutated_accepted > lines / 2);
  CHECK(mutated_accepted > 0);
}

}  // namespace

TEST_CASE("plain instructions: read as the grammar reads them", "[plain-instruction]") {
  const std::vector<std::string> accepted_forms = {
      "%add.1 = f32[4]{0} add(f32[4]{0} %a, %b)",
      "ROOT %t = (f32[], s32[2]) tuple(%x, %y)",
      "  x = f32[] parameter(0)",
      "c = s32[2] constant({1, 2}), metadata={op_name=\"a,b\" source_line=3}",
      "%e = f32[] exponential(f32[] parameter(0))",
      "gte = get-tuple-element(t), index=0",
      "%n = f32[2]{0} negate(%m), /*index=1*/ sharding={replicated}",
      "%r = f32[] reduce(%a, %z), dimensions={0}, to_apply=%sum",
      "%s = s32[] custom-call(), custom_call_target=\"x\", backend_config={\"a\": [1, 2]}",
      "%b = f32[2,3]{1,0:T(8,128)} broadcast(%p), dimensions={1}",
      "ROOT   %a = f32[] add( %x , %y )",
      "%a = token[] after-all()",
  };
  for (const std::string& text : accepted_forms) {
    INFO(text);
    std::size_t accepted = 0;
    CHECK(agrees(text, accepted));
    CHECK(accepted == 1);
  }
  // Left to the grammar (the reader declines; the grammar reads or rejects them).
  const std::vector<std::string> declined = {
      "%c = s32[] custom-call(), literal=s32[] 1",
      "ROOT = f32[] add(%a, %b)",
      "%a = f32[4 add(%x)",
      "%a = f32[] add(%x,)",
      "%a = f32[] add(%x",
      "%a = f32[] constant",
      "%a f32[] add(%x)",
      "%a = f32[] add(%x), dimensions=",
      "%a = f32[] add(%x), =1",
      "%a = f32[] add(\"x)",
      "%a = f32[] Add(%x)",
  };
  for (const std::string& text : declined) {
    INFO(text);
    std::size_t accepted = 0;
    CHECK(agrees(text, accepted));
    CHECK(accepted == 0);
  }
}

TEST_CASE("plain instructions: every line of the HLO under testdata, and mutations of it, as the grammar reads it",
          "[plain-instruction]") {
  check_lines_of(HLO_INDEX_TESTDATA_DIR, false, 24);
}

#ifdef HLO_INDEX_FULL_CORPUS_DIR
TEST_CASE("plain instructions: every line of the full corpus, and mutations of it, as the grammar reads it",
          "[plain-instruction]") {
  check_lines_of(HLO_INDEX_FULL_CORPUS_DIR, true, 4);
}
#endif

}  // namespace test_parser_plain_instruction_cases
