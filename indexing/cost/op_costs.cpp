#include "indexing/cost/op_costs.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "indexing/ops/op_context.hpp"
#include "indexing/ops/op_maps.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::cost {

namespace {

using hlo::Opcode;
using R = CostRule;

struct CostRow {
  Opcode opcode;
  CostRule rule;
};

// clang-format off
// One row per opcode. XLA's transcendental set is exactly the 22 ops marked kTranscendental.
constexpr CostRow k_cost_table[] = {
    {Opcode::kAbs, R::kElementwise}, {Opcode::kAcos, R::kTranscendental}, {Opcode::kAcosh, R::kTranscendental},
    {Opcode::kAdd, R::kElementwise}, {Opcode::kAddDependency, R::kBookkeeping}, {Opcode::kAfterAll, R::kBookkeeping},
    {Opcode::kAllGather, R::kCollective}, {Opcode::kAllGatherDone, R::kBookkeeping},
    {Opcode::kAllGatherStart, R::kCollective}, {Opcode::kAllReduce, R::kAllReduce},
    {Opcode::kAllReduceDone, R::kBookkeeping}, {Opcode::kAllReduceStart, R::kAllReduce},
    {Opcode::kAllToAll, R::kCollective}, {Opcode::kAnd, R::kElementwise}, {Opcode::kAsin, R::kTranscendental},
    {Opcode::kAsinh, R::kTranscendental}, {Opcode::kAsyncDone, R::kBookkeeping},
    {Opcode::kAsyncStart, R::kControlFlow}, {Opcode::kAsyncUpdate, R::kBookkeeping},
    {Opcode::kAtan, R::kElementwise}, {Opcode::kAtan2, R::kTranscendental}, {Opcode::kAtanh, R::kTranscendental},
    {Opcode::kBatchNormGrad, R::kDataMovement}, {Opcode::kBatchNormInference, R::kDataMovement},
    {Opcode::kBatchNormTraining, R::kDataMovement}, {Opcode::kBitcast, R::kBookkeeping},
    {Opcode::kBitcastConvert, R::kElementwise}, {Opcode::kBroadcast, R::kDataMovement},
    {Opcode::kCall, R::kControlFlow}, {Opcode::kCbrt, R::kTranscendental}, {Opcode::kCeil, R::kElementwise},
    {Opcode::kCholesky, R::kCholesky}, {Opcode::kClamp, R::kElementwise}, {Opcode::kClz, R::kElementwise},
    {Opcode::kCollectiveBroadcast, R::kCollective}, {Opcode::kCollectivePermute, R::kCollective},
    {Opcode::kCollectivePermuteDone, R::kBookkeeping}, {Opcode::kCollectivePermuteStart, R::kCollective},
    {Opcode::kCompare, R::kElementwise}, {Opcode::kComplex, R::kElementwise},
    {Opcode::kConcatenate, R::kDataMovement}, {Opcode::kConditional, R::kControlFlow},
    {Opcode::kConstant, R::kBookkeeping}, {Opcode::kConvert, R::kElementwise},
    {Opcode::kConvolution, R::kConvolution}, {Opcode::kCopy, R::kDataMovement},
    {Opcode::kCopyDone, R::kBookkeeping}, {Opcode::kCopyStart, R::kDataMovement},
    {Opcode::kCos, R::kTranscendental}, {Opcode::kCosh, R::kTranscendental}, {Opcode::kCustomCall, R::kCustomCall},
    {Opcode::kCustomCallDone, R::kBookkeeping}, {Opcode::kCustomCallStart, R::kCustomCall},
    {Opcode::kCustomCallUpdate, R::kBookkeeping}, {Opcode::kDivide, R::kElementwise},
    {Opcode::kDomain, R::kBookkeeping}, {Opcode::kDot, R::kDot}, {Opcode::kDynamicReshape, R::kDataMovement},
    {Opcode::kDynamicSlice, R::kDataMovement}, {Opcode::kDynamicUpdateSlice, R::kDataMovement},
    {Opcode::kErf, R::kTranscendental}, {Opcode::kExp, R::kTranscendental}, {Opcode::kExpm1, R::kTranscendental},
    {Opcode::kFft, R::kFft}, {Opcode::kFloor, R::kElementwise}, {Opcode::kFusion, R::kFusion},
    {Opcode::kGather, R::kDataMovement}, {Opcode::kGetDimensionSize, R::kBookkeeping},
    {Opcode::kGetTupleElement, R::kBookkeeping}, {Opcode::kImag, R::kElementwise},
    {Opcode::kInfeed, R::kDataMovement}, {Opcode::kIota, R::kDataMovement}, {Opcode::kIsFinite, R::kElementwise},
    {Opcode::kLog, R::kTranscendental}, {Opcode::kLog1p, R::kTranscendental},
    {Opcode::kLogistic, R::kTranscendental}, {Opcode::kMap, R::kMap}, {Opcode::kMaximum, R::kElementwise},
    {Opcode::kMinimum, R::kElementwise}, {Opcode::kMultiply, R::kElementwise}, {Opcode::kNegate, R::kElementwise},
    {Opcode::kNot, R::kElementwise}, {Opcode::kOptBarrier, R::kBookkeeping}, {Opcode::kOr, R::kElementwise},
    {Opcode::kOutfeed, R::kDataMovement}, {Opcode::kPad, R::kDataMovement}, {Opcode::kParameter, R::kBookkeeping},
    {Opcode::kPartitionId, R::kBookkeeping}, {Opcode::kPopcnt, R::kElementwise},
    {Opcode::kPower, R::kTranscendental}, {Opcode::kRaggedAllToAll, R::kCollective}, {Opcode::kRaggedDot, R::kDot},
    {Opcode::kReal, R::kElementwise}, {Opcode::kRecv, R::kCollective}, {Opcode::kRecvDone, R::kBookkeeping},
    {Opcode::kReduce, R::kReduce}, {Opcode::kReducePrecision, R::kElementwise},
    {Opcode::kReduceScatter, R::kAllReduce}, {Opcode::kReduceWindow, R::kReduceWindow},
    {Opcode::kRemainder, R::kElementwise}, {Opcode::kReplicaId, R::kBookkeeping},
    {Opcode::kReshape, R::kDataMovement}, {Opcode::kReverse, R::kDataMovement}, {Opcode::kRng, R::kRandom},
    {Opcode::kRngBitGenerator, R::kRandom}, {Opcode::kRngGetAndUpdateState, R::kBookkeeping},
    {Opcode::kRoundNearestAfz, R::kElementwise}, {Opcode::kRoundNearestEven, R::kElementwise},
    {Opcode::kRsqrt, R::kTranscendental}, {Opcode::kScaledDot, R::kDot}, {Opcode::kScan, R::kMap},
    {Opcode::kScatter, R::kScatter}, {Opcode::kSelect, R::kElementwise},
    {Opcode::kSelectAndScatter, R::kSelectAndScatter}, {Opcode::kSend, R::kCollective},
    {Opcode::kSendDone, R::kBookkeeping}, {Opcode::kSetDimensionSize, R::kBookkeeping},
    {Opcode::kShiftLeft, R::kElementwise}, {Opcode::kShiftRightArithmetic, R::kElementwise},
    {Opcode::kShiftRightLogical, R::kElementwise}, {Opcode::kSign, R::kElementwise},
    {Opcode::kSin, R::kTranscendental}, {Opcode::kSinh, R::kTranscendental}, {Opcode::kSlice, R::kDataMovement},
    {Opcode::kSort, R::kSort}, {Opcode::kSqrt, R::kTranscendental}, {Opcode::kStochasticConvert, R::kElementwise},
    {Opcode::kSubtract, R::kElementwise}, {Opcode::kTan, R::kTranscendental}, {Opcode::kTanh, R::kTranscendental},
    {Opcode::kTopK, R::kSort}, {Opcode::kTranspose, R::kDataMovement},
    {Opcode::kTriangularSolve, R::kTriangularSolve}, {Opcode::kTuple, R::kBookkeeping},
    {Opcode::kWhile, R::kControlFlow}, {Opcode::kXor, R::kElementwise},
};
// clang-format on

constexpr std::array<std::string_view, static_cast<std::size_t>(CostRule::kCount)> k_rule_names = {"bookkeeping",
                                                                                                   "data movement",
                                                                                                   "elementwise",
                                                                                                   "transcendental",
                                                                                                   "dot",
                                                                                                   "convolution",
                                                                                                   "reduce",
                                                                                                   "reduce-window",
                                                                                                   "select-and-scatter",
                                                                                                   "scatter",
                                                                                                   "sort",
                                                                                                   "fft",
                                                                                                   "triangular-solve",
                                                                                                   "cholesky",
                                                                                                   "random",
                                                                                                   "map",
                                                                                                   "all-reduce",
                                                                                                   "collective",
                                                                                                   "fusion",
                                                                                                   "control flow",
                                                                                                   "custom-call",
                                                                                                   "unknown"};

// a * b, throwing past 2^63.
std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw std::overflow_error("a FLOP count past 2^63");
  return out;
}
std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw std::overflow_error("a FLOP count past 2^63");
  return out;
}

std::int64_t elements(const hlo::Shape& shape) {
  if (shape.is_tuple) {
    std::int64_t n = 0;
    for (const hlo::Shape& e : shape.elements) n = add(n, elements(e));
    return n;
  }
  const auto n = shape.element_count();
  if (!n) throw std::overflow_error("an element count past 2^63 or unbounded");
  return *n;
}

const hlo::Shape& first_array(const hlo::Shape& shape) {
  const hlo::Shape* s = &shape;
  while (s->is_tuple && !s->elements.empty()) s = &s->elements.front();
  return *s;
}

std::int64_t ceil_log2(std::int64_t n) {
  return n <= 1 ? 0 : static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n - 1)));
}
std::int64_t floor_log2(std::int64_t n) {
  return n <= 0 ? 0 : static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n))) - 1;
}

OpFlops scaled(const OpFlops& per_application, std::int64_t applications) {
  OpFlops out = per_application;
  out.flops = out.xla_flops = mul(per_application.flops, applications);
  out.transcendentals = out.xla_transcendentals = mul(per_application.transcendentals, applications);
  return out;
}

OpFlops unknown(std::string reason) {
  OpFlops out;
  out.known = false;
  out.unknown_reason = std::move(reason);
  return out;
}

// floor(a / b) for b > 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The t in [0, n) for which u = a + t * step (step >= 1) is a real element of a windowed dimension:
// 0 <= u <= (in - 1) * base_dilation and u a multiple of base_dilation (not padding, not a
// base-dilation hole). In closed form: the t of an interval in one residue class.
std::int64_t real_positions(std::int64_t a, std::int64_t step, std::int64_t n, std::int64_t in,
                            std::int64_t base_dilation) {
  if (n <= 0 || in <= 0) return 0;
  const std::int64_t last = mul(in - 1, base_dilation);
  // 0 <= a + t * step <= last.
  const std::int64_t lo = std::max<std::int64_t>(0, -floor_div(a, step));  // ceil(-a / step)
  const std::int64_t hi = std::min<std::int64_t>(n - 1, floor_div(last - a, step));
  if (hi < lo) return 0;
  if (base_dilation <= 1) return hi - lo + 1;
  // a + t * step = 0 (mod base_dilation): t = r (mod m), solvable when gcd(step, base_dilation) divides a.
  const std::int64_t g = std::gcd(step, base_dilation);
  if (a % g != 0) return 0;
  const std::int64_t m = base_dilation / g;
  // r = (-a / g) * inverse(step / g) mod m (extended Euclid; m and step / g are coprime).
  std::int64_t old_r = (step / g) % m, r = m, old_s = 1, s = 0;
  while (r != 0) {
    const std::int64_t q = old_r / r;
    std::tie(old_r, r) = std::make_pair(r, old_r - q * r);
    std::tie(old_s, s) = std::make_pair(s, old_s - q * s);
  }
  const std::int64_t inverse = ((old_s % m) + m) % m;
  __extension__ using wide = __int128;
  const auto residue = static_cast<std::int64_t>(static_cast<wide>((((-a / g) % m) + m) % m) * inverse % m);
  // The t in [lo, hi] with t = residue (mod m).
  return floor_div(hi - residue, m) - floor_div(lo - 1 - residue, m);
}

// Along one spatial dimension of a convolution: the (window position, output position) pairs whose
// input is real data (not padding, not a base-dilation hole), XLA's "valid positions".
std::int64_t valid_positions(const parser::WindowDim& w, std::int64_t in, std::int64_t out) {
  std::int64_t valid = 0;
  for (std::int64_t k = 0; k < w.size; ++k)
    valid = add(valid, real_positions(mul(k, w.window_dilation) - w.pad_low, w.stride, out, in, w.base_dilation));
  return valid;
}

// Convolution multiply-accumulates, XLA's way: per spatial dimension the (kernel, output) index pairs
// whose input index is real data (not padding, not a base-dilation hole); the features and batch as
// the group counts divide them.
std::int64_t convolution_macs(const hlo::Computation& c, const hlo::Instruction& i, const hlo::Shape& lhs,
                              const hlo::Shape& out) {
  const auto d = parser::convolution_dimensions(c, i);
  if (!d) throw std::invalid_argument("a convolution without dim_labels");
  const auto window = parser::window_attribute(c, i).value_or(std::vector<parser::WindowDim>{});
  const std::int64_t feature_groups = parser::int_attribute(c, i, "feature_group_count").value_or(1);
  const std::int64_t batch_groups = parser::int_attribute(c, i, "batch_group_count").value_or(1);
  const auto dim = [](const hlo::Shape& s, std::int64_t k) { return s.dims.at(static_cast<std::size_t>(k)); };
  std::int64_t macs =
      mul(mul(dim(lhs, d->input_feature) / std::max<std::int64_t>(1, feature_groups), dim(out, d->output_feature)),
          dim(lhs, d->input_batch) / std::max<std::int64_t>(1, batch_groups));
  for (std::size_t s = 0; s < d->input_spatial.size(); ++s) {
    const parser::WindowDim w = s < window.size() ? window[s] : parser::WindowDim{};
    macs = mul(macs, valid_positions(w, dim(lhs, d->input_spatial[s]), dim(out, d->output_spatial[s])));
  }
  return macs;
}

// Reducer applications of a reduce-window. Exact: per output element, once per real element its
// window reads beyond the first (a window over padding only applies none). Per dimension, v(o) real
// elements under the window of output position o; summed over the outputs, the product of the
// per-dimension sums less the outputs whose every v is non-zero.
std::int64_t reduce_window_applications(const std::vector<parser::WindowDim>& window, const hlo::Shape& operand,
                                        const hlo::Shape& out) {
  std::int64_t reads = 1, windows = 1;
  for (std::size_t d = 0; d < out.dims.size(); ++d) {
    const parser::WindowDim w = d < window.size() ? window[d] : parser::WindowDim{};
    const std::int64_t in = d < operand.dims.size() ? operand.dims[d] : 1;
    std::int64_t sum = 0, nonempty = 0;
    for (std::int64_t o = 0; o < out.dims[d]; ++o) {
      const std::int64_t v =
          real_positions(mul(o, w.stride) - w.pad_low, w.window_dilation, w.size, in, w.base_dilation);
      sum = add(sum, v);
      if (v > 0) ++nonempty;
    }
    reads = mul(reads, sum);
    windows = mul(windows, nonempty);
  }
  return reads - windows;
}

// XLA's reducer applications of a reduce-window: (window size - 1) per output element, padding
// included; except a reduce-then-broadcast (one window dimension of size 2p + 1 that is not 1, the
// only padded dimension, padded p on both sides with p = its output size - 1): N - 1 applications
// to reduce plus one per output over N.
std::int64_t xla_reduce_window_applications(const std::vector<parser::WindowDim>& window, const hlo::Shape& shape,
                                            const hlo::Shape& out) {
  std::int64_t size = 1;
  for (const parser::WindowDim& w : window) size = mul(size, w.size);
  const std::int64_t outputs = elements(out);
  const auto reduced =
      std::count_if(window.begin(), window.end(), [](const parser::WindowDim& w) { return w.size != 1; });
  const auto padded = std::count_if(window.begin(), window.end(),
                                    [](const parser::WindowDim& w) { return w.pad_low != 0 || w.pad_high != 0; });
  if (reduced == 1 && padded == 1 && !shape.is_tuple) {
    for (std::size_t d = 0; d < window.size() && d < out.dims.size(); ++d) {
      const parser::WindowDim& w = window[d];
      if (w.size != 1 && w.pad_low != 0 && w.pad_low == w.pad_high && w.size == 2 * w.pad_low + 1 &&
          w.pad_low == out.dims[d] - 1) {
        const std::int64_t n = out.dims[d];
        return outputs / n + (n - 1);
      }
    }
  }
  return mul(size - 1, outputs);
}

std::int64_t lhs_contracting_size(const hlo::Computation& c, const hlo::Instruction& i, const hlo::Shape& lhs) {
  std::int64_t k = 1;
  for (std::int64_t d : parser::dot_dimensions(c, i).lhs_contracting)
    k = mul(k, lhs.dims.at(static_cast<std::size_t>(d)));
  return k;
}

// The data type a dot or convolution's matrix unit runs at: its operands' (the narrower of two).
PeakClass matmul_class(const hlo::Shape& lhs, const hlo::Shape& rhs, const Device& device) {
  const int a = hlo::element_type_bits(lhs.type), b = hlo::element_type_bits(rhs.type);
  return peak_class(a <= b ? lhs.type : rhs.type, device.tf32);
}

}  // namespace

std::string_view cost_rule_name(CostRule rule) { return k_rule_names.at(static_cast<std::size_t>(rule)); }

CostRule cost_rule(hlo::Opcode opcode) {
  for (const CostRow& row : k_cost_table)
    if (row.opcode == opcode) return row.rule;
  return CostRule::kUnknown;
}

OpFlops computation_flops(const hlo::Module& module, const hlo::Computation& computation, const Device& device) {
  OpFlops out;
  for (std::uint32_t k = 0; k < computation.instructions.size(); ++k) {
    const OpFlops f = op_flops(module, computation, k, device);
    if (!f.known) return unknown(f.unknown_reason);
    out.flops = add(out.flops, f.flops);
    out.transcendentals = add(out.transcendentals, f.transcendentals);
    out.xla_flops = add(out.xla_flops, f.xla_flops);
    out.xla_transcendentals = add(out.xla_transcendentals, f.xla_transcendentals);
  }
  return out;
}

OpFlops op_flops(const hlo::Module& module, const hlo::Computation& computation, std::uint32_t instruction,
                 const Device& device) {
  const hlo::Instruction& i = computation.instructions.at(instruction);
  const hlo::Shape& shape = module.shape_of(i);
  const auto operands = computation.operands_of(i);
  auto operand = [&](std::size_t k) -> const hlo::Shape& {
    return module.shape_of(computation.instructions.at(operands[k]));
  };
  auto applied = [&](std::size_t k = 0) -> const hlo::Computation& {
    const hlo::Computation* callee = module.callee(computation, i, k);
    if (callee == nullptr) throw std::invalid_argument("its computation is missing");
    return *callee;
  };
  OpFlops out;
  const CostRule rule = cost_rule(i.opcode);
  try {
    switch (rule) {
      case R::kBookkeeping:
      case R::kDataMovement:
      case R::kCollective:
      case R::kControlFlow:
      case R::kFusion: return out;
      case R::kElementwise: out.flops = out.xla_flops = elements(shape); break;
      case R::kTranscendental:
      case R::kRandom: out.transcendentals = out.xla_transcendentals = elements(shape); break;
      case R::kAllReduce: out.flops = out.xla_flops = elements(shape); break;
      case R::kDot: {
        if (operands.size() < 2) throw std::invalid_argument("a dot with fewer than two operands");
        const hlo::Shape& out_shape = first_array(shape);
        // 2 x B x M x N x K; a ragged-dot's result has no group dimension, so the same formula holds.
        const std::int64_t result = elements(out_shape);
        out.flops = out.xla_flops = mul(mul(2, result), lhs_contracting_size(computation, i, operand(0)));
        out.unit = ComputeUnit::kMatrix;
        out.type = matmul_class(operand(0), operand(1), device);
        break;
      }
      case R::kConvolution: {
        if (operands.size() < 2) throw std::invalid_argument("a convolution with fewer than two operands");
        out.flops = out.xla_flops = mul(2, convolution_macs(computation, i, operand(0), first_array(shape)));
        out.unit = ComputeUnit::kMatrix;
        out.type = matmul_class(operand(0), operand(1), device);
        break;
      }
      case R::kReduce: {
        if (operands.empty()) throw std::invalid_argument("a reduce without operands");
        OpFlops reducer = computation_flops(module, applied(), device);
        if (!reducer.known) return reducer;
        const std::int64_t n = elements(first_array(operand(0))) - elements(first_array(shape));
        out = scaled(reducer, std::max<std::int64_t>(0, n));
        break;
      }
      case R::kReduceWindow: {
        if (operands.empty()) throw std::invalid_argument("a reduce-window without operands");
        OpFlops reducer = computation_flops(module, applied(), device);
        if (!reducer.known) return reducer;
        const auto window = parser::window_attribute(computation, i).value_or(std::vector<parser::WindowDim>{});
        const hlo::Shape& out_shape = first_array(shape);
        out = scaled(reducer, xla_reduce_window_applications(window, shape, out_shape));
        const OpFlops exact = scaled(reducer, reduce_window_applications(window, first_array(operand(0)), out_shape));
        out.flops = exact.flops;
        out.transcendentals = exact.transcendentals;
        break;
      }
      case R::kSelectAndScatter: {
        if (operands.size() < 2) throw std::invalid_argument("a select-and-scatter with fewer than two operands");
        OpFlops select = computation_flops(module, applied(0), device);
        OpFlops scatter = computation_flops(module, applied(1), device);
        if (!select.known) return select;
        if (!scatter.known) return scatter;
        const auto window = parser::window_attribute(computation, i).value_or(std::vector<parser::WindowDim>{});
        std::int64_t size = 1;
        for (const parser::WindowDim& w : window) size = mul(size, w.size);
        const std::int64_t source = elements(operand(1));
        const OpFlops a = scaled(select, mul(source, size - 1)), b = scaled(scatter, source);
        out.flops = out.xla_flops = add(a.flops, b.flops);
        out.transcendentals = out.xla_transcendentals = add(a.transcendentals, b.transcendentals);
        break;
      }
      case R::kScatter: {
        // (operands..., indices, updates...): updates 0 is the operand after the indices.
        const std::size_t n = operands.size() >= 3 ? (operands.size() - 1) / 2 : 1;
        if (operands.size() < 3) throw std::invalid_argument("a scatter with fewer than three operands");
        OpFlops combiner = computation_flops(module, applied(), device);
        if (!combiner.known) return combiner;
        out = scaled(combiner, elements(operand(n + 1)));
        break;
      }
      case R::kMap: {
        OpFlops f = computation_flops(module, applied(), device);
        if (!f.known) return f;
        out = scaled(f, elements(first_array(shape)));
        break;
      }
      case R::kSort: {
        if (operands.empty()) throw std::invalid_argument("a sort without operands");
        const std::int64_t n = elements(first_array(operand(0)));
        out.flops = out.xla_flops = mul(n, ceil_log2(n));
        break;
      }
      case R::kFft: {
        const auto lengths =
            parser::int_list_attribute(computation, i, "fft_length").value_or(std::vector<std::int64_t>{});
        std::int64_t logs = 1;
        for (std::int64_t l : lengths) logs = mul(logs, floor_log2(l));
        out.flops = out.xla_flops = mul(mul(8, logs), elements(first_array(operand(0))));
        break;
      }
      case R::kTriangularSolve: {
        if (operands.size() < 2) throw std::invalid_argument("a triangular-solve with fewer than two operands");
        const hlo::Shape& a = operand(0);
        const std::int64_t n = a.dims.empty() ? 1 : a.dims.back();
        out.flops = out.xla_flops = mul(mul(2, n), elements(operand(1)));
        break;
      }
      case R::kCholesky: {
        const hlo::Shape& a = operand(0);
        const std::int64_t n = a.dims.empty() ? 1 : a.dims.back();
        out.flops = out.xla_flops = mul(n, elements(a)) / 3;
        break;
      }
      case R::kCustomCall: {
        const indexing::OpContext op{module, computation, instruction};
        switch (indexing::custom_call_work(op)) {
          case indexing::CustomCallWork::kNone: return out;
          case indexing::CustomCallWork::kElementwise: out.flops = out.xla_flops = elements(first_array(shape)); break;
          case indexing::CustomCallWork::kMatmul:
          case indexing::CustomCallWork::kConvolution:
          case indexing::CustomCallWork::kTriangularSolve:
            // Counted from the maps (cost_model.cpp): one multiply-accumulate per pair of output and
            // operand-0 element.
            out.unit = ComputeUnit::kMatrix;
            if (operands.size() >= 2) out.type = matmul_class(operand(0), operand(1), device);
            return out;
          case indexing::CustomCallWork::kUnknown: {
            const auto target = computation.attribute(i, "custom_call_target").value_or("?");
            return unknown(std::string("custom-call target ").append(target).append(" has no published semantics"));
          }
        }
        break;
      }
      case R::kUnknown:
      case R::kCount: return unknown(std::string("hlo-index does not know the op ").append(module.opcode_text(i)));
    }
  } catch (const std::overflow_error&) {
    throw;
  } catch (const std::exception& e) {
    return unknown(std::string("cannot count its FLOPs: ").append(e.what()));
  }
  if (out.unit == ComputeUnit::kVector) {
    const hlo::Shape& array = first_array(shape);
    out.type = array.is_tuple                              ? PeakClass::kF32
               : peak_class(array.type) == PeakClass::kF64 ? PeakClass::kF64
                                                           : PeakClass::kF32;
  }
  return out;
}

}  // namespace hlo_index::cost
