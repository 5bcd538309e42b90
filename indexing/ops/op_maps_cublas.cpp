// cuBLAS custom-calls. The triangular solve, __cublas$triangularSolve
// (XLA: transforms/triangular_solve_rewriter.cc), is the triangular-solve op
// with its TriangularSolveOptions as backend_config and a result (x,
// scratch). The GEMMs, __cublas$gemm, __cublas$lt$matmul and
// __cublas$lt$matmul$f8 (XLA: xla/service/gpu/transforms/gemm_rewriter.cc
// builds them, xla/service/gpu/thunk_emitter.cc reads their operands and
// results; the fields are GemmBackendConfig's in backend_configs.proto).
//
// D = epilogue(alpha * dot(A, B) + beta * C + bias), the dot given by
// gemm_backend_config.dot_dimension_numbers, so D reads A and B as that dot
// does (the dot op's builders), and:
//   C (operand 2, present when beta != 0): the element at D's index;
//   bias (cuBLASLt, epilogues BIAS*): a vector along the output's most
//     minor physical dimensions (cuBLASLt adds it per row of the column-major
//     D that XLA's layout normalisation hands it, i.e. along the output's
//     minor dimension);
//   FP8 scales (operands after A, B and C, and d_scale last): scalars (or
//     one-element tensors), read by every element; a scale tensor of more
//     elements (per row, column or block) is read whole, approximate.
// Results: D alone, or a tuple of D, the auxiliary output of a *_GELU_AUX
// epilogue (the pre-activation value: D's reads), for FP8 with damax_output
// the scalar max |D| (every element any element of D reads), and a
// workspace buffer last (s8[n], reads nothing).
#include <algorithm>

#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/backend_config.hpp"
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

enum class Role { kA, kB, kC, kBias, kScalar };

// What each operand and each output of one GEMM custom-call is.
struct Gemm {
  GemmConfig config;
  std::vector<Role> operands;
  std::optional<std::size_t> aux, damax;  // outputs besides D (output 0)
  std::size_t outputs = 1;                // D, aux, damax; a workspace after them reads nothing
};

std::string target_name(GemmKind kind) {
  switch (kind) {
    case GemmKind::kLegacy: return "__cublas$gemm";
    case GemmKind::kLt: return "__cublas$lt$matmul";
    case GemmKind::kLtF8: return "__cublas$lt$matmul$f8";
  }
  return {};
}

Gemm gemm(const OpContext& op, GemmKind kind) {
  Gemm g{gemm_config(op), {}, {}, {}};
  const bool c = g.config.beta != 0, bias = adds_vector_bias(g.config.epilogue);
  const std::size_t n = op.operand_count();
  g.operands = {Role::kA, Role::kB};
  if (c) g.operands.push_back(Role::kC);
  switch (kind) {
    case GemmKind::kLegacy:
      // The legacy API applies no epilogue (thunk_emitter's EmitGemmThunk).
      if (g.config.epilogue != GemmEpilogue::kDefault)
        throw Unsupported(std::string("epilogue ").append(epilogue_name(g.config.epilogue)) +
                          " on a legacy cuBLAS GEMM");
      break;
    case GemmKind::kLt:
      if (bias) g.operands.push_back(Role::kBias);
      if (has_aux_output(g.config.epilogue)) g.aux = g.outputs++;
      break;
    case GemmKind::kLtF8:
      // a_scale and b_scale, the bias, then any further scales (d_scale last).
      if (has_aux_output(g.config.epilogue)) throw Unsupported("an FP8 GEMM with an auxiliary output");
      g.operands.push_back(Role::kScalar);
      g.operands.push_back(Role::kScalar);
      if (bias) g.operands.push_back(Role::kBias);
      while (g.operands.size() < n) g.operands.push_back(Role::kScalar);
      if (g.config.damax_output) g.damax = g.outputs++;
      break;
  }
  if (g.operands.size() != n) {
    throw Unsupported(std::to_string(n) + " operands where beta " + (c ? "!= 0" : "= 0") + " and epilogue " +
                      std::string(epilogue_name(g.config.epilogue)) + " give " + std::to_string(g.operands.size()));
  }
  const std::size_t leaves = op.output_count();
  if (leaves != g.outputs && leaves != g.outputs + 1)
    throw Unsupported(std::to_string(leaves) + " results where D" + (g.aux ? ", the auxiliary output" : "") +
                      (g.damax ? ", damax" : "") + " and a workspace are expected");
  return g;
}

DotShapes gemm_shapes(const OpContext& op) { return {op.operand_dims(0), op.operand_dims(1), op.output_dims(0)}; }

// (d..) -> (d.. at the output's minor physical dimensions): bias dimension
// j, the j-th most minor of the bias, is the j-th most minor of the output.
IndexingMap bias_map(const OpContext& op, std::size_t operand) {
  const hlo::Shape& out_shape = op.output_shape(0);
  const hlo::Shape& bias_shape = op.operand_shape(operand);
  const auto out = op.output_dims(0), bias = op.operand_dims(operand);
  auto minor_to_major = [](const hlo::Shape& s) {
    if (s.layout && s.layout->minor_to_major.size() == s.dims.size()) return s.layout->minor_to_major;
    std::vector<std::int64_t> m2m;
    for (std::size_t i = s.dims.size(); i-- > 0;) m2m.push_back(static_cast<std::int64_t>(i));
    return m2m;
  };
  const auto out_order = minor_to_major(out_shape), bias_order = minor_to_major(bias_shape);
  if (bias.size() > out.size()) throw Unsupported("the bias has a higher rank than the result");
  std::vector<Expr> results(bias.size());
  for (std::size_t i = 0; i < bias.size(); ++i) {
    const auto o = static_cast<std::size_t>(out_order[i]), b = static_cast<std::size_t>(bias_order[i]);
    if (bias[b] != out[o]) throw Unsupported("the bias does not match the result's minor dimensions");
    results[b] = Expr::dim(u32(o));
  }
  return build::map(out, std::move(results));
}

// D's reads (and the auxiliary output's).
std::vector<MapSet> result_reads(const OpContext& op, const Gemm& g) {
  const auto out = op.output_dims(0);
  std::vector<IndexingMap> dot = dot_operand_maps(g.config.dot, gemm_shapes(op));
  std::vector<MapSet> sets(op.operand_count());
  for (std::size_t k = 0; k < g.operands.size(); ++k) {
    switch (g.operands[k]) {
      case Role::kA: sets[k].push_back(std::move(dot[0])); break;
      case Role::kB: sets[k].push_back(std::move(dot[1])); break;
      case Role::kC:
        if (op.operand_dims(k) != out) throw Unsupported("C does not have the result's shape");
        sets[k].push_back(IndexingMap::identity(out));
        break;
      case Role::kBias: sets[k].push_back(bias_map(op, k)); break;
      case Role::kScalar: {
        // A scalar, or a tensor of one element; a larger scale tensor (per
        // row, per column or per block) is read whole, approximate.
        const std::vector<std::int64_t> scale = op.operand_dims(k);
        if (build::product(scale) == 1) {
          sets[k].push_back(build::map(out, std::vector<Expr>(scale.size(), Expr::constant(0))));
        } else if (build::product(scale) > 1) {
          IndexingMap m = build::map(out, build::ranges(scale.size()), scale);
          m.mark_approximate("an FP8 scale tensor read whole");
          sets[k].push_back(std::move(m));
        }
        break;
      }
    }
  }
  return sets;
}

}  // namespace

std::vector<MapSet> o2i_cublas_gemm(const OpContext& op, std::size_t output, GemmKind kind) {
  try {
    const Gemm g = gemm(op, kind);
    if (output >= g.outputs) return std::vector<MapSet>(op.operand_count());  // the workspace
    if (output == g.aux && op.output_dims(output) != op.output_dims(0))
      throw Unsupported("the auxiliary output does not have D's shape");
    if (output == g.damax && !op.output_dims(output).empty()) throw Unsupported("damax is not a scalar");
    std::vector<MapSet> sets = result_reads(op, g);
    if (output == g.damax) {
      for (MapSet& set : sets)
        for (IndexingMap& m : set) m = dims_as_ranges(m);
    }
    return sets;
  } catch (const Unsupported& e) {
    throw Unsupported(target_name(kind) + ": " + e.what());
  }
}

std::vector<MapSet> o2i_cublas_triangular_solve(const OpContext& op, std::size_t output) {
  try {
    if (op.operand_count() != 2) throw Unsupported("a triangular solve takes a and b");
    if (op.shape().is_tuple && op.output_count() != 2) throw Unsupported("a result other than (x, scratch)");
    if (output == 1) return std::vector<MapSet>(2);  // the scratch buffer
    return one_each(
        triangular_solve_maps(triangular_solve_options(op), op.operand_dims(0), op.operand_dims(1), op.output_dims(0)));
  } catch (const Unsupported& e) {
    throw Unsupported(std::string("__cublas$triangularSolve: ") + e.what());
  }
}

std::vector<MapSet> i2o_cublas_triangular_solve(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_cublas_triangular_solve);
}

std::vector<MapSet> i2o_cublas_gemm(const OpContext& op, std::size_t operand, GemmKind kind) {
  return maps_by_inverse(op, operand,
                         [kind](const OpContext& o, std::size_t output) { return o2i_cublas_gemm(o, output, kind); });
}

}  // namespace hlo_index::indexing::detail
