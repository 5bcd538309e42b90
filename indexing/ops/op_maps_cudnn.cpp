// cuDNN convolution custom-calls (XLA: xla/service/gpu/cublas_cudnn.h;
// built by transforms/conv_rewriter.cc and cudnn_fused_conv_rewriter.cc,
// run by gpu_conv_runner.cc). Their window, dim_labels and
// feature_group_count describe a forward convolution input * filter ->
// output; the kind says which of the three arrays the operands and the
// result are:
//   __cudnn$convForward            (input, filter)      -> output
//   __cudnn$convBackwardInput      (output, filter)     -> input
//   __cudnn$convBackwardFilter     (input, output)      -> filter
//   __cudnn$convBiasActivationForward (input, filter, bias[, side_input])
//       -> activation(scale * conv + side_input_scale * side_input + bias)
//   __cudnn$convForwardGraph       (input, filter, operands of the
//       pointwise graph in backend_config) -> (output, amax scalars...)
// and the result is a tuple whose last element is the scratch buffer (reads
// nothing).
//
// A gradient element reads the elements of the other two arrays that meet
// it in one product of the forward sum: an input-gradient element reads
// every output-gradient element whose window covers it and the filter
// element each of those windows multiplies it by; a filter-gradient element
// reads, for every output position whose window puts a real input element
// under it, that output-gradient element and that input element. These are
// the forward convolution's relations seen from the result's array
// (convolution_term), exact.
//
// Bias: one element per output feature. The side input is read at the
// output's index when side_input_scale != 0 (the runner passes the output
// buffer in its place otherwise). The graph's operands are scalars (scales,
// read by every element) or have the output's shape (addends, read at its
// index); every one of them reaches the output, whose graph has one tensor
// endpoint. An amax result reads every element the output reads from input
// and filter; which graph operands it reads depends on where in the graph
// the amax is taken, which the maps do not follow: all of them, approximate.
#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/backend_config.hpp"
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

using A = ConvolutionArray;

struct Roles {
  ConvolutionArray operand0, operand1, result;
};

Roles roles(CudnnConvKind kind) {
  switch (kind) {
    case CudnnConvKind::kBackwardInput: return {A::kOutput, A::kKernel, A::kInput};
    case CudnnConvKind::kBackwardFilter: return {A::kInput, A::kOutput, A::kKernel};
    default: return {A::kInput, A::kKernel, A::kOutput};
  }
}

std::string target_name(CudnnConvKind kind) {
  switch (kind) {
    case CudnnConvKind::kForward: return "__cudnn$convForward";
    case CudnnConvKind::kBackwardInput: return "__cudnn$convBackwardInput";
    case CudnnConvKind::kBackwardFilter: return "__cudnn$convBackwardFilter";
    case CudnnConvKind::kForwardActivation: return "__cudnn$convBiasActivationForward";
    case CudnnConvKind::kForwardGraph: return "__cudnn$convForwardGraph";
  }
  return {};
}

std::vector<std::int64_t>& array(ConvolutionShapes& s, ConvolutionArray a) {
  return a == A::kInput ? s.input : a == A::kKernel ? s.kernel : s.output;
}

const IndexingMap& map_to(const ConvolutionTerm& t, ConvolutionArray a) {
  return a == A::kInput ? t.input : a == A::kKernel ? t.kernel : t.output;
}

ConvolutionShapes shapes(const OpContext& op, const Roles& r) {
  ConvolutionShapes s;
  array(s, r.operand0) = op.operand_dims(0);
  array(s, r.operand1) = op.operand_dims(1);
  array(s, r.result) = op.output_dims(0);
  return s;
}

// The result's leaves: the convolution's array, then (graph only) amax
// scalars, then the scratch buffer when the result is a tuple.
std::size_t amax_count(const OpContext& op, CudnnConvKind kind) {
  const std::size_t leaves = op.output_count();
  const std::size_t extra = op.shape().is_tuple && leaves >= 2 ? leaves - 2 : 0;
  if (extra != 0 && kind != CudnnConvKind::kForwardGraph)
    throw Unsupported("a result of " + std::to_string(leaves) + " arrays where (result, scratch) is expected");
  return extra;
}

// What operand k >= 2 is read as, from the result's element (d..).
enum class Extra { kNone, kBias, kSameIndex, kScalar };

Extra extra_operand(const OpContext& op, CudnnConvKind kind, std::size_t k) {
  const auto out = op.output_dims(0), in = op.operand_dims(k);
  switch (kind) {
    case CudnnConvKind::kForwardActivation: {
      if (op.operand_count() > 4) throw Unsupported("more operands than input, filter, bias and side input");
      if (k == 2) {
        const auto labels = parser::convolution_dimensions(op.computation, op.instruction());
        if (!labels) throw Unsupported("the convolution has no dim_labels");
        if (in != std::vector<std::int64_t>{out.at(static_cast<std::size_t>(labels->output_feature))})
          throw Unsupported("the bias is not one element per output feature");
        return Extra::kBias;
      }
      if (in != out) throw Unsupported("the side input does not have the output's shape");
      return cudnn_side_input_scale(op) != 0 ? Extra::kSameIndex : Extra::kNone;
    }
    case CudnnConvKind::kForwardGraph:
      if (in.empty()) return Extra::kScalar;
      if (in == out) return Extra::kSameIndex;
      throw Unsupported("graph operand " + std::to_string(k) + " is neither a scalar nor of the output's shape");
    default: throw Unsupported("more than two operands");
  }
}

IndexingMap extra_map(const OpContext& op, Extra e) {
  const auto out = op.output_dims(0);
  switch (e) {
    case Extra::kBias: {
      const auto labels = parser::convolution_dimensions(op.computation, op.instruction());
      return build::map(out, {Expr::dim(u32(static_cast<std::size_t>(labels->output_feature)))});
    }
    case Extra::kSameIndex: return IndexingMap::identity(out);
    case Extra::kScalar:
    case Extra::kNone: break;
  }
  return build::scalar(out);
}

std::vector<MapSet> output_reads(const OpContext& op, std::size_t output, CudnnConvKind kind) {
  const Roles r = roles(kind);
  const std::size_t amaxes = amax_count(op, kind);
  std::vector<MapSet> sets(op.operand_count());
  if (output > amaxes) return sets;  // the scratch buffer
  if (output > 0 && !op.output_dims(output).empty()) throw Unsupported("an amax result that is not a scalar");
  const ConvolutionTerm t = convolution_term(op, shapes(op, r), r.result, MapStyle::kExact);
  sets[0].push_back(map_to(t, r.operand0));
  sets[1].push_back(map_to(t, r.operand1));
  for (std::size_t k = 2; k < op.operand_count(); ++k) {
    const Extra e = extra_operand(op, kind, k);
    if (e != Extra::kNone) sets[k].push_back(extra_map(op, e));
  }
  if (output == 0) return sets;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    for (IndexingMap& m : sets[k]) {
      m = dims_as_ranges(m);
      if (k >= 2) m.mark_approximate("the graph operands before the amax are not followed");
    }
  }
  return sets;
}

std::vector<MapSet> operand_writes(const OpContext& op, std::size_t operand, CudnnConvKind kind) {
  if (operand >= 2)
    return maps_by_inverse(op, operand, [kind](const OpContext& o, std::size_t k) { return output_reads(o, k, kind); });
  for (std::size_t k = 2; k < op.operand_count(); ++k) (void)extra_operand(op, kind, k);  // checks them
  const Roles r = roles(kind);
  const std::size_t amaxes = amax_count(op, kind);
  std::vector<MapSet> sets(op.output_count());
  const ConvolutionTerm t =
      convolution_term(op, shapes(op, r), operand == 0 ? r.operand0 : r.operand1, MapStyle::kExact);
  const IndexingMap& to_result = map_to(t, r.result);
  sets[0].push_back(to_result);
  // An amax reads every element some output element reads: those that
  // reach the output at all.
  for (std::size_t k = 1; k <= amaxes; ++k) {
    if (!op.output_dims(k).empty()) throw Unsupported("an amax result that is not a scalar");
    IndexingMap m = to_result;
    if (m.is_defined()) m.results().clear();
    sets[k].push_back(std::move(m));
  }
  return sets;
}

}  // namespace

std::vector<MapSet> o2i_cudnn_convolution(const OpContext& op, std::size_t output, CudnnConvKind kind) {
  try {
    if (op.operand_count() < 2) throw Unsupported("fewer than two operands");
    return output_reads(op, output, kind);
  } catch (const Unsupported& e) {
    throw Unsupported(target_name(kind) + ": " + e.what());
  }
}

std::vector<MapSet> i2o_cudnn_convolution(const OpContext& op, std::size_t operand, CudnnConvKind kind) {
  try {
    if (op.operand_count() < 2) throw Unsupported("fewer than two operands");
    return operand_writes(op, operand, kind);
  } catch (const Unsupported& e) {
    throw Unsupported(target_name(kind) + ": " + e.what());
  }
}

}  // namespace hlo_index::indexing::detail
