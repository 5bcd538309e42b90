// Unified diffs (Myers' linear-space algorithm) and the --expect/--update
// check of a command's output against a golden file.
#include "app/golden_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "app/exit_codes.hpp"

namespace hlo_index::app {
namespace {

// The lines of `text`, each with its '\n' (the last one may lack it), so that a
// last line with and one without a newline differ, as in diff.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Which lines of two sequences (of line ids) a shortest edit script removes
// and adds. Myers' algorithm, "An O(ND) Difference Algorithm and Its
// Variations" (1986), section 4b: find the middle snake of a shortest path by
// searching from both ends at once, then solve the two halves.
class Differ {
public:
  Differ(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, const TextDiffOptions& options)
      : m_a(a),
        m_b(b),
        m_max_exact_edits(static_cast<std::ptrdiff_t>(std::max<std::size_t>(options.max_exact_edits, 1))),
        m_budget(options.max_steps),
        m_removed(a.size(), false),
        m_added(b.size(), false) {
    compare(0, m_a.size(), 0, m_b.size());
  }

  const std::vector<bool>& removed() const { return m_removed; }
  const std::vector<bool>& added() const { return m_added; }

private:
  using Point = std::pair<std::size_t, std::size_t>;

  void replace(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    for (std::size_t i = a0; i < a1; ++i) m_removed[i] = true;
    for (std::size_t j = b0; j < b1; ++j) m_added[j] = true;
  }

  void compare(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    while (a0 < a1 && b0 < b1 && m_a[a0] == m_b[b0]) ++a0, ++b0;
    while (a0 < a1 && b0 < b1 && m_a[a1 - 1] == m_b[b1 - 1]) --a1, --b1;
    if (a0 == a1 || b0 == b1) return replace(a0, a1, b0, b1);
    auto split = middle_snake(a0, a1, b0, b1);
    // No split (budget spent, or nothing in common) or one that would not shrink the problem.
    if (!split || (split->first == a0 && split->second == b0) || (split->first == a1 && split->second == b1))
      return replace(a0, a1, b0, b1);
    compare(a0, split->first, b0, split->second);
    compare(split->first, a1, split->second, b1);
  }

  // A point (a0 + x, b0 + y) on a shortest path from (a0, b0) to (a1, b1), where
  // the forward search meets the backward one after d edits each. forward[k] is
  // the furthest x reached with d edits on diagonal k = x - y, backward[k] the
  // same from the end (on the reversed sequences); -1: not reached. After
  // m_max_exact_edits edits without meeting, the furthest point either search
  // reached. nullopt: the sequences have nothing in common, or the step budget
  // ran out.
  std::optional<Point> middle_snake(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    Search s = start_search(a0, a1, b0, b1);
    Point met;
    for (std::ptrdiff_t d = 0; d < s.limit; ++d) {
      Step step = forward_step(s, d, met);
      if (step == Step::kGoOn) step = backward_step(s, d, met);
      if (step == Step::kMet) return met;
      if (step == Step::kOutOfBudget) return std::nullopt;
      if (d + 1 == m_max_exact_edits) return furthest(s, d);
    }
    return std::nullopt;
  }

  // One middle-snake search over [a0, a1) x [b0, b1).
  struct Search {
    std::size_t a0 = 0, b0 = 0;
    std::ptrdiff_t n = 0, m = 0, delta = 0, limit = 0, offset = 0;
    bool odd = false;  // the forward search detects the overlap
    // Diagonals that ran off the edit graph are not searched again.
    std::ptrdiff_t k1_start = 0, k1_end = 0, k2_start = 0, k2_end = 0;
  };
  // A round of one search: go on, the searches met, or the step budget ran out.
  enum class Step { kGoOn, kMet, kOutOfBudget };

  Search start_search(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    Search s;
    s.a0 = a0;
    s.b0 = b0;
    s.n = static_cast<std::ptrdiff_t>(a1 - a0);
    s.m = static_cast<std::ptrdiff_t>(b1 - b0);
    const std::ptrdiff_t max_d = (s.n + s.m + 1) / 2;
    // Diagonals -limit - 1 .. limit + 1: all the search can reach, as d < limit.
    s.limit = std::min(max_d, m_max_exact_edits);
    s.offset = s.limit + 1;
    const auto length = static_cast<std::size_t>(2 * s.limit + 3);
    if (m_forward.size() < length) m_forward.resize(length), m_backward.resize(length);
    std::fill_n(m_forward.begin(), length, -1);
    std::fill_n(m_backward.begin(), length, -1);
    front(m_forward, s, 1) = 0;
    front(m_backward, s, 1) = 0;
    s.delta = s.n - s.m;
    s.odd = (s.delta % 2) != 0;
    return s;
  }

  static std::ptrdiff_t& front(std::vector<std::ptrdiff_t>& v, const Search& s, std::ptrdiff_t k) {
    return v[static_cast<std::size_t>(s.offset + k)];
  }
  std::uint32_t a(const Search& s, std::ptrdiff_t x) const { return m_a[s.a0 + static_cast<std::size_t>(x)]; }
  std::uint32_t b(const Search& s, std::ptrdiff_t y) const { return m_b[s.b0 + static_cast<std::size_t>(y)]; }
  static Point point(const Search& s, std::ptrdiff_t x, std::ptrdiff_t y) {
    return {s.a0 + static_cast<std::size_t>(x), s.b0 + static_cast<std::size_t>(y)};
  }

  // forward[k] is the furthest x reached with d edits on diagonal k = x - y.
  Step forward_step(Search& s, std::ptrdiff_t d, Point& met) {
    for (std::ptrdiff_t k1 = -d + s.k1_start; k1 <= d - s.k1_end; k1 += 2) {
      std::ptrdiff_t x1 = (k1 == -d || (k1 != d && front(m_forward, s, k1 - 1) < front(m_forward, s, k1 + 1)))
                              ? front(m_forward, s, k1 + 1)
                              : front(m_forward, s, k1 - 1) + 1;
      std::ptrdiff_t y1 = x1 - k1;
      if (!spend(1)) return Step::kOutOfBudget;
      const std::ptrdiff_t x_start = x1;
      while (x1 < s.n && y1 < s.m && a(s, x1) == b(s, y1)) ++x1, ++y1;
      if (!spend(static_cast<std::uint64_t>(x1 - x_start))) return Step::kOutOfBudget;
      front(m_forward, s, k1) = x1;
      if (x1 > s.n) {
        s.k1_end += 2;
      } else if (y1 > s.m) {
        s.k1_start += 2;
      } else if (s.odd) {
        const std::ptrdiff_t k2 = s.delta - k1;
        if (k2 >= -s.limit - 1 && k2 <= s.limit + 1 && front(m_backward, s, k2) != -1 &&
            x1 >= s.n - front(m_backward, s, k2)) {
          met = point(s, x1, y1);
          return Step::kMet;
        }
      }
    }
    return Step::kGoOn;
  }

  // backward[k]: the same from the end, on the reversed sequences.
  Step backward_step(Search& s, std::ptrdiff_t d, Point& met) {
    for (std::ptrdiff_t k2 = -d + s.k2_start; k2 <= d - s.k2_end; k2 += 2) {
      std::ptrdiff_t x2 = (k2 == -d || (k2 != d && front(m_backward, s, k2 - 1) < front(m_backward, s, k2 + 1)))
                              ? front(m_backward, s, k2 + 1)
                              : front(m_backward, s, k2 - 1) + 1;
      std::ptrdiff_t y2 = x2 - k2;
      if (!spend(1)) return Step::kOutOfBudget;
      const std::ptrdiff_t x_start = x2;
      while (x2 < s.n && y2 < s.m && a(s, s.n - x2 - 1) == b(s, s.m - y2 - 1)) ++x2, ++y2;
      if (!spend(static_cast<std::uint64_t>(x2 - x_start))) return Step::kOutOfBudget;
      front(m_backward, s, k2) = x2;
      if (x2 > s.n) {
        s.k2_end += 2;
      } else if (y2 > s.m) {
        s.k2_start += 2;
      } else if (!s.odd) {
        const std::ptrdiff_t k1 = s.delta - k2;
        if (k1 >= -s.limit - 1 && k1 <= s.limit + 1 && front(m_forward, s, k1) != -1) {
          const std::ptrdiff_t x1 = front(m_forward, s, k1), y1 = x1 - k1;
          if (x1 >= s.n - x2) {
            met = point(s, x1, y1);
            return Step::kMet;
          }
        }
      }
    }
    return Step::kGoOn;
  }

  // Too costly: split where either search got furthest (x + y from its end).
  std::optional<Point> furthest(Search& s, std::ptrdiff_t d) {
    std::ptrdiff_t best = -1, best_x = 0, best_y = 0;
    for (std::ptrdiff_t k = -d + s.k1_start; k <= d - s.k1_end; k += 2) {
      const std::ptrdiff_t x = front(m_forward, s, k), y = x - k;
      if (x <= s.n && y >= 0 && y <= s.m && x + y > best) best = x + y, best_x = x, best_y = y;
    }
    for (std::ptrdiff_t k = -d + s.k2_start; k <= d - s.k2_end; k += 2) {
      const std::ptrdiff_t x = front(m_backward, s, k), y = x - k;
      if (x <= s.n && y >= 0 && y <= s.m && x + y > best) best = x + y, best_x = s.n - x, best_y = s.m - y;
    }
    if (best >= 0) return point(s, best_x, best_y);
    return std::nullopt;
  }

  bool spend(std::uint64_t steps) {
    if (steps > m_budget) {
      m_budget = 0;
      return false;
    }
    m_budget -= steps;
    return true;
  }

  const std::vector<std::uint32_t>& m_a;
  const std::vector<std::uint32_t>& m_b;
  std::ptrdiff_t m_max_exact_edits;
  std::uint64_t m_budget;
  std::vector<std::ptrdiff_t> m_forward, m_backward;  // the searches' fronts, reused
  std::vector<bool> m_removed, m_added;
};

// A run of changed lines: [a0, a1) of the old text replaced by [b0, b1) of the new one.
struct Change {
  std::size_t a0, a1, b0, b1;
};

std::vector<Change> changes(const std::vector<bool>& removed, const std::vector<bool>& added) {
  std::vector<Change> out;
  std::size_t i = 0, j = 0;
  const std::size_t n = removed.size(), m = added.size();
  while (i < n || j < m) {
    if (i < n && j < m && !removed[i] && !added[j]) {
      ++i, ++j;
      continue;
    }
    Change c{i, i, j, j};
    while (i < n && removed[i]) ++i;
    while (j < m && added[j]) ++j;
    // Both texts have as many unchanged lines; should one run out first, the rest is changed.
    if (i == c.a0 && j == c.b0) i = n, j = m;
    c.a1 = i;
    c.b1 = j;
    out.push_back(c);
  }
  return out;
}

// `3,7`, `3` for one line, `2,0` for none (the line before the empty range).
std::string range(std::size_t start, std::size_t count) {
  if (count == 0) return fmt::format("{},0", start);
  if (count == 1) return fmt::format("{}", start + 1);
  return fmt::format("{},{}", start + 1, count);
}

void line(std::string& out, char prefix, std::string_view text) {
  out += prefix;
  out += text;
  if (text.empty() || text.back() != '\n') out += "\n\\ No newline at end of file\n";
}

// The bytes of the file `path`, or nullopt if it cannot be read (or is a directory).
std::optional<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();  // sets failbit on buffer for an empty file, which is fine
  if (in.bad()) return std::nullopt;
  return std::move(buffer).str();
}

}  // namespace

std::string unified_diff(std::string_view old_text, std::string_view new_text, const TextDiffOptions& options) {
  if (old_text == new_text) return {};
  const std::vector<std::string_view> a_lines = split_lines(old_text), b_lines = split_lines(new_text);
  // Lines as small integers: the search compares ids, not text.
  std::unordered_map<std::string_view, std::uint32_t> ids;
  auto to_ids = [&ids](const std::vector<std::string_view>& lines) {
    std::vector<std::uint32_t> out;
    out.reserve(lines.size());
    for (std::string_view l : lines)
      out.push_back(ids.emplace(l, static_cast<std::uint32_t>(ids.size())).first->second);
    return out;
  };
  const std::vector<std::uint32_t> a = to_ids(a_lines), b = to_ids(b_lines);
  const Differ differ(a, b, options);
  const std::vector<Change> all = changes(differ.removed(), differ.added());

  std::string out = fmt::format("--- {}\n+++ {}\n", options.old_label, options.new_label);
  const std::size_t context = options.context;
  for (std::size_t first = 0; first < all.size();) {
    // A hunk: the changes up to the first one more than 2·context unchanged lines after the previous.
    std::size_t last = first;
    while (last + 1 < all.size() && all[last + 1].a0 - all[last].a1 <= 2 * context) ++last;
    const std::size_t before = std::min(context, all[first].a0);
    const std::size_t after = std::min(context, a.size() - all[last].a1);
    const std::size_t a_start = all[first].a0 - before, b_start = all[first].b0 - before;
    fmt::format_to(std::back_inserter(out), "@@ -{} +{} @@\n", range(a_start, all[last].a1 + after - a_start),
                   range(b_start, all[last].b1 + after - b_start));
    std::size_t i = a_start;
    for (std::size_t k = first; k <= last; ++k) {
      const Change& c = all[k];
      for (; i < c.a0; ++i) line(out, ' ', a_lines[i]);
      for (std::size_t r = c.a0; r < c.a1; ++r) line(out, '-', a_lines[r]);
      for (std::size_t s = c.b0; s < c.b1; ++s) line(out, '+', b_lines[s]);
      i = c.a1;
    }
    for (; i < all[last].a1 + after; ++i) line(out, ' ', a_lines[i]);
    first = last + 1;
  }
  return out;
}

int check_golden_file(const std::string& golden, std::string_view actual, bool update, std::ostream& out,
                      std::ostream& err) {
  std::optional<std::string> expected;
  std::error_code ec;
  if (std::filesystem::exists(golden, ec)) {
    expected = read_file(golden);
    if (!expected) {
      err << fmt::format("hlo-index: error: cannot read golden file '{}'\n", golden);
      return k_exit_input_error;
    }
  }
  if (expected && *expected == actual) return k_exit_ok;
  if (update) {
    std::ofstream file(golden, std::ios::binary | std::ios::trunc);
    file.write(actual.data(), static_cast<std::streamsize>(actual.size()));
    file.close();
    if (!file) {
      err << fmt::format("hlo-index: error: cannot write golden file '{}': {}\n", golden, std::strerror(errno));
      return k_exit_input_error;
    }
    err << fmt::format("hlo-index: {} {}\n", expected ? "updated" : "created", golden);
    return k_exit_ok;
  }
  if (!expected) {
    err << fmt::format("hlo-index: error: golden file '{}' does not exist (run with --update to create it)\n", golden);
    return k_exit_input_error;
  }
  TextDiffOptions diff;
  diff.old_label = golden;
  diff.new_label = "actual";
  out << unified_diff(*expected, actual, diff);
  err << fmt::format("hlo-index: the output differs from {} (run with --update to accept it)\n", golden);
  return k_exit_golden_differs;
}

}  // namespace hlo_index::app
