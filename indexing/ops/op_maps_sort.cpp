// Ops whose output elements depend on a whole dimension or a whole feature:
// sort and top-k (every element along the sort dimension, of every
// operand, since the comparator may read them all) and the batch norms
// (every element of one feature).
#include <algorithm>

#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

// The dimension sorted along: sort's dimensions={d}; top-k's last one.
std::size_t sort_dimension(const OpContext& op, std::size_t rank) {
  std::int64_t d = static_cast<std::int64_t>(rank) - 1;
  if (op.opcode() == hlo::Opcode::kSort) {
    const auto dims = op.required_int_list("dimensions");
    if (dims.size() != 1) throw Unsupported("sort needs exactly one dimension");
    d = dims[0];
  }
  if (d < 0 || static_cast<std::size_t>(d) >= rank) throw Unsupported("the sort dimension is out of range");
  return static_cast<std::size_t>(d);
}

// (from..)[s] -> (from.. with s at dimension d): a whole line of `to` along d.
IndexingMap whole_line(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to, std::size_t d) {
  if (from.size() != to.size()) throw Unsupported("the operands and outputs differ in rank");
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (i != d && from[i] != to[i]) throw Unsupported("the operands and outputs differ outside the sort dimension");
  }
  std::vector<Expr> results = build::dims(from.size());
  results[d] = Expr::range(0);
  return build::map(from, std::move(results), {to[d]});
}

}  // namespace

std::vector<MapSet> o2i_sort(const OpContext& op, std::size_t output) {
  const auto out = op.output_dims(output);
  const std::size_t d = sort_dimension(op, out.size());
  std::vector<IndexingMap> maps;
  for (std::size_t j = 0; j < op.operand_count(); ++j) maps.push_back(whole_line(out, op.operand_dims(j), d));
  return one_each(std::move(maps));
}

std::vector<MapSet> i2o_sort(const OpContext& op, std::size_t operand) {
  const auto in = op.operand_dims(operand);
  const std::size_t d = sort_dimension(op, in.size());
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < op.output_count(); ++k) maps.push_back(whole_line(in, op.output_dims(k), d));
  return one_each(std::move(maps));
}

//===--- batch norms ---===//

namespace {

std::size_t feature_index(const OpContext& op) {
  const auto f = op.int_attribute("feature_index");
  const auto rank = op.operand_dims(0).size();
  if (!f || *f < 0 || static_cast<std::size_t>(*f) >= rank) throw Unsupported("feature_index is not a dimension");
  return static_cast<std::size_t>(*f);
}

// (from..)[s..] -> (s.. with `feature` at dimension f): every element of
// `to` (an array with features along f) of the feature `feature` names.
IndexingMap feature_slice(const std::vector<std::int64_t>& from, const Expr& feature,
                          const std::vector<std::int64_t>& to, std::size_t f) {
  std::vector<Expr> results;
  std::vector<std::int64_t> ranges;
  for (std::size_t i = 0; i < to.size(); ++i) {
    if (i == f) {
      results.push_back(feature);
    } else {
      results.push_back(Expr::range(u32(ranges.size())));
      ranges.push_back(to[i]);
    }
  }
  return build::map(from, std::move(results), ranges);
}

// (from..) -> (feature): the one element of a per-feature vector.
IndexingMap feature_element(const std::vector<std::int64_t>& from, const Expr& feature) {
  return build::map(from, {feature});
}

// What one operand of a batch norm is to one output, in the operand's own words.
enum class BatchNormReads { kNothing, kSameElement, kFeatureElement, kFeatureSlice };

// Rows: outputs; columns: operands (XLA's operand order of each op).
// inference(operand, scale, offset, mean, variance) -> normalized
// training(operand, scale, offset) -> (normalized, batch_mean, batch_var)
// grad(operand, scale, mean, variance, grad_output) -> (grad_operand, grad_scale, grad_offset)
BatchNormReads batch_norm_reads(hlo::Opcode opcode, std::size_t output, std::size_t operand) {
  using R = BatchNormReads;
  switch (opcode) {
    case hlo::Opcode::kBatchNormInference: return operand == 0 ? R::kSameElement : R::kFeatureElement;
    case hlo::Opcode::kBatchNormTraining:
      if (operand == 0) return R::kFeatureSlice;
      return output == 0 ? R::kFeatureElement : R::kNothing;
    case hlo::Opcode::kBatchNormGrad: {
      const bool whole = operand == 0 || operand == 4;  // operand and grad_output: per-feature reductions
      if (output == 2) return operand == 4 ? R::kFeatureSlice : R::kNothing;
      if (output == 1 && operand == 1) return R::kNothing;  // grad_scale does not depend on scale
      return whole ? R::kFeatureSlice : R::kFeatureElement;
    }
    default: break;
  }
  throw Unsupported("not a batch norm");
}

}  // namespace

std::vector<MapSet> o2i_batch_norm(const OpContext& op, std::size_t output) {
  const std::size_t f = feature_index(op);
  const auto out = op.output_dims(output);
  const auto data = op.operand_dims(0);
  const bool per_feature = out.size() != data.size();
  const Expr feature = per_feature ? Expr::dim(0) : Expr::dim(u32(f));
  std::vector<MapSet> sets(op.operand_count());
  for (std::size_t j = 0; j < op.operand_count(); ++j) {
    const auto in = op.operand_dims(j);
    switch (batch_norm_reads(op.opcode(), output, j)) {
      case BatchNormReads::kNothing: break;
      case BatchNormReads::kSameElement: sets[j].push_back(IndexingMap::identity(out)); break;
      case BatchNormReads::kFeatureElement: sets[j].push_back(feature_element(out, feature)); break;
      case BatchNormReads::kFeatureSlice: sets[j].push_back(feature_slice(out, feature, in, f)); break;
    }
  }
  return sets;
}

std::vector<MapSet> i2o_batch_norm(const OpContext& op, std::size_t operand) {
  const std::size_t f = feature_index(op);
  const auto in = op.operand_dims(operand);
  const auto data = op.operand_dims(0);
  const bool per_feature = in.size() != data.size();
  const Expr feature = per_feature ? Expr::dim(0) : Expr::dim(u32(f));
  std::vector<MapSet> sets(op.output_count());
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    const auto out = op.output_dims(k);
    const bool out_per_feature = out.size() != data.size();
    switch (batch_norm_reads(op.opcode(), k, operand)) {
      case BatchNormReads::kNothing: break;
      case BatchNormReads::kSameElement: sets[k].push_back(IndexingMap::identity(in)); break;
      case BatchNormReads::kFeatureElement:
      case BatchNormReads::kFeatureSlice:
        // An operand element (or feature) feeds the whole feature of the output.
        sets[k].push_back(out_per_feature ? feature_element(in, feature) : feature_slice(in, feature, out, f));
        break;
    }
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail
