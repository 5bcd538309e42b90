#include "indexing/cost/units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace hlo_index::cost {

namespace {

// Three significant digits, without trailing zeros after the point.
std::string three_digits(double value) {
  const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

}  // namespace

std::string human_bytes(std::int64_t bytes) {
  static constexpr const char* k_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  for (value /= 1024; value >= 1024 && unit + 1 < std::size(k_units); value /= 1024) ++unit;
  std::string number = fmt::format("{:.1f}", value);
  if (number.ends_with(".0")) number.resize(number.size() - 2);
  return number + " " + k_units[unit];
}

std::string human_bytes(double bytes) {
  if (!(bytes < 9.2e18)) return fmt::format("{:.3g} B", bytes);
  return human_bytes(static_cast<std::int64_t>(std::llround(bytes)));
}

std::string human_seconds(double seconds) {
  if (!(seconds > 0)) return "0 s";
  if (seconds >= 1) return three_digits(seconds) + " s";
  if (seconds >= 1e-3) return three_digits(seconds * 1e3) + " ms";
  if (seconds >= 1e-6) return three_digits(seconds * 1e6) + " us";
  return three_digits(seconds * 1e9) + " ns";
}

std::string human_count(double count) {
  static constexpr const char* k_units[] = {"k", "M", "G", "T", "P", "E", "Z"};
  if (!(count >= 1000)) return three_digits(std::max(0.0, count));
  std::size_t unit = 0;
  double value = count / 1000;
  for (; value >= 999.5 && unit + 1 < std::size(k_units); value /= 1000) ++unit;
  return three_digits(value) + " " + k_units[unit];
}

std::string plural(std::int64_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }
std::string plural(std::size_t n, std::string_view word) { return plural(static_cast<std::int64_t>(n), word); }

}  // namespace hlo_index::cost
