// One row of an instruction's maps: one output's sets to each operand (or one
// output's sets from each operand). Sparse: only the sets put in are stored,
// since an output of an N-wide tuple reads one of its N operands and dense
// rows made an instruction's table N x N sets (1.2 GB for 5,000 elements).
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

class MapRow {
public:
  MapRow() = default;
  /// `width` operands (or outputs), none read.
  explicit MapRow(std::size_t width) : m_width(width) {}
  /// A dense row; its empty sets are not stored. Implicit: the per-op and
  /// composed maps come as one set per operand.
  MapRow(std::vector<MapSet> dense);  // NOLINT(google-explicit-constructor)

  /// Number of operands (or outputs) the row spans.
  std::size_t size() const { return m_width; }
  bool empty() const { return m_width == 0; }
  /// The set of operand `j`; empty when nothing was put there.
  const MapSet& operator[](std::size_t j) const;
  /// operator[] that throws std::out_of_range past the width.
  const MapSet& at(std::size_t j) const;
  /// Replaces the set of operand `j` (j < size()).
  void set(std::size_t j, MapSet maps);
  /// Moves the set of operand `j` out, leaving it empty.
  MapSet take(std::size_t j);
  /// Changes the width; sets at or past it are dropped.
  void resize(std::size_t width);

  /// The stored sets with their operand, by operand: what a loop over the
  /// operands that are read needs, without visiting the others.
  const std::vector<std::pair<std::size_t, MapSet>>& stored() const { return m_sets; }
  /// Applies `f` to every stored set in place.
  template <typename F>
  void for_each_stored(F&& f) {
    for (auto& [j, maps] : m_sets) f(j, maps);
  }

  /// Every operand's set in order, the empty ones included.
  class const_iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = MapSet;
    using difference_type = std::ptrdiff_t;
    using pointer = const MapSet*;
    using reference = const MapSet&;
    const_iterator() = default;
    const_iterator(const MapRow* row, std::size_t j) : m_row(row), m_j(j) {}
    reference operator*() const { return (*m_row)[m_j]; }
    pointer operator->() const { return &(*m_row)[m_j]; }
    const_iterator& operator++() {
      ++m_j;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++m_j;
      return before;
    }
    bool operator==(const const_iterator& other) const { return m_j == other.m_j; }

  private:
    const MapRow* m_row = nullptr;
    std::size_t m_j = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, m_width}; }

  /// Equal widths and equal sets operand by operand.
  bool operator==(const MapRow& other) const;

private:
  void refresh_span();

  std::size_t m_width = 0;
  // The operands from the first to the last stored set, kept beside the sets: a loop over one
  // operand's sets in every row of a wide tuple then skips the rows without touching their sets.
  std::size_t m_first = 0, m_end = 0;
  std::vector<std::pair<std::size_t, MapSet>> m_sets;  // by operand, each non-empty
};

}  // namespace hlo_index::indexing
