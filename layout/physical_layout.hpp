// Where the elements of an array live in its buffer: minor_to_major order,
// tiles (repeated, partial, with combined dimensions), tail padding and
// element width, as in the XLA documents on shapes, layouts and tiled layout.
//
// The physical order is built as a chain of steps on (sizes, index):
//   permute to major-to-minor order; then per tiling level
//   prepend unit dimensions if the tile has more entries than the shape,
//   combine each `*` dimension with the next more-minor one,
//   split the minor-most dimensions into (tile index, index in tile);
// the offset is the row-major linearisation of the final index. Every step
// is exact, so the offset and its inverse are exact index expressions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "parser/shape.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"

namespace hlo_index::layout {

using simplify::Constraint;
using simplify::Expr;

/// Every tiling level adds dimensions to the physical index and each step keeps
/// its sizes, so the work grows with levels times rank: real layouts have one to
/// three levels of two or three entries (T(8,128)(2,1)); these bounds refuse the
/// absurd ones (10^5 levels took gigabytes) with a LayoutError.
inline constexpr std::size_t k_max_tiling_levels = 16;
inline constexpr std::size_t k_max_tile_entries = 64;

/// A layout that cannot be laid out (not a permutation, a bad tile, an
/// unbounded dynamic dimension, a sparse dimension level, too many elements).
class LayoutError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// One step of the chain from the logical index to the physical one. `sizes`
/// is the shape the step applies to.
struct LayoutStep {
  enum class Kind { kPrependUnits, kCombine, kTile };
  Kind kind;
  std::vector<std::int64_t> sizes;
  std::size_t count = 0;           // kPrependUnits: how many unit dimensions
  std::size_t position = 0;        // kCombine: merges position and position + 1
  std::vector<std::int64_t> tile;  // kTile: sizes for the tile.size() minor-most dimensions
  std::size_t level = 0;           // the tiling level (0-based) the step belongs to
};

class PhysicalLayout {
public:
  /// The layout of an array shape (its own layout, or major-to-minor when it
  /// has none). Throws LayoutError, and std::invalid_argument for a tuple.
  static PhysicalLayout of(const hlo::Shape& array_shape);

  /// Dimension sizes, bounds for bounded dynamic dimensions.
  const std::vector<std::int64_t>& logical_dims() const { return m_logical_dims; }
  const std::vector<std::int64_t>& minor_to_major() const { return m_minor_to_major; }
  /// Logical dimensions from major to minor (the reverse of minor_to_major).
  std::vector<std::size_t> physical_order() const;
  const std::vector<hlo::Tile>& tiles() const { return m_tiles; }
  const std::vector<LayoutStep>& steps() const { return m_steps; }
  /// Sizes of the final physical index, major to minor; its row-major
  /// linearisation is the offset.
  const std::vector<std::int64_t>& physical_dims() const { return m_physical_dims; }

  std::int64_t logical_elements() const { return m_logical_elements; }
  /// Element slots of the buffer: tiles padded to whole tiles, the total
  /// rounded up to the tail-padding alignment L(n).
  std::int64_t allocated_elements() const { return m_allocated_elements; }
  std::int64_t tail_alignment() const { return m_tail_alignment; }
  /// E(n) when given, else the width of the element type; sub-byte elements
  /// are packed.
  std::int64_t element_bits() const { return m_element_bits; }
  std::int64_t allocated_bytes() const;
  std::int64_t memory_space() const { return m_memory_space; }
  bool has_tiles() const { return !m_tiles.empty(); }

  /// The final physical index of the element at `logical` (one expression
  /// per logical dimension), each entry within physical_dims().
  std::vector<Expr> physical_index(const std::vector<Expr>& logical) const;
  /// Linear element offset of the element at `logical`.
  Expr offset(const std::vector<Expr>& logical) const;
  /// The row-major linear index of a final physical index.
  Expr linearize(const std::vector<Expr>& physical) const;

  /// The element stored at `offset` (in [0, allocated_elements())): its
  /// logical index, and the conditions under which the slot holds an element
  /// rather than padding.
  struct Inverse {
    std::vector<Expr> logical;
    std::vector<Constraint> holds_element;
  };
  Inverse logical_index(const Expr& offset) const;

private:
  std::vector<std::int64_t> m_logical_dims;
  std::vector<std::int64_t> m_minor_to_major;
  std::vector<hlo::Tile> m_tiles;
  std::vector<LayoutStep> m_steps;
  std::vector<std::int64_t> m_physical_dims;
  std::int64_t m_logical_elements = 1;
  std::int64_t m_allocated_elements = 1;
  std::int64_t m_tail_alignment = 1;
  std::int64_t m_element_bits = 0;
  std::int64_t m_memory_space = 0;
};

}  // namespace hlo_index::layout
