// Typed attribute grammars and the generic attribute tree.
#include <catch2/catch.hpp>

#include "parser/attributes.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_attributes_cases {

using namespace hlo_index::parser;
using V = std::vector<std::int64_t>;

TEST_CASE("integer lists and lists of lists") {
  CHECK(parse_int_list("{1,0,2}") == V{1, 0, 2});
  CHECK(parse_int_list("{}") == V{});
  CHECK(parse_int_list("{ 3 , 4 }") == V{3, 4});
  AttributeError e;
  CHECK_FALSE(parse_int_list("{1,,2}", &e));
  CHECK(e.offset == 3);
  CHECK(e.message == "expected integer");
  auto groups = parse_int_list_list("{{0,1},{2,3}}");
  REQUIRE(groups);
  CHECK(groups->size() == 2);
  CHECK((*groups)[1] == V{2, 3});
  CHECK(parse_int("-7") == -7);
}

TEST_CASE("slices with and without stride") {
  auto s = parse_slice("{[5:10:1], [0:4], [3:9:2]}");
  REQUIRE(s);
  REQUIRE(s->size() == 3);
  CHECK((*s)[1] == SliceDim{0, 4, 1});
  CHECK((*s)[2] == SliceDim{3, 9, 2});
  AttributeError e;
  CHECK_FALSE(parse_slice("{[0:2}", &e));
  CHECK(e.offset == 5);
  CHECK(e.message == "expected ']'");
}

TEST_CASE("padding configs, negative and interior") {
  auto p = parse_padding("1_4_1x-3_-5x0_0_2");
  REQUIRE(p);
  REQUIRE(p->size() == 3);
  CHECK((*p)[0] == PaddingDim{1, 4, 1});
  CHECK((*p)[1] == PaddingDim{-3, -5, 0});
  CHECK((*p)[2] == PaddingDim{0, 0, 2});
  AttributeError e;
  CHECK_FALSE(parse_padding("1_x", &e));
  CHECK(e.offset == 2);
}

TEST_CASE("windows: all fields, defaults, and mismatched ranks") {
  auto w = parse_window("{size=3x3 stride=2x1 pad=1_1x0_2 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}");
  REQUIRE(w);
  REQUIRE(w->size() == 2);
  CHECK((*w)[0] == WindowDim{3, 2, 1, 1, 1, 2, false});
  CHECK((*w)[1] == WindowDim{3, 1, 0, 2, 2, 1, true});
  auto d = parse_window("{size=1x512}");
  REQUIRE(d);
  CHECK((*d)[1] == WindowDim{512, 1, 0, 0, 1, 1, false});
  AttributeError e;
  CHECK_FALSE(parse_window("{size=3x3 stride=2}", &e));
  CHECK(e.message == "window stride has 1 entries but size has 2");
  CHECK_FALSE(parse_window("{size=3x}", &e));
}

TEST_CASE("dim_labels decode batch, feature and spatial dimensions") {
  auto c = parse_dim_labels("b01f_01io->b01f");
  REQUIRE(c);
  CHECK(c->input_batch == 0);
  CHECK(c->input_feature == 3);
  CHECK(c->input_spatial == V{1, 2});
  CHECK(c->kernel_input_feature == 2);
  CHECK(c->kernel_output_feature == 3);
  c = parse_dim_labels("f10b_o01i->1fb0");
  REQUIRE(c);
  CHECK(c->input_spatial == V{2, 1});
  CHECK(c->output_spatial == V{3, 0});
  AttributeError e;
  CHECK_FALSE(parse_dim_labels("bx_io->bf", &e));
  CHECK(e.message == "unknown dimension label 'x' (expected one of 'bf' or a digit)");
  CHECK(e.offset == 1);
}

TEST_CASE("dim_labels: '?' marks a dimension with no role (cuDNN's vectorized features)") {
  auto c = parse_dim_labels("b01f?_01i?o->b01f?");
  REQUIRE(c);
  CHECK(c->input_feature == 3);
  CHECK(c->input_unlabelled == V{4});
  CHECK(c->kernel_input_feature == 2);
  CHECK(c->kernel_output_feature == 4);
  CHECK(c->kernel_unlabelled == V{3});
  CHECK(c->output_unlabelled == V{4});
  CHECK(c->output_spatial == V{1, 2});
  CHECK(parse_dim_labels("b01f_01io->b01f")->input_unlabelled.empty());
}

}  // namespace test_parser_attributes_cases
