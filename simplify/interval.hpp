// Closed integer intervals and the exact integer arithmetic the expression
// IR needs: floor division and floor modulo (XLA and isl round toward
// negative infinity), and overflow-checked +, * so a huge shape turns into
// an error instead of a silently wrong map.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace hlo_index::simplify {

/// Thrown when an expression's constants leave the int64 range.
class ArithmeticOverflow : public std::overflow_error {
public:
  using std::overflow_error::overflow_error;
};

/// Throws ArithmeticOverflow. Out of line, so that the checks below stay small enough to be
/// inlined into the loops that evaluate expressions at every point (heat maps, enumeration).
[[noreturn]] void throw_integer_overflow();

inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    throw_integer_overflow();
  return r;
}
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    throw_integer_overflow();
  return r;
}
inline std::int64_t checked_neg(std::int64_t a) { return checked_mul(a, -1); }

/// floor(a / b) for b != 0.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/// ceil(a / b) for b != 0.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}
/// a - b * floor(a / b): the sign of b, like XLA's and isl's mod.
inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

inline std::int64_t gcd(std::int64_t a, std::int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// Saturating arithmetic for range evaluation: ranges are bounds, and a
/// bound that saturates stays sound (it only gets wider).
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return r;
}
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return ((a < 0) != (b < 0)) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  return r;
}

/// The closed interval [lo, hi]; empty when lo > hi.
struct Interval {
  std::int64_t lo = 0;
  std::int64_t hi = -1;

  static Interval point(std::int64_t v) { return {v, v}; }

  bool empty() const { return lo > hi; }
  bool is_point() const { return lo == hi; }
  bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
  bool contains(const Interval& o) const { return o.empty() || (lo <= o.lo && o.hi <= hi); }
  /// Number of integers in the interval, saturating at INT64_MAX.
  std::int64_t size() const {
    if (empty()) return 0;
    std::int64_t d;
    if (__builtin_sub_overflow(hi, lo, &d)) return std::numeric_limits<std::int64_t>::max();
    return saturating_add(d, 1);
  }
  Interval intersect(const Interval& o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
  bool operator==(const Interval&) const = default;
};

inline Interval operator+(const Interval& a, const Interval& b) {
  return {saturating_add(a.lo, b.lo), saturating_add(a.hi, b.hi)};
}
inline Interval scale(const Interval& a, std::int64_t k) {
  std::int64_t x = saturating_mul(a.lo, k), y = saturating_mul(a.hi, k);
  return {std::min(x, y), std::max(x, y)};
}

inline std::string to_string(const Interval& i) {
  // Appends, not `"[" + ...`: GCC 12's -Wrestrict misfires on the latter.
  std::string out = "[";
  out.append(std::to_string(i.lo)).append(", ").append(std::to_string(i.hi)).append("]");
  return out;
}

}  // namespace hlo_index::simplify
