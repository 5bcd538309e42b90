// Summary rows added up by framework op, source, computation, module and
// opcode (verdicts/summary_groups.hpp): the op_name hierarchy of xprof's op
// profile, with chains of only children merged and every node's time the sum
// of the rows under it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "indexing/verdicts/summary_groups.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_verdicts_summary_groups_cases {

using namespace hlo_index;
using analysis::OpNameNode;
using analysis::SummaryRow;

namespace {

SummaryRow row(const std::string& op_name, double seconds, double runs = 1, const std::string& opcode = "fusion") {
  SummaryRow r;
  r.name = op_name + "#" + std::to_string(seconds);
  r.op_name = op_name;
  r.opcode = opcode;
  r.kind = opcode == "fusion" ? "kLoop" : "-";
  r.computation = runs > 1 ? "body" : "main";
  r.cost.seconds = seconds;
  r.cost.flops = 10;
  r.runs.count = runs;
  return r;
}

const OpNameNode* child(const OpNameNode& node, const std::string& part) {
  for (const OpNameNode& c : node.children)
    if (c.part == part) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("op_name parts: split at slashes outside brackets, numeric suffixes dropped") {
  CHECK(analysis::op_name_parts("jit(train_step)/jit(main)/dot_general.12") ==
        std::vector<std::string>{"jit(train_step)", "jit(main)", "dot_general"});
  CHECK(analysis::op_name_parts("transpose(jvp(a/b))/mul") == std::vector<std::string>{"transpose(jvp(a/b))", "mul"});
  CHECK(analysis::op_name_parts("").empty());
  CHECK(analysis::op_name_parts("//x//").size() == 1);
}

TEST_CASE("op_name tree: every node the sum of the rows under it, the most time first") {
  const std::vector<SummaryRow> rows = {
      row("jit(f)/jit(main)/mlp/dot_general.1", 3e-6),
      row("jit(f)/jit(main)/mlp/dot_general.2", 2e-6),
      row("jit(f)/jit(main)/mlp/add", 1e-6),
      row("jit(f)/jit(main)/attention/softmax", 1e-6, 8),
      row("", 4e-6),
  };
  const OpNameNode root = analysis::op_name_tree(rows);
  CHECK(root.part.empty());
  CHECK(root.totals.rows == 5);
  CHECK(root.totals.seconds == Approx(3e-6 + 2e-6 + 1e-6 + 8e-6 + 4e-6));
  REQUIRE(root.children.size() == 2);
  // jit(f)/jit(main) holds 14 us, (no op_name) 4 us; the chain jit(f) -> jit(main) is one node.
  CHECK(root.children[0].part == "jit(f)/jit(main)");
  CHECK(root.children[0].totals.seconds == Approx(14e-6));
  CHECK(root.children[1].part == "(no op_name)");
  const OpNameNode& main = root.children[0];
  REQUIRE(main.children.size() == 2);
  CHECK(main.children[0].part == "attention/softmax");  // 8 runs of 1 us: 8 us, before the mlp's 6 us
  CHECK(main.children[0].totals.seconds == Approx(8e-6));
  const OpNameNode* mlp = child(main, "mlp");
  REQUIRE(mlp != nullptr);
  CHECK(mlp->totals.rows == 3);
  // The two dot_general rows differ only by suffix: one node.
  const OpNameNode* dot = child(*mlp, "dot_general");
  REQUIRE(dot != nullptr);
  CHECK(dot->totals.rows == 2);
  CHECK(dot->totals.seconds == Approx(5e-6));
  CHECK(mlp->children.front().part == "dot_general");
}

TEST_CASE("op_name tree: a node whose rows end at it is not merged with its only child") {
  const OpNameNode root = analysis::op_name_tree({row("a/b", 1e-6), row("a/b/c", 2e-6)});
  REQUIRE(root.children.size() == 1);
  const OpNameNode& ab = root.children[0];
  CHECK(ab.part == "a/b");  // a had only b below it with all its rows
  CHECK(ab.totals.rows == 2);
  REQUIRE(ab.children.size() == 1);
  CHECK(ab.children[0].part == "c");
  CHECK(ab.children[0].totals.rows == 1);
}

TEST_CASE("group rows: by op_name, opcode and computation, the most time first") {
  const std::vector<SummaryRow> rows = {row("x/dot.1", 1e-6), row("x/dot.2", 2e-6), row("y/add", 4e-6, 1, "add"),
                                        row("", 1e-6, 2)};
  const auto by_op = analysis::group_rows(rows, analysis::RowGrouping::kOpName);
  REQUIRE(by_op.size() == 3);
  CHECK(by_op[0].key == "y/add");
  CHECK(by_op[1].key == "x/dot");
  CHECK(by_op[1].totals.rows == 2);
  CHECK(by_op[1].totals.seconds == Approx(3e-6));
  CHECK(by_op[1].totals.flops == Approx(20));
  CHECK(by_op[2].key == "-");
  CHECK(by_op[2].totals.seconds == Approx(2e-6));
  const auto by_opcode = analysis::group_rows(rows, analysis::RowGrouping::kOpcode);
  REQUIRE(by_opcode.size() == 2);
  CHECK(by_opcode[0].key == "fusion kLoop");
  CHECK(by_opcode[0].totals.rows == 3);
  const auto by_computation = analysis::group_rows(rows, analysis::RowGrouping::kComputation);
  REQUIRE(by_computation.size() == 2);
  CHECK(by_computation[0].key == "main");
  CHECK(by_computation[1].key == "body");
  CHECK(analysis::row_grouping_names().size() == 5);
}

TEST_CASE("fold repeats: rows of one identity are one, by their time together or in the rows' order") {
  std::vector<SummaryRow> rows = {row("big", 5e-6), row("layer", 2e-6), row("layer", 2e-6, 1), row("layer", 2e-6),
                                  row("other", 1e-6)};
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k].identity = rows[k].op_name == "layer" ? 7 : 100 + k;
  rows[2].runs.exact = false;
  const auto by_time = analysis::fold_repeats(rows, true);
  REQUIRE(by_time.size() == 3);
  CHECK(by_time[0].first == 1);  // three layers, 6 us together, before the 5 us fusion
  CHECK(by_time[0].members == std::vector<std::size_t>{1, 2, 3});
  CHECK(by_time[0].seconds == Approx(6e-6));
  CHECK_FALSE(by_time[0].exact);
  CHECK(by_time[1].first == 0);
  CHECK(by_time[1].exact);
  CHECK(by_time[2].first == 4);
  const auto in_order = analysis::fold_repeats(rows, false);
  REQUIRE(in_order.size() == 3);
  CHECK(in_order[0].first == 0);
  CHECK(in_order[1].first == 1);
  // Nothing repeated: one kind per row, in order.
  rows[2].identity = 1;
  rows[3].identity = 2;
  CHECK(analysis::fold_repeats(rows, false).size() == rows.size());
}

}  // namespace test_verdicts_summary_groups_cases
