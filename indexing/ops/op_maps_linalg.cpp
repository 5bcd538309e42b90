// Linear algebra on the minor dimensions, batched over the others: fft,
// triangular-solve and cholesky (XLA operation semantics: Fft,
// TriangularSolve, Cholesky). The operand -> output maps are the inverses of
// the output -> operand maps (maps_by_inverse).
#include <string>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

bool bool_attribute(const OpContext& op, std::string_view name) { return op.attribute(name).value_or("") == "true"; }

// d0, ..., d(n-1): the batch dimensions, read at the same index.
std::vector<Expr> batch_of(std::size_t n) { return build::dims(n); }

// The constraint lo <= e <= hi, where hi bounds e on the whole domain anyway.
void at_least(IndexingMap& m, const Expr& e, std::int64_t lo, std::int64_t hi) {
  m.add_constraint(e, Interval{lo, hi});
}

}  // namespace

//===--- fft ---===//

// Each output element reads every element of the transformed (trailing
// fft_length.size()) dimensions of its batch index: a discrete Fourier
// transform sums over all of them. RFFT's output and IRFFT's input hold
// n/2+1 elements of the innermost dimension, so the ranges are the operand's.
std::vector<MapSet> o2i_fft(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 1) throw Unsupported("fft takes one operand");
  const std::size_t transformed = op.required_int_list("fft_length").size();
  const auto in = op.operand_dims(0), out = op.output_dims(output);
  if (transformed == 0 || transformed > 3 || in.size() < transformed || in.size() != out.size())
    throw Unsupported("fft_length does not fit the operand and result ranks");
  const std::size_t batch = in.size() - transformed;
  for (std::size_t i = 0; i < batch; ++i)
    if (in[i] != out[i]) throw Unsupported("fft batch dimensions differ between operand and result");
  std::vector<Expr> results = batch_of(batch);
  std::vector<std::int64_t> ranges;
  for (std::size_t i = batch; i < in.size(); ++i) {
    results.push_back(Expr::range(u32(ranges.size())));
    ranges.push_back(in[i]);
  }
  return one_each({build::map(out, std::move(results), ranges)});
}

std::vector<MapSet> i2o_fft(const OpContext& op, std::size_t operand) { return maps_by_inverse(op, operand, o2i_fft); }

//===--- triangular-solve ---===//

// op(a) * x = b (left_side) or x * op(a) = b, op(a) = a, a^T or a^H. With x
// indexed (.., r, c) so that the solve runs along r (x^T for the right side:
// op(a)^T * x^T = b^T), the effective matrix E is op(a) or op(a)^T. When E is
// lower triangular, forward substitution: x[r, c] reads b[k, c] for k <= r
// and E[p, q] for q <= p <= r (q < p with unit_diagonal: the diagonal is not
// accessed); upper triangular: backward substitution, k >= r and r <= p <= q.
// Exact: every element of those sets feeds x[r, c] through the substitution
// chain. E[p, q] is a[p, q], or a[q, p] when exactly one of transpose_a and
// the right side transposes it.
std::vector<IndexingMap> triangular_solve_maps(const TriangularSolveOptions& o, const std::vector<std::int64_t>& a,
                                               const std::vector<std::int64_t>& b,
                                               const std::vector<std::int64_t>& out) {
  if (a.size() < 2 || b.size() != a.size() || out != b || a[a.size() - 1] != a[a.size() - 2])
    throw Unsupported("triangular-solve expects a [..., M, M] and b and the result of one shape [..., R, C]");
  const std::size_t n = a.size(), batch = n - 2;
  const bool left = o.left_side;
  const std::int64_t m = a[n - 1];
  if (b[left ? n - 2 : n - 1] != m) throw Unsupported("triangular-solve: b does not match a's size M");
  const std::string_view transpose = o.transpose_a;
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT")
    throw Unsupported("triangular-solve: unknown transpose_a");
  const bool transposed = transpose != "NO_TRANSPOSE";
  const bool lower = o.lower;
  const bool unit = o.unit_diagonal;
  const bool forward = (lower != transposed) != !left;
  const bool swap = transposed != !left;
  const Expr r = Expr::dim(u32(left ? n - 2 : n - 1));
  const Expr s0 = Expr::range(0), s1 = Expr::range(1);

  std::vector<Expr> b_index = batch_of(batch);
  b_index.push_back(left ? s0 : Expr::dim(u32(n - 2)));
  b_index.push_back(left ? Expr::dim(u32(n - 1)) : s0);
  IndexingMap b_map = build::map(out, std::move(b_index), {m});
  at_least(b_map, forward ? r - s0 : s0 - r, 0, m - 1);

  // s0 = p, s1 = q: the element E[p, q].
  std::vector<Expr> a_index = batch_of(batch);
  a_index.push_back(swap ? s1 : s0);
  a_index.push_back(swap ? s0 : s1);
  IndexingMap a_map = build::map(out, std::move(a_index), {m, m});
  at_least(a_map, forward ? s0 - s1 : s1 - s0, unit ? 1 : 0, m - 1);
  at_least(a_map, forward ? r - s0 : s0 - r, 0, m - 1);
  return {std::move(a_map), std::move(b_map)};
}

std::vector<MapSet> o2i_triangular_solve(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 2) throw Unsupported("triangular-solve takes a and b");
  const TriangularSolveOptions options{bool_attribute(op, "left_side"), bool_attribute(op, "lower"),
                                       bool_attribute(op, "unit_diagonal"),
                                       std::string(op.attribute("transpose_a").value_or("NO_TRANSPOSE"))};
  return one_each(triangular_solve_maps(options, op.operand_dims(0), op.operand_dims(1), op.output_dims(output)));
}

std::vector<MapSet> i2o_triangular_solve(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_triangular_solve);
}

//===--- cholesky ---===//

// lower: a = l l^T. l[i, j] (j <= i) = (a[i, j] - sum_{k<j} l[i, k] l[j, k]) /
// l[j, j] and l[j, j] = sqrt(a[j, j] - sum_{k<j} l[j, k]^2); by induction on
// (j, i), l[i, j] reads exactly the leading triangle {a[p, q] : q <= p <= j}
// and the start of its own row {a[i, q] : q <= j}. Upper (a = u^T u, u = l^T
// of the upper triangle read as the lower one): the same with both index
// pairs swapped. The result's other triangle is implementation-defined;
// only the used triangle of a is ever read, so its elements may read any
// element of their batch's used triangle: approximate.
std::vector<MapSet> o2i_cholesky(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 1) throw Unsupported("cholesky takes one operand");
  const auto a = op.operand_dims(0), out = op.output_dims(output);
  if (a.size() < 2 || a != out || a[a.size() - 1] != a[a.size() - 2])
    throw Unsupported("cholesky expects a [..., N, N] operand of the result's shape");
  const std::size_t n = a.size(), batch = n - 2;
  const std::int64_t size = a[n - 1];
  const bool lower = bool_attribute(op, "lower");
  // (i, j) with j <= i in the lower case; in the upper case (j, i).
  const Expr i = Expr::dim(u32(lower ? n - 2 : n - 1)), j = Expr::dim(u32(lower ? n - 1 : n - 2));
  const Expr s0 = Expr::range(0), s1 = Expr::range(1);
  auto index = [&](const Expr& row, const Expr& column) {
    std::vector<Expr> out_index = batch_of(batch);
    out_index.push_back(lower ? row : column);
    out_index.push_back(lower ? column : row);
    return out_index;
  };

  IndexingMap leading = build::map(out, index(s0, s1), {size, size});
  at_least(leading, i - j, 0, size - 1);
  at_least(leading, s0 - s1, 0, size - 1);
  at_least(leading, j - s0, 0, size - 1);

  IndexingMap row = build::map(out, index(i, s0), {size});
  at_least(row, i - j, 0, size - 1);
  at_least(row, j - s0, 0, size - 1);

  IndexingMap other = build::map(out, index(s0, s1), {size, size});
  at_least(other, j - i, 1, size - 1);
  at_least(other, s0 - s1, 0, size - 1);
  other.mark_approximate("the unused triangle is implementation-defined");

  std::vector<MapSet> sets(1);
  for (IndexingMap* m : {&leading, &row, &other})
    if (!m->is_known_empty()) sets[0].push_back(std::move(*m));
  return sets;
}

std::vector<MapSet> i2o_cholesky(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_cholesky);
}

}  // namespace hlo_index::indexing::detail
