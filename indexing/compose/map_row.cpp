#include "indexing/compose/map_row.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hlo_index::indexing {

namespace {

const MapSet& empty_row_set() {
  static const MapSet none;
  return none;
}

// The first stored set at or past operand `j`.
template <typename Sets>
auto row_position(Sets& sets, std::size_t j) {
  return std::lower_bound(sets.begin(), sets.end(), j,
                          [](const auto& entry, std::size_t k) { return entry.first < k; });
}

}  // namespace

MapRow::MapRow(std::vector<MapSet> dense) : m_width(dense.size()) {
  for (std::size_t j = 0; j < dense.size(); ++j)
    if (!dense[j].empty()) m_sets.emplace_back(j, std::move(dense[j]));
  refresh_span();
}

void MapRow::refresh_span() {
  m_first = m_sets.empty() ? 0 : m_sets.front().first;
  m_end = m_sets.empty() ? 0 : m_sets.back().first + 1;
}

const MapSet& MapRow::operator[](std::size_t j) const {
  if (j < m_first || j >= m_end) return empty_row_set();
  // Most rows store every operand's set: then the operand is its own position.
  if (j < m_sets.size() && m_sets[j].first == j) return m_sets[j].second;
  const auto it = row_position(m_sets, j);
  return it != m_sets.end() && it->first == j ? it->second : empty_row_set();
}

const MapSet& MapRow::at(std::size_t j) const {
  if (j >= m_width)
    throw std::out_of_range("MapRow::at: operand " + std::to_string(j) + " of " + std::to_string(m_width));
  return (*this)[j];
}

void MapRow::set(std::size_t j, MapSet maps) {
  const auto it = row_position(m_sets, j);
  const bool present = it != m_sets.end() && it->first == j;
  if (maps.empty()) {
    if (present) m_sets.erase(it);
  } else if (present) {
    it->second = std::move(maps);
  } else {
    m_sets.emplace(it, j, std::move(maps));
  }
  refresh_span();
}

MapSet MapRow::take(std::size_t j) {
  const auto it = row_position(m_sets, j);
  if (it == m_sets.end() || it->first != j) return {};
  MapSet maps = std::move(it->second);
  m_sets.erase(it);
  refresh_span();
  return maps;
}

void MapRow::resize(std::size_t width) {
  m_width = width;
  m_sets.erase(row_position(m_sets, width), m_sets.end());
  refresh_span();
}

bool MapRow::operator==(const MapRow& other) const { return m_width == other.m_width && m_sets == other.m_sets; }

}  // namespace hlo_index::indexing
