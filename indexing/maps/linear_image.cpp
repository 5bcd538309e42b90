#include "indexing/maps/linear_image.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "simplify/expr.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::indexing {

namespace {

using simplify::Expr;
using simplify::Var;
using simplify::VarKind;

// Values a sum may span (bits of the set), and values one term's variable may take (each
// evaluated): past them isl counts.
constexpr std::int64_t k_max_span = std::int64_t{1} << 22;
constexpr std::int64_t k_max_term_values = std::int64_t{1} << 16;
// Word operations of the unions of shifted copies of a term that is no progression.
constexpr std::int64_t k_max_shift_work = std::int64_t{1} << 26;

class BitSet {
public:
  explicit BitSet(std::int64_t bits) : m_words(static_cast<std::size_t>((bits + 63) / 64), 0) {}

  void set(std::int64_t i) { m_words[static_cast<std::size_t>(i >> 6)] |= std::uint64_t{1} << (i & 63); }

  /// this |= other << shift (bits past the end dropped); `other` may be this.
  void or_shifted(const BitSet& other, std::int64_t shift) {
    const auto words = static_cast<std::int64_t>(m_words.size());
    const std::int64_t q = shift >> 6, r = shift & 63;
    // From the top down, so a word is read before it is written when `other` is this.
    for (std::int64_t i = words - 1; i >= q; --i) {
      const std::uint64_t low = other.m_words[static_cast<std::size_t>(i - q)];
      const std::uint64_t below = i - q - 1 >= 0 ? other.m_words[static_cast<std::size_t>(i - q - 1)] : 0;
      m_words[static_cast<std::size_t>(i)] |= r == 0 ? low : (low << r) | (below >> (64 - r));
    }
  }

  std::int64_t words() const { return static_cast<std::int64_t>(m_words.size()); }

  std::int64_t count() const {
    std::int64_t n = 0;
    for (std::uint64_t w : m_words) n += std::popcount(w);
    return n;
  }

  /// Calls f(i) for every set bit i, in increasing order.
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t k = 0; k < m_words.size(); ++k) {
      for (std::uint64_t w = m_words[k]; w != 0; w &= w - 1)
        f(static_cast<std::int64_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(w))));
    }
  }

private:
  std::vector<std::uint64_t> m_words;
};

// One term's values, distinct, sorted and minus the smallest (which goes to `base`).
struct TermValues {
  std::vector<std::int64_t> values;
  std::int64_t span() const { return values.back() + 1; }
};

// The values coefficient * atom takes over the bounds of the one variable it reads.
std::optional<TermValues> term_values(const simplify::Domain& d, const simplify::Term& t, Var v, std::int64_t& base) {
  const Interval b = d.bounds(v);
  if (b.size() > k_max_term_values) return std::nullopt;
  std::vector<std::int64_t> vals[simplify::k_var_kinds];
  for (int k = 0; k < simplify::k_var_kinds; ++k) vals[k].assign(d.count(static_cast<VarKind>(k)), 0);
  TermValues out;
  out.values.reserve(static_cast<std::size_t>(b.size()));
  for (std::int64_t x = b.lo; x <= b.hi; ++x) {
    vals[static_cast<int>(v.kind)][v.index] = x;
    const std::int64_t a = t.atom.is_variable() ? x : simplify::evaluate(t.atom, {vals[0], vals[1], vals[2]});
    out.values.push_back(simplify::checked_mul(a, t.coefficient));
  }
  std::sort(out.values.begin(), out.values.end());
  out.values.erase(std::unique(out.values.begin(), out.values.end()), out.values.end());
  const std::int64_t low = out.values.front();
  for (std::int64_t& x : out.values) x -= low;
  base = simplify::checked_add(base, low);
  return out;
}

// sums := { s + t : s in sums, t in term }.
bool add_term(BitSet& sums, const TermValues& term) {
  const std::vector<std::int64_t>& t = term.values;
  if (t.size() == 1) return true;
  const std::int64_t step = t[1];
  bool progression = true;
  for (std::size_t k = 1; k < t.size() && progression; ++k) progression = t[k] == static_cast<std::int64_t>(k) * step;
  const BitSet first = sums;
  if (progression) {
    // Shifts by step * j, j < n, by doubling: A(2m) = A(m) | A(m) << step*m, A(m+1) = A(m) | first << step*m.
    const auto n = static_cast<std::uint64_t>(t.size());
    std::int64_t m = 1;
    for (auto bit = static_cast<int>(std::bit_width(n)) - 2; bit >= 0; --bit) {
      sums.or_shifted(sums, step * m);
      m *= 2;
      if ((n >> bit) & 1U) {
        sums.or_shifted(first, step * m);
        m += 1;
      }
    }
    return true;
  }
  if (static_cast<std::int64_t>(t.size()) * sums.words() > k_max_shift_work) return false;
  for (std::size_t k = 1; k < t.size(); ++k) sums.or_shifted(first, t[k]);
  return true;
}

}  // namespace

std::optional<Count> linear_image_count(const IndexingMap& map) {
  if (map.results().size() != 1 || !map.domain().constraints().empty() || map.domain().has_empty_bounds())
    return std::nullopt;
  const simplify::Domain& d = map.domain();
  // An outer floordiv or mod by a constant, then a sum of terms over distinct variables.
  const Expr& result = map.results()[0];
  const Expr::Kind outer = result.kind();
  const bool divided = outer == Expr::Kind::kFloorDiv || outer == Expr::Kind::kMod;
  const Expr& sum = divided ? result.operand() : result;
  std::vector<simplify::Term> terms;
  std::int64_t base = 0;
  simplify::decompose_linear(sum, terms, base);
  std::vector<Var> seen;
  std::vector<TermValues> values;
  std::int64_t span = 1;
  try {
    for (const simplify::Term& t : terms) {
      std::vector<Var> vars;
      simplify::for_each_variable(t.atom, [&vars](Var v) {
        if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
      });
      if (vars.size() != 1 || std::find(seen.begin(), seen.end(), vars[0]) != seen.end()) return std::nullopt;
      seen.push_back(vars[0]);
      std::optional<TermValues> v = term_values(d, t, vars[0], base);
      if (!v) return std::nullopt;
      span = simplify::checked_add(span, v->span() - 1);
      if (span > k_max_span) return std::nullopt;
      values.push_back(std::move(*v));
    }
  } catch (const simplify::ArithmeticOverflow&) {
    return std::nullopt;
  }
  BitSet sums(span);
  sums.set(0);
  for (const TermValues& t : values) {
    if (!add_term(sums, t)) return std::nullopt;
  }
  if (!divided) return Count::of(sums.count(), true);
  const std::int64_t k = result.divisor();
  if (outer == Expr::Kind::kMod && k > span) return Count::of(sums.count(), true);  // one remainder each
  try {
    if (outer == Expr::Kind::kFloorDiv) {
      std::int64_t n = 0, last = 0;
      sums.for_each([&](std::int64_t x) {
        const std::int64_t q = simplify::floor_div(simplify::checked_add(base, x), k);
        if (n == 0 || q != last) ++n;
        last = q;
      });
      return Count::of(n, true);
    }
    BitSet remainders(k);
    sums.for_each([&](std::int64_t x) { remainders.set(simplify::floor_mod(simplify::checked_add(base, x), k)); });
    return Count::of(remainders.count(), true);
  } catch (const simplify::ArithmeticOverflow&) {
    return std::nullopt;
  }
}

}  // namespace hlo_index::indexing
