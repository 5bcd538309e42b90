#include "indexing/verdicts/fusion_matching.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace hlo_index::analysis {

namespace {

using Counts = std::map<std::string, int>;

Counts counts_of(const std::vector<std::string>& ops) {
  Counts c;
  for (const std::string& op : ops) ++c[op];
  return c;
}

bool within(const Counts& part, const Counts& whole) {
  return std::all_of(part.begin(), part.end(), [&whole](const auto& kv) {
    auto it = whole.find(kv.first);
    return it != whole.end() && it->second >= kv.second;
  });
}

// Subsets of `candidates` (indices into `parts`) whose counts add up to `whole`, searched
// smallest first, with a bound on the work: the first found, or none.
class SubsetSearch {
public:
  SubsetSearch(const Counts& whole, const std::vector<Counts>& parts, const std::vector<std::size_t>& candidates)
      : m_whole(whole), m_parts(parts), m_candidates(candidates) {}

  std::optional<std::vector<std::size_t>> find() {
    for (std::size_t size = 2; size <= m_candidates.size(); ++size) {
      m_chosen.clear();
      Counts left = m_whole;
      if (search(0, size, left)) return m_chosen;
      if (m_steps > k_max_steps) break;
    }
    return std::nullopt;
  }

private:
  static constexpr std::size_t k_max_steps = 20000;

  bool search(std::size_t from, std::size_t size, Counts& left) {
    if (m_chosen.size() == size) {
      return std::all_of(left.begin(), left.end(), [](const auto& kv) { return kv.second == 0; });
    }
    for (std::size_t k = from; k < m_candidates.size(); ++k) {
      if (++m_steps > k_max_steps) return false;
      const Counts& part = m_parts[m_candidates[k]];
      if (!within(part, left)) continue;
      for (const auto& [op, n] : part) left[op] -= n;
      m_chosen.push_back(m_candidates[k]);
      if (search(k + 1, size, left)) return true;
      m_chosen.pop_back();
      for (const auto& [op, n] : part) left[op] += n;
    }
    return false;
  }

  const Counts& m_whole;
  const std::vector<Counts>& m_parts;
  const std::vector<std::size_t>& m_candidates;
  std::vector<std::size_t> m_chosen;
  std::size_t m_steps = 0;
};

// One direction: each free `wholes` entry against free `parts` entries.
std::vector<std::pair<std::size_t, std::vector<std::size_t>>> regroup(
    const std::vector<std::vector<std::string>>& wholes, const std::vector<std::vector<std::string>>& parts,
    const std::vector<std::size_t>& whole_free, std::vector<bool>& part_taken) {
  constexpr std::size_t k_max_candidates = 32;
  // Only parts free now can become candidates (taking one only ever marks it taken).
  std::vector<Counts> part_counts(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (!part_taken[p]) part_counts[p] = counts_of(parts[p]);
  }
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> out;
  for (const std::size_t w : whole_free) {
    if (wholes[w].size() < 2) continue;  // one op cannot be split
    const Counts whole = counts_of(wholes[w]);
    std::vector<std::size_t> candidates;
    for (std::size_t p = 0; p < parts.size() && candidates.size() < k_max_candidates; ++p) {
      if (!part_taken[p] && !parts[p].empty() && parts[p].size() < wholes[w].size() && within(part_counts[p], whole))
        candidates.push_back(p);
    }
    if (candidates.size() < 2) continue;
    SubsetSearch search(whole, part_counts, candidates);
    if (auto chosen = search.find()) {
      for (const std::size_t p : *chosen) part_taken[p] = true;
      out.emplace_back(w, std::move(*chosen));
    }
  }
  return out;
}

}  // namespace

std::vector<Regrouping> match_regroupings(const std::vector<std::vector<std::string>>& old_ops,
                                          const std::vector<std::vector<std::string>>& new_ops,
                                          const std::vector<std::size_t>& old_free,
                                          const std::vector<std::size_t>& new_free) {
  std::vector<bool> new_taken(new_ops.size(), true), old_taken(old_ops.size(), true);
  for (const std::size_t n : new_free) new_taken[n] = false;
  for (const std::size_t o : old_free) old_taken[o] = false;
  std::vector<Regrouping> out;
  for (auto& [o, parts] : regroup(old_ops, new_ops, old_free, new_taken)) {
    old_taken[o] = true;
    out.push_back(Regrouping{{o}, std::move(parts)});
  }
  std::vector<std::size_t> still_new;
  for (const std::size_t n : new_free) {
    if (!new_taken[n]) still_new.push_back(n);
  }
  for (auto& [n, parts] : regroup(new_ops, old_ops, still_new, old_taken)) {
    out.push_back(Regrouping{std::move(parts), {n}});
  }
  return out;
}

}  // namespace hlo_index::analysis
