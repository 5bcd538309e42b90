// Result-shape verification (parser/result_shapes.hpp): for every op one result
// shape XLA's shape inference gives, accepted, and one it does not, rejected with
// the expected message at the expected place; then the forms that must be
// skipped rather than reported.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "parser/parse.hpp"
#include "parser/result_shapes.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_result_shapes_cases {

using namespace hlo_index;

namespace {

// A module whose entry has parameters p0, p1, ... of `params` and the root
// `r = <root>`, after three reducers: `add` (f32), `add_pair` ((f32, s32)) and
// `add_one` ((f32), a 1-tuple), and a select-and-scatter's select `ge` (f32, f32 -> pred).
std::string module(const std::vector<std::string>& params, const std::string& root) {
  std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_pair {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = s32[] add(a1, b1)
  ROOT t = (f32[], s32[]) tuple(s0, s1)
}
add_one {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT t = (f32[]) tuple(s)
}
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
ENTRY main {
)";
  for (std::size_t k = 0; k < params.size(); ++k)
    text += "  p" + std::to_string(k) + " = " + params[k] + " parameter(" + std::to_string(k) + ")\n";
  return text + "  ROOT r = " + root + "\n}\n";
}

struct Case {
  std::vector<std::string> params;
  std::string root;
  std::string message;  // empty: accepted
  std::string at = {};  // the text of the root line the error points at; empty: the name `r`
};

// Parses the case's module; checks it is accepted, or rejected with exactly the
// expected error at the expected line and column.
void check(const Case& c) {
  const std::string text = module(c.params, c.root);
  INFO(text);
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "t.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  if (c.message.empty()) {
    CHECK_FALSE(diagnostics.has_errors());
    CHECK(modules.size() == 1);
    return;
  }
  REQUIRE(diagnostics.diagnostics().size() == 1);
  const parser::Diagnostic& d = diagnostics.diagnostics().front();
  CHECK(d.message == c.message);
  const std::size_t root_line = text.find("  ROOT r = ");
  const std::string line = text.substr(root_line, text.find('\n', root_line) - root_line);
  const auto lines_before = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(root_line), '\n');
  CHECK(d.line == static_cast<std::size_t>(lines_before) + 1);
  const std::size_t column = c.at.empty() ? line.find("r =") : line.find(c.at, line.find('='));
  REQUIRE(column != std::string::npos);
  CHECK(d.column == column + 1);
}

void check_all(const std::vector<Case>& cases) {
  for (std::size_t k = 0; k < cases.size(); ++k) DYNAMIC_SECTION("case " << k << ": " << cases[k].root) {
      check(cases[k]);
    }
}

}  // namespace

TEST_CASE("elementwise results keep the operands' dimensions and type", "[result-shapes]") {
  check_all({
      {{"f32[2,3]"}, "f32[2,3] negate(p0)", ""},
      {{"f32[2,3]"},
       "f32[3,2] negate(p0)",
       "negate result shape f32[3,2] does not match the operand: expected f32[2,3]"},
      {{"f32[2,3]"},
       "s32[2,3] exponential(p0)",
       "exponential result shape s32[2,3] does not match the operand: expected f32[2,3]"},
      // The inverse and hyperbolic functions too (op_traits.cpp's one elementwise list).
      {{"f32[2,3]"}, "f32[2,3] cosh(p0)", ""},
      {{"f32[2,3]"}, "f32[3,2] acos(p0)", "acos result shape f32[3,2] does not match the operand: expected f32[2,3]"},
      {{"f32[4]", "f32[4]"}, "f32[4] add(p0, p1)", ""},
      {{"f32[4]", "f32[4]"},
       "f32[5] add(p0, p1)",
       "add result shape f32[5] does not match the operands: expected f32[4]"},
      {{"f32[4]", "f32[5]"},
       "f32[4] multiply(p0, p1)",
       "multiply operands 0 and 1 have incompatible dimensions: f32[4] and f32[5]"},
      // XLA's shape inference broadcasts dimensions of size 1 and scalars (its verifier does not).
      {{"f32[1,3]", "f32[4,1]"}, "f32[4,3] add(p0, p1)", ""},
      {{"f32[]", "f32[4]"}, "f32[4] subtract(p0, p1)", ""},
      {{"f32[1,3]", "f32[4,1]"},
       "f32[4,1] add(p0, p1)",
       "add result shape f32[4,1] does not match the operands: expected f32[4,3]"},
      {{"f32[4]", "f32[2,2]"},
       "f32[4] add(p0, p1)",
       "add operands 0 and 1 have incompatible dimensions: f32[4] and f32[2,2]"},
      {{"pred[]", "f32[4]", "f32[4]"}, "f32[4] select(p0, p1, p2)", ""},
      {{"pred[4]", "f32[4]", "f32[4]"},
       "f32[3] select(p0, p1, p2)",
       "select result shape f32[3] does not match the operands: expected f32[4]"},
      {{"f32[]", "f32[4]", "f32[]"}, "f32[4] clamp(p0, p1, p2)", ""},
      {{"f32[]", "f32[4]", "f32[]"},
       "s32[4] clamp(p0, p1, p2)",
       "clamp result shape s32[4] does not match the operands: expected f32[4]"},
      {{"f32[4]", "f32[4]", "f32[]"}, "f32[4] clamp(p0, f32[] p2, p1)", ""},  // a scalar operand
      {{"f32[4]", "f32[5]", "f32[]"},
       "f32[5] clamp(p0, p1, p2)",
       "clamp operands 0 and 1 have incompatible dimensions: f32[4] and f32[5]"},
      {{"pred[3]", "f32[4]", "f32[4]"},
       "f32[4] select(p0, p1, p2)",
       "select operands 0 and 1 have incompatible dimensions: pred[3] and f32[4]"},
      {{"f32[2]", "f32[2]"}, "pred[2] compare(p0, p1), direction=LT", ""},
      {{"f32[2]", "f32[2]"},
       "f32[2] compare(p0, p1), direction=LT",
       "compare result shape f32[2] does not match the operands: expected pred[2]"},
      {{"f32[2,3]"}, "s32[2,3] convert(p0)", ""},
      {{"f32[2,3]"},
       "s32[3,2] convert(p0)",
       "convert result shape s32[3,2] does not match the operand: expected s32[2,3]"},
      {{"c64[2]"}, "f32[2] abs(p0)", ""},
      {{"c64[2]"}, "c64[2] abs(p0)", "abs result shape c64[2] does not match the operand: expected f32[2]"},
      {{"f64[2]", "f64[2]"}, "c128[2] complex(p0, p1)", ""},
      {{"f32[2]"},
       "f32[2] is-finite(p0)",
       "is-finite result shape f32[2] does not match the operand: expected pred[2]"},
  });
}

TEST_CASE("floating-point precision may differ, as in mixed-precision modules", "[result-shapes]") {
  check_all({
      {{"bf16[4]", "bf16[4]"}, "f32[4] add(p0, p1)", ""},
      {{"f32[4]"}, "bf16[4] broadcast(p0), dimensions={0}", ""},
      {{"bf16[4]", "bf16[4]"},
       "s32[4] add(p0, p1)",
       "add result shape s32[4] does not match the operands: expected bf16[4]"},
  });
}

TEST_CASE("bitcast-convert adds or drops a minor dimension when widths differ", "[result-shapes]") {
  check_all({
      {{"f32[4]"}, "s32[4] bitcast-convert(p0)", ""},
      {{"f32[4]"}, "u8[4,4] bitcast-convert(p0)", ""},
      {{"u8[4,4]"}, "f32[4] bitcast-convert(p0)", ""},
      {{"f32[4]"},
       "u8[4,2] bitcast-convert(p0)",
       "bitcast-convert result shape u8[4,2] does not match the operand f32[4]: expected u8[4,4]"},
      {{"u8[4,2]"},
       "f32[4] bitcast-convert(p0)",
       "bitcast-convert from u8[4,2] to f32 needs a minor dimension of size 4 (the ratio of the bit widths)"},
      {{"f32[4]"},
       "s32[5] bitcast-convert(p0)",
       "bitcast-convert result shape s32[5] does not match the operand f32[4]: expected s32[4]"},
  });
}

TEST_CASE("broadcast, transpose, reverse, slice, reshape, bitcast", "[result-shapes]") {
  check_all({
      {{"f32[3]"}, "f32[2,3] broadcast(p0), dimensions={1}", ""},
      {{"f32[1]"}, "f32[3] broadcast(p0), dimensions={0}", ""},  // a degenerate dimension
      {{"f32[3]"},
       "f32[3,2] broadcast(p0), dimensions={1}",
       "broadcast result shape f32[3,2] does not match the operand placed by 'dimensions': expected f32[3,3]",
       "{1}"},
      {{"f32[2,3]"}, "f32[3,2] transpose(p0), dimensions={1,0}", ""},
      {{"f32[2,3,4]"},
       "f32[2,3,4] transpose(p0), dimensions={2,0,1}",
       "transpose result shape f32[2,3,4] does not match the operand permuted by 'dimensions': expected f32[4,2,3]",
       "{2,0,1}"},
      {{"f32[2,3]"}, "f32[2,3] reverse(p0), dimensions={0}", ""},
      {{"f32[2,3]"},
       "f32[3,2] reverse(p0), dimensions={0}",
       "reverse result shape f32[3,2] does not match the operand: expected f32[2,3]"},
      {{"f32[10,10]"}, "f32[2,10] slice(p0), slice={[0:2], [0:10]}", ""},
      {{"f32[10]"}, "f32[3] slice(p0), slice={[1:10:4]}", ""},
      {{"f32[10]"}, "f32[1] slice(p0), slice={[3:10:9223372036854775807]}", ""},
      {{"f32[10]"}, "f32[0] slice(p0), slice={[4:4]}", ""},
      {{"f32[10,10]"},
       "f32[5,5] slice(f32[10,10] p0), slice={[0:2],[0:10]}",
       "slice result shape f32[5,5] does not match the slice: expected f32[2,10]",
       "{[0:2],[0:10]}"},
      {{"f32[2,3]"}, "f32[3,2] reshape(p0)", ""},
      {{"f32[2,3]"}, "s32[6] reshape(p0)", "reshape result shape s32[6] does not match the operand: expected f32[6]"},
      {{"f32[2,3]"}, "f32[5] reshape(p0)", "reshape from f32[2,3] to f32[5] changes the number of elements (6 to 5)"},
      {{"f32[2,3]{1,0}"}, "f32[6]{0} bitcast(p0)", ""},
      {{"f32[2,3]"}, "s8[24] bitcast(p0)", ""},
      {{"f32[2,3]"}, "f32[5] bitcast(p0)", "bitcast from f32[2,3] to f32[5] changes the size in bits (192 to 160)"},
  });
}

TEST_CASE("concatenate and dot", "[result-shapes]") {
  check_all({
      {{"f32[2,3]", "f32[4,3]"}, "f32[6,3] concatenate(p0, p1), dimensions={0}", ""},
      {{"f32[2,3]", "f32[4,3]"},
       "f32[6,4] concatenate(p0, p1), dimensions={0}",
       "concatenate result shape f32[6,4] does not match the operands joined along dimension 0: expected f32[6,3]"},
      {{"f32[2,3]", "f32[4,2]"},
       "f32[6,3] concatenate(p0, p1), dimensions={0}",
       "concatenate operand 1 f32[4,2] does not match operand 0 f32[2,3] outside dimension 0"},
      {{"f32[5,2,3]", "f32[5,3,4]"},
       "f32[5,2,4] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
       "rhs_contracting_dims={1}",
       ""},
      {{"bf16[2,3]", "bf16[4,3]"}, "f32[2,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={1}", ""},
      {{"f32[2]", "f32[3]"}, "f32[2,3] dot(p0, p1)", ""},  // an outer product
      {{"f32[5,2,3]", "f32[5,3,4]"},
       "f32[5,4,2] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
       "rhs_contracting_dims={1}",
       "dot result shape f32[5,4,2] does not match the dot dimension numbers (batch, lhs free, rhs free): "
       "expected f32[5,2,4]"},
      {{"f32[2,3]", "f32[4,5]"},
       "f32[2,5] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       "dot contracting dimensions differ in size: lhs dimension 1 has 3, rhs dimension 0 has 4"},
  });
}

TEST_CASE("scaled-dot, select-and-scatter, fft, triangular-solve, cholesky", "[result-shapes]") {
  check_all({
      {{"f8e4m3fn[2,64]", "f8e4m3fn[16,64]", "f8e8m0fnu[2,2]", "f8e8m0fnu[16,2]"},
       "f32[2,16] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
       ""},
      {{"f8e4m3fn[2,64]", "f8e4m3fn[16,64]", "f8e8m0fnu[2,2]", "f8e8m0fnu[16,2]"},
       "f32[16,2] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
       "scaled-dot result shape f32[16,2] does not match the dot dimension numbers (batch, lhs free, rhs free): "
       "expected f32[2,16]"},
      {{"f32[6]", "f32[3]", "f32[]"},
       "f32[6] select-and-scatter(p0, p1, p2), window={size=2 stride=2}, select=ge, scatter=add",
       ""},
      {{"f32[6]", "f32[3]", "f32[]"},
       "f32[3] select-and-scatter(p0, p1, p2), window={size=2 stride=2}, select=ge, scatter=add",
       "select-and-scatter result shape f32[3] does not match operand 0: expected f32[6]"},
      {{"c64[2,5]"}, "c64[2,5] fft(p0), fft_type=FFT, fft_length={5}", ""},
      {{"f32[3,4,6]"}, "c64[3,4,4] fft(p0), fft_type=RFFT, fft_length={4,6}", ""},
      {{"c64[3,4,4]"}, "f32[3,4,7] fft(p0), fft_type=IRFFT, fft_length={4,7}", ""},
      {{"f32[2,6]"},
       "c64[2,6] fft(p0), fft_type=RFFT, fft_length={6}",
       "fft result shape c64[2,6] does not match fft_type and fft_length: expected c64[2,4]",
       "RFFT"},
      {{"f32[4,4]", "f32[4,3]"},
       "f32[4,3] triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
       ""},
      {{"f32[4,4]", "f32[4,3]"},
       "f32[4,4] triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
       "triangular-solve result shape f32[4,4] does not match b (operand 1): expected f32[4,3]"},
      {{"f32[1,5,5]"}, "f32[1,5,5] cholesky(p0), lower=true", ""},
      {{"f32[1,5,5]"},
       "f32[5,5] cholesky(p0), lower=true",
       "cholesky result shape f32[5,5] does not match operand 0: expected f32[1,5,5]"},
  });
}

TEST_CASE("reduce (also variadic), pad, reduce-window, convolution", "[result-shapes]") {
  check_all({
      {{"f32[2,3]", "f32[]"}, "f32[2] reduce(p0, p1), dimensions={1}, to_apply=add", ""},
      {{"f32[2,3]", "f32[]"},
       "f32[3] reduce(p0, p1), dimensions={1}, to_apply=add",
       "reduce result shape f32[3] does not match the operand reduced over 'dimensions': expected f32[2]",
       "{1}"},
      {{"f32[2,3]", "s32[2,3]", "f32[]", "s32[]"},
       "(f32[2], s32[2]) reduce(p0, p1, p2, p3), dimensions={1}, to_apply=add_pair",
       ""},
      {{"f32[2,3]", "s32[2,3]", "f32[]", "s32[]"},
       "(f32[2], f32[2]) reduce(p0, p1, p2, p3), dimensions={1}, to_apply=add_pair",
       "reduce result shape (f32[2], f32[2]) does not match the operand reduced over 'dimensions': expected "
       "(f32[2], s32[2])",
       "{1}"},
      {{"f32[2,3]", "f32[]"}, "(f32[2]) reduce(p0, p1), dimensions={1}, to_apply=add_one", ""},  // a 1-tuple reducer
      {{"f32[2,3]", "f32[]"}, "f32[4,5] pad(p0, p1), padding=1_1x0_0_1", ""},
      {{"f32[0]", "f32[]"}, "f32[3] pad(p0, p1), padding=1_2_3", ""},
      {{"f32[5]", "f32[]"}, "f32[2] pad(p0, p1), padding=-2_-1", ""},
      {{"f32[2,3]", "f32[]"},
       "f32[4,4] pad(p0, p1), padding=1_1x0_0_1",
       "pad result shape f32[4,4] does not match the padding: expected f32[4,5]",
       "1_1x0_0_1"},
      {{"f32[10]", "f32[]"}, "f32[5] reduce-window(p0, p1), window={size=3 stride=2 pad=1_1}, to_apply=add", ""},
      {{"f32[10]", "f32[]"},
       "f32[15] reduce-window(p0, p1), window={size=3 lhs_dilate=2 rhs_dilate=2}, to_apply=add",
       ""},
      {{"f32[2]", "f32[]"}, "f32[0] reduce-window(p0, p1), window={size=3}, to_apply=add", ""},
      {{"f32[10]", "f32[]"},
       "f32[4] reduce-window(p0, p1), window={size=3 stride=2 pad=1_1}, to_apply=add",
       "reduce-window result shape f32[4] does not match the window: expected f32[5]",
       "{size=3 stride=2 pad=1_1}"},
      {{"f32[1,5,5,2]", "f32[3,3,2,4]"},
       "f32[1,5,5,4] convolution(p0, p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       ""},
      {{"f32[4,2,7,7]", "f32[2,4,3,3]"},
       "f32[2,4,3,3] convolution(p0, p1), window={size=3x3 stride=2x2}, dim_labels=bf01_io01->bf01, "
       "batch_group_count=2",
       ""},
      {{"f32[1,5,5,2]", "f32[3,3,2,4]"},
       "f32[1,3,3,4] convolution(p0, p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       "convolution result shape f32[1,3,3,4] does not match the input, kernel, window and dim_labels: expected "
       "f32[1,5,5,4]"},
  });
}

TEST_CASE("dynamic-slice, dynamic-update-slice, gather", "[result-shapes]") {
  check_all({
      {{"f32[10,10]", "s32[]"}, "f32[2,3] dynamic-slice(p0, p1, p1), dynamic_slice_sizes={2,3}", ""},
      {{"f32[10,10]", "s32[]"},
       "f32[3,2] dynamic-slice(p0, p1, p1), dynamic_slice_sizes={2,3}",
       "dynamic-slice result shape f32[3,2] does not match 'dynamic_slice_sizes': expected f32[2,3]",
       "{2,3}"},
      {{"f32[10,10]", "s32[]"},
       "f32[11,3] dynamic-slice(p0, p1, p1), dynamic_slice_sizes={11,3}",
       "dynamic_slice_sizes entry 11 exceeds dimension 0 of size 10",
       "{11,3}"},
      {{"f32[10]", "f32[3]", "s32[]"}, "f32[10] dynamic-update-slice(p0, p1, p2)", ""},
      {{"f32[10]", "f32[3]", "s32[]"},
       "f32[3] dynamic-update-slice(p0, p1, p2)",
       "dynamic-update-slice result shape f32[3] does not match operand 0: expected f32[10]"},
      {{"f32[4]", "f32[5]", "s32[]"},
       "f32[4] dynamic-update-slice(p0, p1, p2)",
       "dynamic-update-slice update f32[5] is larger than the operand f32[4] in dimension 0"},
      {{"f32[3,4]", "s32[5,1]"},
       "f32[5,4] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
       "index_vector_dim=1, slice_sizes={1,4}",
       ""},
      {{"f32[3,4]", "s32[5]"},
       "f32[5,4] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
       "index_vector_dim=1, slice_sizes={1,4}",
       ""},
      {{"f32[3,4]", "s32[1,5]"},
       "f32[2,5,4] gather(p0, p1), offset_dims={0,2}, collapsed_slice_dims={}, start_index_map={0}, "
       "index_vector_dim=0, slice_sizes={2,4}",
       ""},
      {{"f32[2,3,4]", "s32[2,5,1]"},
       "f32[2,5,4] gather(p0, p1), offset_dims={2}, collapsed_slice_dims={1}, operand_batching_dims={0}, "
       "start_indices_batching_dims={0}, start_index_map={1}, index_vector_dim=2, slice_sizes={1,1,4}",
       ""},
      {{"f32[3,4]", "s32[5,1]"},
       "f32[4,5] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
       "index_vector_dim=1, slice_sizes={1,4}",
       "gather result shape f32[4,5] does not match the gather dimension numbers and slice_sizes: expected f32[5,4]"},
  });
}

TEST_CASE("get-tuple-element, tuple, iota", "[result-shapes]") {
  check_all({
      {{"(f32[2], s32[3])"}, "s32[3] get-tuple-element(p0), index=1", ""},
      {{"(f32[2], s32[3])"},
       "f32[3] get-tuple-element(p0), index=1",
       "get-tuple-element result shape f32[3] does not match element 1 of the operand: expected s32[3]"},
      {{"f32[2]", "s32[3]"}, "(f32[2], s32[3]) tuple(p0, p1)", ""},
      {{"f32[2]", "s32[3]"},
       "(f32[2], f32[3]) tuple(p0, p1)",
       "tuple result shape (f32[2], f32[3]) does not match the operands: expected (f32[2], s32[3])"},
      {{}, "s32[4,5] iota(), iota_dimension=1", ""},
  });
}

TEST_CASE("all-gather multiplies the gathered dimension by the group size when the text gives it", "[result-shapes]") {
  check_all({
      {{"f32[4,8]"}, "f32[16,8] all-gather(p0), replica_groups={{0,1,2,3}}, dimensions={0}", ""},
      {{"f32[4,8]"},
       "f32[4,32] all-gather(p0), channel_id=1, replica_groups=[2,4]<=[8], dimensions={1}, "
       "use_global_device_ids=true",
       ""},
      {{"f32[4,8]", "s32[2]"},
       "(f32[8,8], s32[4]) all-gather(p0, p1), replica_groups={{0,1},{2,3}}, dimensions={0}",
       ""},
      {{"f32[4,8]"},
       "f32[8,8] all-gather(p0), replica_groups={{0,1,2,3}}, dimensions={0}",
       "all-gather result shape f32[8,8] does not match the operand gathered along dimension 0 by groups of 4: "
       "expected f32[16,8]"},
      // Every replica, or replica groups spanning all partitions: the group size is unknown.
      {{"f32[4,8]"}, "f32[12,8] all-gather(p0), replica_groups={}, dimensions={0}", ""},
      {{"f32[4,8]"}, "f32[8,8] all-gather(p0), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}", ""},
      {{"f32[4,8]"}, "f32[8,8] all-gather(p0), replica_groups={{0},{1}}, dimensions={0}", ""},  // groups of one
      {{"f32[4,8]"},
       "f32[12,9] all-gather(p0), replica_groups={}, dimensions={0}",
       "all-gather result shape f32[12,9] does not match the operand outside the gathered dimension 0: expected "
       "f32[12,8]"},
  });
}

TEST_CASE("uncertain cases are skipped, never reported", "[result-shapes]") {
  check_all({
      // Dynamic dimensions.
      {{"f32[<=10]"}, "f32[<=5] slice(p0), slice={[0:2]}", ""},
      {{"f32[?,3]"}, "f32[2,3] negate(p0)", ""},
      // Bitcasts under tiled layouts, and of packed sub-byte types.
      {{"f32[2,3]{1,0:T(8,128)}"}, "f32[1024]{0} bitcast(p0)", ""},
      {{"s4[2,3]"}, "s4[7] bitcast(p0)", ""},
      // A sparse dot, and an unknown opcode.
      {{"bf16[2,4]", "bf16[8,3]", "u16[2,1]"},
       "f32[2,3] dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4",
       ""},
      {{"f32[2]"}, "f32[7] frobnicate(p0)", ""},
      // Replica groups in a form hlo-index does not read.
      {{"f32[4,8]"}, "f32[64,8] all-gather(p0), replica_groups={{0,1},{2,3,4}}, dimensions={0}", ""},
  });
}

TEST_CASE("check_result_shape is a pure function of shapes and attribute texts", "[result-shapes]") {
  auto shape = [](std::string_view text) { return *parser::parse_shape(text); };
  const hlo::Shape operand = shape("f32[10,10]");
  const hlo::Shape* operands[] = {&operand};
  const hlo::Attribute slice[] = {{"slice", "{[0:2],[0:10]}"}};
  CHECK_FALSE(parser::check_result_shape(hlo::Opcode::kSlice, shape("f32[2,10]"), operands, slice));
  auto problem = parser::check_result_shape(hlo::Opcode::kSlice, shape("f32[5,5]{1,0}"), operands, slice);
  REQUIRE(problem);
  CHECK(problem->message == "slice result shape f32[5,5] does not match the slice: expected f32[2,10]");
  CHECK(problem->at.data() == slice[0].value.data());
  // An unknown operand or a malformed attribute: nothing to say.
  const hlo::Shape* unknown[] = {nullptr};
  CHECK_FALSE(parser::check_result_shape(hlo::Opcode::kSlice, shape("f32[5,5]"), unknown, slice));
  const hlo::Attribute malformed[] = {{"slice", "{[0:2]"}};
  CHECK_FALSE(parser::check_result_shape(hlo::Opcode::kSlice, shape("f32[5,5]"), operands, malformed));
}

TEST_CASE("errors in inline operand instructions point into the source", "[result-shapes]") {
  parser::DiagnosticEngine diagnostics;
  parser::parse_hlo_text(
      "HloModule m\nENTRY e {\n  p = f32[1] parameter(0)\n"
      "  ROOT r = f32[1,1] reshape(f32[1,2] reshape(f32[1] negate(p)))\n}\n",
      "t.hlo", diagnostics);
  // The user's own result shape is not checked after an error in its operands.
  CHECK(parser::render(diagnostics) ==
        "t.hlo:4:29: error: reshape from f32[1] to f32[1,2] changes the number of elements (1 to 2)\n"
        "  ROOT r = f32[1,1] reshape(f32[1,2] reshape(f32[1] negate(p)))\n"
        "                            ^\n");
  parser::DiagnosticEngine nested;
  parser::parse_hlo_text("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(f32[2] negate(p))\n}\n", "u.hlo",
                         nested);
  CHECK(parser::render(nested) ==
        "u.hlo:3:25: error: negate result shape f32[2] does not match the operand: expected f32[]\n"
        "  ROOT r = f32[] negate(f32[2] negate(p))\n"
        "                        ^\n");
}

}  // namespace test_parser_result_shapes_cases
