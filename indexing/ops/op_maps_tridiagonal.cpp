// xla_builder.tridiagonal.TridiagonalSolver: the XLA client library's
// tridiagonal solver (xla/hlo/builder/lib/tridiagonal.h, Thomas algorithm)
// kept as a custom-call, as (lower, main, upper, rhs) with diagonals
// [..., 1, M], or (diagonals [..., 3, M], rhs). The result has rhs's shape;
// M, the number of equations, is one of rhs's two minor dimensions and the
// other indexes the right-hand sides. Each system is solved by a forward
// sweep and a back substitution, so every unknown of a right-hand side
// depends on that whole column of rhs and on every diagonal element of its
// batch: a result element reads those. The first lower and last upper
// diagonal elements lie outside the matrix and are not read, and a zero
// coefficient may cut a dependence, so the maps are approximate; when both
// minor dimensions of rhs are M, which one holds the equations is not told
// by the shapes, and the element reads its batch's whole rhs.
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

constexpr std::string_view k_tridiagonal_reason = "a tridiagonal solve reads its whole system";

}  // namespace

std::vector<MapSet> o2i_tridiagonal_solver(const OpContext& op, std::size_t output) {
  const std::size_t n = op.operand_count();
  if ((n != 2 && n != 4) || op.shape().is_tuple || output != 0)
    throw Unsupported("TridiagonalSolver expects (lower, main, upper, rhs) or (diagonals, rhs)");
  const std::vector<std::int64_t> out = op.output_dims(0), rhs = op.operand_dims(n - 1);
  const std::size_t rank = out.size();
  if (rank < 2 || rhs != out) throw Unsupported("TridiagonalSolver: the result does not have rhs's shape");
  const std::vector<std::int64_t> diagonal = op.operand_dims(0);
  if (diagonal.size() != rank || !std::equal(out.begin(), out.end() - 2, diagonal.begin()))
    throw Unsupported("TridiagonalSolver: diagonals and rhs of different batches");
  const std::int64_t m = diagonal.back();
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (op.operand_dims(k) != diagonal || diagonal[rank - 2] != (n == 2 ? 3 : 1))
      throw Unsupported("TridiagonalSolver: diagonals that are not [..., 1, M] or [..., 3, M]");
  }
  std::vector<MapSet> sets(n);
  if (build::product(out) == 0) return sets;
  // The batch's diagonals, whole.
  std::vector<Expr> batch = build::dims(rank - 2);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    std::vector<Expr> results = batch;
    results.push_back(Expr::range(0));
    results.push_back(Expr::range(1));
    IndexingMap map = build::map(out, std::move(results), {diagonal[rank - 2], m});
    map.mark_approximate(k_tridiagonal_reason);
    sets[k].push_back(std::move(map));
  }
  // The column of rhs: every equation at this right-hand side.
  std::vector<Expr> results = batch;
  std::vector<std::int64_t> ranges;
  const bool last = out[rank - 1] == m, second = out[rank - 2] == m;
  if (!last && !second) throw Unsupported("TridiagonalSolver: no dimension of rhs has the M equations");
  for (std::size_t d = rank - 2; d < rank; ++d) {
    const bool equations = (last && second) || (d == rank - 1 ? last : !last);
    if (equations) {
      results.push_back(Expr::range(u32(ranges.size())));
      ranges.push_back(out[d]);
    } else {
      results.push_back(Expr::dim(u32(d)));
    }
  }
  IndexingMap map = build::map(out, std::move(results), ranges);
  map.mark_approximate(k_tridiagonal_reason);
  sets[n - 1].push_back(std::move(map));
  return sets;
}

std::vector<MapSet> i2o_tridiagonal_solver(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_tridiagonal_solver);
}

}  // namespace hlo_index::indexing::detail
