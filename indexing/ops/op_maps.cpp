// Dispatch: each op's maps are those of its hlo::MapFamily (op_traits.hpp),
// built by the functions k_family_maps names, one family per op_maps_*.cpp.
#include "indexing/ops/op_maps.hpp"

#include "indexing/maps/inverse.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing {

namespace detail {

std::vector<MapSet> one_each(std::vector<IndexingMap> maps) {
  std::vector<MapSet> out;
  out.reserve(maps.size());
  for (IndexingMap& m : maps) out.push_back(MapSet{std::move(m)});
  return out;
}

std::vector<MapSet> maps_by_inverse(const OpContext& op, std::size_t operand, const OutputReads& o2i) {
  std::vector<MapSet> sets(op.output_count());
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    const std::vector<MapSet> reads = o2i(op, k);
    for (const IndexingMap& m : reads.at(operand)) {
      if (!m.is_defined()) {
        if (m.is_undefined()) sets[k].push_back(m);
        continue;
      }
      for (IndexingMap& piece : inverse(m)) {
        piece.inherit_approximation(m);
        sets[k].push_back(std::move(piece));
      }
    }
  }
  return sets;
}

}  // namespace detail

namespace {

using namespace detail;  // the builders of op_maps_internal.hpp

[[noreturn]] void no_maps(const OpContext& op) {
  throw Unsupported(
      std::string("no indexing maps for '").append(op.module.opcode_text(op.instruction())).append("' yet"));
}

// The maps of one family, both directions: output (or operand) `index`.
struct FamilyMaps {
  hlo::MapFamily family;
  std::vector<MapSet> (*output_to_input)(const OpContext& op, std::size_t output, MapStyle style);
  std::vector<MapSet> (*input_to_output)(const OpContext& op, std::size_t operand, MapStyle style);
};

using F = hlo::MapFamily;
using Op = const OpContext&;
using Index = std::size_t;
using Style = MapStyle;
using Sets = std::vector<MapSet>;

// clang-format off
// In the order of hlo::MapFamily (checked below).
constexpr FamilyMaps k_family_maps[] = {
    {F::kNone, [](Op op, Index, Style) -> Sets { no_maps(op); }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kNoOperands, [](Op, Index, Style) { return Sets{}; }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kElementwise, [](Op op, Index, Style) { return o2i_elementwise(op); }, i2o_elementwise},
    {F::kBroadcast, [](Op op, Index, Style) { return o2i_broadcast(op); },
                    [](Op op, Index, Style) { return i2o_broadcast(op); }},
    {F::kTranspose, [](Op op, Index, Style) { return o2i_transpose(op); },
                    [](Op op, Index, Style) { return i2o_transpose(op); }},
    {F::kReverse, [](Op op, Index, Style) { return reverse_maps(op); },
                  [](Op op, Index, Style) { return reverse_maps(op); }},
    {F::kSlice, [](Op op, Index, Style) { return o2i_slice(op); }, [](Op op, Index, Style) { return i2o_slice(op); }},
    {F::kConcatenate, [](Op op, Index, Style) { return o2i_concatenate(op); },
                      [](Op op, Index operand, Style) { return i2o_concatenate(op, operand); }},
    {F::kReshape, [](Op op, Index, Style) { return o2i_reshape(op); },
                  [](Op op, Index, Style) { return i2o_reshape(op); }},
    {F::kBitcast, [](Op op, Index, Style style) { return o2i_bitcast(op, style); },
                  [](Op op, Index, Style style) { return i2o_bitcast(op, style); }},
    {F::kBitcastConvert, [](Op op, Index, Style) { return o2i_bitcast_convert(op); },
                         [](Op op, Index, Style) { return i2o_bitcast_convert(op); }},
    {F::kReduce, [](Op op, Index output, Style) { return o2i_reduce(op, output); },
                 [](Op op, Index operand, Style) { return i2o_reduce(op, operand); }},
    {F::kDot, [](Op op, Index, Style) { return o2i_dot(op); },
              [](Op op, Index operand, Style) { return i2o_dot(op, operand); }},
    {F::kPad, [](Op op, Index, Style style) { return o2i_pad(op, style); }, i2o_pad},
    {F::kReduceWindow, [](Op op, Index output, Style) { return o2i_reduce_window(op, output); },
                       [](Op op, Index operand, Style) { return i2o_reduce_window(op, operand); }},
    {F::kConvolution, [](Op op, Index, Style style) { return o2i_convolution(op, style); },
                      i2o_convolution},
    {F::kDynamicSlice, [](Op op, Index, Style style) { return o2i_dynamic_slice(op, style); },
                       i2o_dynamic_slice},
    {F::kDynamicUpdateSlice, [](Op op, Index, Style style) { return o2i_dynamic_update_slice(op, style); },
                             i2o_dynamic_update_slice},
    {F::kGather, [](Op op, Index, Style style) { return o2i_gather(op, style); }, i2o_gather},
    {F::kGetTupleElement, [](Op op, Index output, Style) { return gte_maps(op, output, false); },
                          [](Op op, Index, Style) { return gte_maps(op, 0, true); }},
    {F::kTuple, [](Op op, Index output, Style) { return o2i_tuple(op, output); },
                [](Op op, Index operand, Style) { return i2o_tuple(op, operand); }},
    {F::kAllGather, [](Op op, Index output, Style) { return o2i_all_gather(op, output); },
                    [](Op op, Index operand, Style) { return i2o_all_gather(op, operand); }},
    // Calls are composed by IndexingAnalysis; a single call has no maps of its own.
    {F::kCall, [](Op op, Index, Style) -> Sets { no_maps(op); }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kTupleElements, [](Op op, Index output, Style) { return o2i_tuple_elements(op, output); },
                        [](Op op, Index operand, Style) { return i2o_tuple_elements(op, operand); }},
    {F::kCollective, [](Op op, Index output, Style) { return o2i_collective(op, output); },
                     [](Op op, Index operand, Style) { return i2o_collective(op, operand); }},
    {F::kNothingRead, [](Op op, Index, Style) { return o2i_nothing_read(op); },
                      [](Op op, Index, Style) { return i2o_nothing_read(op); }},
    {F::kWholeOperands, [](Op op, Index output, Style) { return o2i_whole_operands(op, output); },
                        [](Op op, Index operand, Style) { return i2o_whole_operands(op, operand); }},
    {F::kSort, [](Op op, Index output, Style) { return o2i_sort(op, output); },
               [](Op op, Index operand, Style) { return i2o_sort(op, operand); }},
    {F::kBatchNorm, [](Op op, Index output, Style) { return o2i_batch_norm(op, output); },
                    [](Op op, Index operand, Style) { return i2o_batch_norm(op, operand); }},
    {F::kCustomCall, [](Op op, Index output, Style) { return o2i_custom_call(op, output); },
                     [](Op op, Index operand, Style) { return i2o_custom_call(op, operand); }},
    {F::kScatter, [](Op op, Index output, Style) { return o2i_scatter(op, output); },
                  [](Op op, Index operand, Style) { return i2o_scatter(op, operand); }},
    {F::kAllToAll, [](Op op, Index output, Style) { return o2i_all_to_all(op, output); },
                   [](Op op, Index operand, Style) { return i2o_all_to_all(op, operand); }},
    {F::kReduceScatter, [](Op op, Index output, Style) { return o2i_reduce_scatter(op, output); },
                        [](Op op, Index operand, Style) { return i2o_reduce_scatter(op, operand); }},
    {F::kWhile, [](Op op, Index output, Style) { return o2i_while(op, output); },
                [](Op, Index, Style) -> Sets { throw Unsupported("operand -> output maps are not composed through a while"); }},
    // Composed by IndexingAnalysis (conditional_maps.cpp).
    {F::kConditional, [](Op op, Index, Style) -> Sets { no_maps(op); },
                      [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kScaledDot, [](Op op, Index, Style) { return o2i_scaled_dot(op); },
                    [](Op op, Index operand, Style) { return i2o_scaled_dot(op, operand); }},
    {F::kSelectAndScatter, [](Op op, Index output, Style) { return o2i_select_and_scatter(op, output); },
                           [](Op op, Index operand, Style) { return i2o_select_and_scatter(op, operand); }},
    {F::kScan, [](Op op, Index output, Style) { return o2i_scan(op, output); },
               [](Op op, Index operand, Style) { return i2o_scan(op, operand); }},
    {F::kFft, [](Op op, Index output, Style) { return o2i_fft(op, output); },
              [](Op op, Index operand, Style) { return i2o_fft(op, operand); }},
    {F::kTriangularSolve, [](Op op, Index output, Style) { return o2i_triangular_solve(op, output); },
                          [](Op op, Index operand, Style) { return i2o_triangular_solve(op, operand); }},
    {F::kCholesky, [](Op op, Index output, Style) { return o2i_cholesky(op, output); },
                   [](Op op, Index operand, Style) { return i2o_cholesky(op, operand); }},
    // Composed by IndexingAnalysis (async_maps.cpp).
    {F::kAsyncStart, [](Op op, Index, Style) -> Sets { no_maps(op); },
                     [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kDynamicReshape, [](Op op, Index, Style) { return o2i_dynamic_reshape(op); },
                         [](Op op, Index operand, Style) { return i2o_dynamic_reshape(op, operand); }},
    {F::kRaggedDot, [](Op op, Index, Style) { return o2i_ragged_dot(op); },
                    [](Op op, Index operand, Style) { return i2o_ragged_dot(op, operand); }},
    {F::kRaggedAllToAll, [](Op op, Index, Style) { return o2i_ragged_all_to_all(op); },
                         [](Op op, Index operand, Style) { return i2o_ragged_all_to_all(op, operand); }},
};
// clang-format on

constexpr bool covers_every_family() {
  constexpr auto n = static_cast<std::size_t>(F::kCount);
  if (std::size(k_family_maps) != n) return false;
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<std::size_t>(k_family_maps[k].family) != k) return false;
  return true;
}
static_assert(covers_every_family(), "k_family_maps needs one row per hlo::MapFamily, in its order");

const FamilyMaps& family_maps(const OpContext& op) {
  return k_family_maps[static_cast<std::size_t>(hlo::op_traits(op.opcode()).maps)];
}

// copy-start's destination and source, send's data: each of these first
// elements of its result is the whole operand 0.
std::size_t data_elements(hlo::Opcode opcode) {
  if (opcode == hlo::Opcode::kCopyStart) return 2;
  if (opcode == hlo::Opcode::kSend) return 1;
  return 0;
}

}  // namespace

std::vector<MapSet> output_to_input(const OpContext& op, std::size_t output, MapStyle style) {
  if (output >= op.output_count()) throw Unsupported("the instruction has no output " + std::to_string(output));
  return family_maps(op).output_to_input(op, output, style);
}

std::vector<MapSet> custom_call_maps(const OpContext& op, std::size_t index, bool forward, MapStyle style) {
  const FamilyMaps& f = k_family_maps[static_cast<std::size_t>(hlo::MapFamily::kCustomCall)];
  return forward ? f.input_to_output(op, index, style) : f.output_to_input(op, index, style);
}

bool reads_tuple_leaves_by_result(hlo::Opcode op) {
  const hlo::MapFamily family = hlo::op_traits(op).maps;
  return family == hlo::MapFamily::kCall || family == hlo::MapFamily::kConditional ||
         family == hlo::MapFamily::kWhile || family == hlo::MapFamily::kAsyncStart;
}

std::optional<std::size_t> operand_tuple_element(const OpContext& op, std::size_t output) {
  if (op.operand_count() == 0) return std::nullopt;
  // The shape index of the output leaf, then where the op takes it from.
  std::vector<std::size_t> path = leaf_path(op.shape(), output);
  std::size_t operand = 0;
  switch (hlo::op_traits(op.opcode()).tuple_element) {
    case hlo::TupleElement::kNone:
      if (path.empty()) return std::nullopt;
      if (op.opcode() == hlo::Opcode::kTuple) {
        operand = path.front();  // element j of the output is operand j
      } else if (path.front() >= data_elements(op.opcode())) {
        return std::nullopt;
      }
      path.erase(path.begin());
      break;
    case hlo::TupleElement::kIndexAttribute:
      path.insert(path.begin(), static_cast<std::size_t>(op.int_attribute("index").value_or(0)));
      break;
    case hlo::TupleElement::kSameAsOutput: {
      // Leaf k of the operand (an all-reduce-done's array is leaf 0 of its -start's tuple).
      if (output >= leaf_count(op.operand_shape(0))) return std::nullopt;
      return output;
    }
    case hlo::TupleElement::kFirst: path.insert(path.begin(), 0); break;
    case hlo::TupleElement::kSecond: path.insert(path.begin(), 1); break;
  }
  if (operand >= op.operand_count()) return std::nullopt;
  return leaf_at(op.operand_shape(operand), path);
}

std::vector<MapSet> input_to_output(const OpContext& op, std::size_t operand, MapStyle style) {
  if (operand >= op.operand_count()) throw Unsupported("the instruction has no operand " + std::to_string(operand));
  return family_maps(op).input_to_output(op, operand, style);
}

}  // namespace hlo_index::indexing
