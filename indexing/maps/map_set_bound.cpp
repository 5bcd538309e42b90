#include "indexing/maps/map_set_bound.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "indexing/maps/map_builders.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

Interval hull(const Interval& a, const Interval& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// The bounding box of the defined maps of `maps` (all with `array.size()`
// results and one dimension count), or nothing when they do not qualify.
std::optional<IndexingMap> bounding_box(const std::vector<const IndexingMap*>& maps,
                                        const std::vector<std::int64_t>& array) {
  if (maps.empty()) return std::nullopt;
  const std::size_t dims = maps.front()->dim_count();
  std::vector<Interval> dim_hull(dims);
  std::vector<Interval> read(array.size());
  for (const IndexingMap* m : maps) {
    if (m->dim_count() != dims || m->results().size() != array.size() || m->has_replica_id()) return std::nullopt;
    const auto& vars = m->domain().variables(VarKind::kDim);
    for (std::size_t k = 0; k < dims; ++k) dim_hull[k] = hull(dim_hull[k], vars[k].bounds);
    // Constraints only narrow what a map reads: the variable intervals bound it.
    const simplify::RangeEvaluator range(m->domain(), true);
    for (std::size_t j = 0; j < array.size(); ++j) read[j] = hull(read[j], range(m->results()[j]));
  }
  std::vector<Variable> range_vars;
  range_vars.reserve(array.size());
  for (std::size_t j = 0; j < array.size(); ++j) {
    const Interval whole{0, array[j] - 1};
    Interval box = read[j].intersect(whole);
    if (box.empty()) box = whole;  // nothing in bounds: keep the bound trivially sound
    range_vars.push_back(Variable{box, {}});
  }
  std::vector<Variable> dim_vars;
  dim_vars.reserve(dim_hull.size());
  for (const Interval& i : dim_hull) dim_vars.push_back(Variable{i, {}});
  IndexingMap box(Domain(std::move(dim_vars), std::move(range_vars), {}), build::ranges(array.size()));
  box.mark_approximate("more maps than the set bound: their bounding box");
  return box;
}

bool counts(const IndexingMap& m) { return m.is_defined(); }

// Sets that grow multiplicatively: maps under a branch selector's condition,
// or approximate ones (bounded boxes and whole-element reads compose into more).
bool growing(const MapSet& set) {
  return std::any_of(set.begin(), set.end(), [](const IndexingMap& m) {
    return m.approximate() || std::any_of(m.runtime_sources().begin(), m.runtime_sources().end(),
                                          [](const RuntimeSource& s) { return s.branch_selector; });
  });
}

// The cap that applies to `set`.
std::size_t cap_for(const MapSet& set, std::size_t cap) {
  return growing(set) ? cap : std::max(cap, k_max_maps_per_exact_array);
}

}  // namespace

void bound_maps(MapSet& set, const std::vector<std::int64_t>& array, std::size_t cap) {
  if (static_cast<std::size_t>(std::count_if(set.begin(), set.end(), counts)) <= cap) return;
  cap = cap_for(set, cap);
  if (static_cast<std::size_t>(std::count_if(set.begin(), set.end(), counts)) <= cap) return;
  std::vector<const IndexingMap*> defined;
  defined.reserve(set.size());
  for (const IndexingMap& m : set)
    if (m.is_defined()) defined.push_back(&m);
  std::optional<IndexingMap> box = bounding_box(defined, array);
  if (!box) return;
  MapSet out;
  for (IndexingMap& m : set)
    if (m.is_undefined()) out.push_back(std::move(m));
  out.push_back(std::move(*box));
  set = std::move(out);
}

void bound_tuple_maps(MapSet& set, const std::vector<std::vector<std::int64_t>>& elements, std::size_t cap) {
  if (static_cast<std::size_t>(std::count_if(set.begin(), set.end(), counts)) <= cap) return;
  // The defined maps of each element, in the order the elements first occur.
  std::map<std::size_t, std::vector<std::size_t>> by_element;
  for (std::size_t k = 0; k < set.size(); ++k) {
    const IndexingMap& m = set[k];
    if (!m.is_defined()) continue;
    if (m.results().empty() || m.results().front().kind() != Expr::Kind::kConstant) return;
    const std::int64_t e = m.results().front().constant_value();
    if (e < 0 || static_cast<std::size_t>(e) >= elements.size()) return;
    by_element[static_cast<std::size_t>(e)].push_back(k);
  }
  std::vector<char> dropped(set.size(), 0);
  std::map<std::size_t, IndexingMap> replacement;  // position of a group's first map -> its box
  for (const auto& [element, members] : by_element) {
    if (members.size() <= cap) continue;
    MapSet group;
    for (std::size_t k : members) group.push_back(set[k]);
    if (members.size() <= cap_for(group, cap)) continue;
    std::vector<IndexingMap> rest;
    rest.reserve(members.size());
    for (std::size_t k : members) {
      IndexingMap m = set[k];
      m.results().erase(m.results().begin());
      rest.push_back(std::move(m));
    }
    std::vector<const IndexingMap*> pointers;
    pointers.reserve(rest.size());
    for (const IndexingMap& m : rest) pointers.push_back(&m);
    std::optional<IndexingMap> box = bounding_box(pointers, elements[element]);
    if (!box) continue;
    box->results().insert(box->results().begin(), Expr::constant(static_cast<std::int64_t>(element)));
    for (std::size_t k : members) dropped[k] = 1;
    replacement.emplace(members.front(), std::move(*box));
  }
  MapSet out;
  for (std::size_t k = 0; k < set.size(); ++k) {
    if (auto it = replacement.find(k); it != replacement.end()) out.push_back(std::move(it->second));
    if (dropped[k] == 0) out.push_back(std::move(set[k]));
  }
  set = std::move(out);
}

}  // namespace hlo_index::indexing
