// Non-negative integers of 128 bits for counts and byte figures: a domain
// of int64 intervals can hold 2^64 points per variable, a buffer 2^63
// elements of 16 bytes, so a count past 2^63 is printed exactly rather than
// saturated. Past 2^128 the arithmetic throws ArithmeticOverflow: the figure
// is refused, never wrapped.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "simplify/interval.hpp"

namespace hlo_index::simplify {

__extension__ using Wide = unsigned __int128;

inline constexpr Wide k_wide_max = ~Wide{0};
inline constexpr Wide k_int64_max_wide = static_cast<Wide>(std::numeric_limits<std::int64_t>::max());

inline Wide wide_add(Wide a, Wide b) {
  Wide r;
  if (__builtin_add_overflow(a, b, &r)) throw ArithmeticOverflow("a count or byte figure past 2^128");
  return r;
}
inline Wide wide_mul(Wide a, Wide b) {
  Wide r;
  if (__builtin_mul_overflow(a, b, &r)) throw ArithmeticOverflow("a count or byte figure past 2^128");
  return r;
}

/// Integers of the interval (0 when empty): up to 2^64, exactly.
inline Wide wide_size(const Interval& i) {
  if (i.empty()) return 0;
  __extension__ using Signed = __int128;
  return static_cast<Wide>(static_cast<Signed>(i.hi) - static_cast<Signed>(i.lo) + 1);
}

/// The value as an int64, saturated at INT64_MAX.
inline std::int64_t saturated_int64(Wide v) {
  return v > k_int64_max_wide ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(v);
}

/// Bytes of `elements` elements of `bits` bits each, packed, rounded up to a whole byte.
inline Wide packed_bytes_wide(Wide elements, Wide bits) {
  const Wide total = wide_mul(elements, bits);
  return total / 8 + (total % 8 != 0 ? 1 : 0);
}

/// Decimal digits.
inline std::string to_string(Wide v) {
  if (v == 0) return "0";
  std::string digits;
  while (v != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return digits;
}

}  // namespace hlo_index::simplify
