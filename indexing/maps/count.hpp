// Exact point counting for indexing maps without enumerating large sets:
// independent groups of variables multiply, a group of one variable is
// counted in closed form per residue class of its divisors, larger groups
// enumerate their outer variables under a work bound, and isl counts what
// is left within its operation budget. When a bound is hit the count is an
// upper bound and says so.
#pragma once

#include <cstdint>
#include <span>

#include "indexing/maps/indexing_map.hpp"
#include "simplify/wide.hpp"

namespace hlo_index::indexing {

/// A count in full width (`wide`, past 2^63 when it is) and as an int64
/// (`value`, saturated at INT64_MAX). `exact` says `value` is the count (it is
/// false for an upper bound and for a saturated value); `wide_exact` says
/// `wide` is (false: an upper bound). Past 2^128 counting throws
/// simplify::ArithmeticOverflow: the count is refused, never wrapped.
struct Count {
  std::int64_t value = 0;
  bool exact = true;
  simplify::Wide wide = 0;
  bool wide_exact = true;

  /// `n`, exact or an upper bound.
  static Count of(simplify::Wide n, bool is_exact) {
    return {simplify::saturated_int64(n), is_exact && n <= simplify::k_int64_max_wide, n, is_exact};
  }
};

/// Points (d, s, rt) of the domain.
Count count_domain(const IndexingMap& map);
/// Distinct result tuples over the domain (elements the map reaches).
Count count_image(const IndexingMap& map);
/// Distinct pairs ((d, rt), r) of the relation.
Count count_relation(const IndexingMap& map);

/// Distinct result tuples reached by any of `maps` (all with the same
/// number of results): the size of the union of their images.
Count count_union_image(std::span<const IndexingMap> maps);

/// Points of a symbolic domain (all variables). Memoised for the process by domain, enumeration
/// budget and isl operation limit (count_memo.hpp): a map's reads are counted by the cost model,
/// a summary row and lint.
Count count_points(const Domain& domain);

/// For the scope, count_points on this thread enumerates at most `evaluations` constraint
/// evaluations per count (default 20,000,000) before handing the count to isl, which is faster
/// on large domains of affine constraints and else answers with the box, an upper bound marked
/// so. Pictures count up to hundreds of blocks of one operand (a real GPU dump's reduce over a
/// pred[1000,240,240]: 19.8 s enumerating, 3.1 s with isl, the same picture). count_points
/// memoises by the budget too, so an answer of the scope is recalled only within such a scope.
class ScopedCountEvaluations {
public:
  explicit ScopedCountEvaluations(std::int64_t evaluations);
  ~ScopedCountEvaluations();
  ScopedCountEvaluations(const ScopedCountEvaluations&) = delete;
  ScopedCountEvaluations& operator=(const ScopedCountEvaluations&) = delete;

private:
  std::int64_t m_saved;
};

}  // namespace hlo_index::indexing
