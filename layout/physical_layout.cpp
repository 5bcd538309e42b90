#include "layout/physical_layout.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace hlo_index::layout {

namespace {

bool is_combined(std::int64_t tile_dim) { return tile_dim == hlo::k_combined_tile_dim || tile_dim == -1; }

std::int64_t checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) throw LayoutError("the buffer has more than 2^63 elements");
  return result;
}

std::int64_t product(const std::vector<std::int64_t>& sizes) {
  std::int64_t result = 1;
  for (std::int64_t s : sizes) result = checked_product(result, s);
  return result;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

std::string tile_text(const hlo::Tile& tile) {
  std::string text = "(";
  for (std::size_t i = 0; i < tile.dims.size(); ++i) {
    if (i > 0) text += ',';
    text += is_combined(tile.dims[i]) ? std::string("*") : std::to_string(tile.dims[i]);
  }
  return text + ")";
}

std::vector<std::int64_t> logical_sizes(const hlo::Shape& shape) {
  std::vector<std::int64_t> sizes(shape.dims);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (shape.dim_kinds[i] == hlo::DimKind::kUnbounded || sizes[i] < 0)
      throw LayoutError(fmt::format("dimension {} is unbounded ('?'): it has no size to lay out", i));
  return sizes;
}

std::vector<std::int64_t> checked_minor_to_major(const hlo::Shape& shape) {
  std::size_t rank = shape.rank();
  std::vector<std::int64_t> m2m;
  if (!shape.layout) {
    m2m.resize(rank);
    for (std::size_t i = 0; i < rank; ++i) m2m[i] = static_cast<std::int64_t>(rank - 1 - i);
    return m2m;
  }
  m2m = shape.layout->minor_to_major;
  if (m2m.size() != rank)
    throw LayoutError(fmt::format("minor_to_major has {} entries but the shape has rank {}", m2m.size(), rank));
  std::vector<bool> seen(rank, false);
  for (std::int64_t d : m2m) {
    if (d < 0 || static_cast<std::size_t>(d) >= rank || seen[static_cast<std::size_t>(d)])
      throw LayoutError("minor_to_major must be a permutation of the dimensions 0.." + std::to_string(rank - 1));
    seen[static_cast<std::size_t>(d)] = true;
  }
  return m2m;
}

// One tiling level: unit dimensions in front when the tile is longer than
// the shape, then one combine step per `*`, then the split.
void add_level(std::vector<LayoutStep>& steps, std::vector<std::int64_t>& sizes, const hlo::Tile& tile,
               std::size_t level) {
  std::vector<std::int64_t> entries = tile.dims;
  if (entries.empty()) throw LayoutError(fmt::format("tile {} is empty", level + 1));
  if (entries.size() > k_max_tile_entries)
    throw LayoutError(
        fmt::format("tile {} has {} entries; at most {} are laid out", level + 1, entries.size(), k_max_tile_entries));
  for (std::int64_t t : entries)
    if (t <= 0 && !is_combined(t))
      throw LayoutError(fmt::format("tile {} {} has size {}; sizes must be positive (or '*' to combine)", level + 1,
                                    tile_text(tile), t));
  if (entries.size() > sizes.size()) {
    std::size_t count = entries.size() - sizes.size();
    steps.push_back({LayoutStep::Kind::kPrependUnits, sizes, count, 0, {}, level});
    sizes.insert(sizes.begin(), count, 1);
  }
  std::size_t base = sizes.size() - entries.size();
  for (std::size_t j = 0; j < entries.size();) {
    if (!is_combined(entries[j])) {
      ++j;
      continue;
    }
    if (j + 1 == entries.size())
      throw LayoutError(fmt::format("tile {} {} ends in '*': there is no more-minor dimension to combine with",
                                    level + 1, tile_text(tile)));
    steps.push_back({LayoutStep::Kind::kCombine, sizes, 0, base + j, {}, level});
    sizes[base + j] = checked_product(sizes[base + j], sizes[base + j + 1]);
    sizes.erase(sizes.begin() + static_cast<long>(base + j + 1));
    entries.erase(entries.begin() + static_cast<long>(j));
  }
  steps.push_back({LayoutStep::Kind::kTile, sizes, 0, 0, entries, level});
  std::vector<std::int64_t> tiled(sizes.begin(), sizes.begin() + static_cast<long>(base));
  for (std::size_t i = 0; i < entries.size(); ++i) tiled.push_back(ceil_div(sizes[base + i], entries[i]));
  tiled.insert(tiled.end(), entries.begin(), entries.end());
  sizes = std::move(tiled);
  product(sizes);  // throws on overflow
}

}  // namespace

PhysicalLayout PhysicalLayout::of(const hlo::Shape& shape) {
  if (shape.is_tuple) throw std::invalid_argument("a tuple has no single layout");
  PhysicalLayout result;
  result.m_logical_dims = logical_sizes(shape);
  result.m_minor_to_major = checked_minor_to_major(shape);
  result.m_logical_elements = product(result.m_logical_dims);
  result.m_element_bits = hlo::element_type_bits(shape.type);
  if (shape.layout) {
    const hlo::Layout& layout = *shape.layout;
    for (const std::string& level : layout.dim_level_types)
      if (level.empty() || level[0] != 'D')
        throw LayoutError(fmt::format("dimension level type '{}' is sparse: it has no dense offset map", level));
    result.m_tiles = layout.tiles;
    if (layout.element_size_bits != 0) result.m_element_bits = layout.element_size_bits;
    if (layout.tail_padding_alignment < 1)
      throw LayoutError(fmt::format("tail padding alignment L({}) must be positive", layout.tail_padding_alignment));
    result.m_tail_alignment = layout.tail_padding_alignment;
    result.m_memory_space = layout.memory_space;
  }
  if (result.m_element_bits <= 0)
    throw LayoutError(fmt::format("{} elements have no width to lay out", hlo::element_type_name(shape.type)));

  if (result.m_tiles.size() > k_max_tiling_levels)
    throw LayoutError(fmt::format("the layout has {} tiling levels; at most {} are laid out", result.m_tiles.size(),
                                  k_max_tiling_levels));
  std::vector<std::int64_t> sizes;
  for (std::size_t d : result.physical_order()) sizes.push_back(result.m_logical_dims[d]);
  for (std::size_t level = 0; level < result.m_tiles.size(); ++level)
    add_level(result.m_steps, sizes, result.m_tiles[level], level);
  result.m_physical_dims = sizes;
  std::int64_t slots = product(sizes);
  std::int64_t aligned = checked_product(ceil_div(slots, result.m_tail_alignment), result.m_tail_alignment);
  result.m_allocated_elements = aligned;
  result.allocated_bytes();  // throws on overflow
  return result;
}

std::vector<std::size_t> PhysicalLayout::physical_order() const {
  std::vector<std::size_t> order;
  for (auto it = m_minor_to_major.rbegin(); it != m_minor_to_major.rend(); ++it)
    order.push_back(static_cast<std::size_t>(*it));
  return order;
}

std::int64_t PhysicalLayout::allocated_bytes() const {
  std::int64_t bits = checked_product(m_allocated_elements, m_element_bits);
  return ceil_div(bits, 8);
}

std::vector<Expr> PhysicalLayout::physical_index(const std::vector<Expr>& logical) const {
  if (logical.size() != m_logical_dims.size()) throw std::invalid_argument("index rank does not match the shape");
  std::vector<Expr> index;
  for (std::size_t d : physical_order()) index.push_back(logical[d]);
  for (const LayoutStep& step : m_steps) {
    switch (step.kind) {
      case LayoutStep::Kind::kPrependUnits: index.insert(index.begin(), step.count, Expr::constant(0)); break;
      case LayoutStep::Kind::kCombine: {
        std::size_t p = step.position;
        index[p] = index[p] * step.sizes[p + 1] + index[p + 1];
        index.erase(index.begin() + static_cast<long>(p + 1));
        break;
      }
      case LayoutStep::Kind::kTile: {
        std::size_t base = index.size() - step.tile.size();
        std::vector<Expr> tiled(index.begin(), index.begin() + static_cast<long>(base));
        for (std::size_t i = 0; i < step.tile.size(); ++i)
          tiled.push_back(simplify::floor_div(index[base + i], step.tile[i]));
        for (std::size_t i = 0; i < step.tile.size(); ++i)
          tiled.push_back(simplify::mod(index[base + i], step.tile[i]));
        index = std::move(tiled);
        break;
      }
    }
  }
  return index;
}

Expr PhysicalLayout::offset(const std::vector<Expr>& logical) const { return linearize(physical_index(logical)); }

Expr PhysicalLayout::linearize(const std::vector<Expr>& physical) const {
  if (physical.size() != m_physical_dims.size()) throw std::invalid_argument("index rank does not match the layout");
  Expr result = Expr::constant(0);
  std::int64_t stride = 1;
  for (std::size_t j = physical.size(); j-- > 0;) {
    result = result + physical[j] * stride;
    stride *= m_physical_dims[j];
  }
  return result;
}

PhysicalLayout::Inverse PhysicalLayout::logical_index(const Expr& offset) const {
  Inverse inverse;
  if (m_allocated_elements == 0) {
    // An array with a zero-size dimension has no slot to invert (the digits below would
    // divide by that zero): any index will do, the offsets' domain [0, -1] is empty.
    inverse.logical.assign(m_logical_dims.size(), Expr::constant(0));
    return inverse;
  }
  std::size_t n = m_physical_dims.size();
  std::vector<Expr> index(n);
  std::int64_t stride = 1;
  for (std::size_t j = n; j-- > 0;) {
    Expr digit = simplify::floor_div(offset, stride);
    index[j] = j == 0 ? digit : simplify::mod(digit, m_physical_dims[j]);
    stride *= m_physical_dims[j];
  }
  if (n > 0 && stride < m_allocated_elements)  // slots of the tail padding
    inverse.holds_element.push_back({index[0], {0, m_physical_dims[0] - 1}});
  if (n == 0 && m_allocated_elements > 1) inverse.holds_element.push_back({offset, {0, 0}});

  for (auto step = m_steps.rbegin(); step != m_steps.rend(); ++step) {
    switch (step->kind) {
      case LayoutStep::Kind::kTile: {
        std::size_t k = step->tile.size();
        std::size_t base = step->sizes.size() - k;
        std::vector<Expr> before(index.begin(), index.begin() + static_cast<long>(base));
        for (std::size_t i = 0; i < k; ++i) {
          Expr e = index[base + i] * step->tile[i] + index[base + k + i];
          if (step->sizes[base + i] % step->tile[i] != 0)  // the last tile along i is padded
            inverse.holds_element.push_back({e, {0, step->sizes[base + i] - 1}});
          before.push_back(e);
        }
        index = std::move(before);
        break;
      }
      case LayoutStep::Kind::kCombine: {
        std::size_t p = step->position;
        Expr combined = index[p];
        index[p] = simplify::floor_div(combined, step->sizes[p + 1]);
        index.insert(index.begin() + static_cast<long>(p + 1), simplify::mod(combined, step->sizes[p + 1]));
        break;
      }
      case LayoutStep::Kind::kPrependUnits:
        for (std::size_t i = 0; i < step->count; ++i)
          if (!index[i].is_constant(0)) inverse.holds_element.push_back({index[i], {0, 0}});
        index.erase(index.begin(), index.begin() + static_cast<long>(step->count));
        break;
    }
  }
  std::vector<std::size_t> order = physical_order();
  inverse.logical.resize(order.size());
  for (std::size_t j = 0; j < order.size(); ++j) inverse.logical[order[j]] = index[j];
  return inverse;
}

}  // namespace hlo_index::layout
