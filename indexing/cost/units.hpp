// Figures as people read them: bytes in binary units (KiB, MiB, ...), times
// in s, ms, us or ns, FLOPs and rates in decimal units (k, M, G, T, P). One
// form everywhere the commands print a figure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hlo_index::cost {

/// `512 B`, `1.5 KiB`, `56 TiB`.
std::string human_bytes(std::int64_t bytes);
std::string human_bytes(double bytes);
/// `0 s`, `830 ns`, `12.4 us`, `3.07 ms`, `1.25 s`: three significant digits.
std::string human_seconds(double seconds);
/// `0`, `950`, `1.2 k`, `3.4 G`, `12.1 T`: three significant digits, no unit name.
std::string human_count(double count);
/// `1 fusion`, `3 fusions`: a count and a word made plural with an s.
std::string plural(std::int64_t n, std::string_view word);
std::string plural(std::size_t n, std::string_view word);

}  // namespace hlo_index::cost
