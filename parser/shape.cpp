#include "parser/shape.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hlo_index::hlo {

const std::vector<std::pair<std::string_view, ElementType>>& all_element_types() {
  static const std::vector<std::pair<std::string_view, ElementType>> types = {
      {"pred", ElementType::kPred},
      {"s1", ElementType::kS1},
      {"s2", ElementType::kS2},
      {"s4", ElementType::kS4},
      {"s8", ElementType::kS8},
      {"s16", ElementType::kS16},
      {"s32", ElementType::kS32},
      {"s64", ElementType::kS64},
      {"u1", ElementType::kU1},
      {"u2", ElementType::kU2},
      {"u4", ElementType::kU4},
      {"u8", ElementType::kU8},
      {"u16", ElementType::kU16},
      {"u32", ElementType::kU32},
      {"u64", ElementType::kU64},
      {"f16", ElementType::kF16},
      {"bf16", ElementType::kBF16},
      {"f32", ElementType::kF32},
      {"f64", ElementType::kF64},
      {"f8e5m2", ElementType::kF8E5M2},
      {"f8e4m3", ElementType::kF8E4M3},
      {"f8e4m3fn", ElementType::kF8E4M3FN},
      {"f8e4m3b11fnuz", ElementType::kF8E4M3B11FNUZ},
      {"f8e5m2fnuz", ElementType::kF8E5M2FNUZ},
      {"f8e4m3fnuz", ElementType::kF8E4M3FNUZ},
      {"f8e3m4", ElementType::kF8E3M4},
      {"f8e8m0fnu", ElementType::kF8E8M0FNU},
      {"f6e2m3fn", ElementType::kF6E2M3FN},
      {"f6e3m2fn", ElementType::kF6E3M2FN},
      {"f4e2m1fn", ElementType::kF4E2M1FN},
      {"c64", ElementType::kC64},
      {"c128", ElementType::kC128},
      {"token", ElementType::kToken},
      {"opaque", ElementType::kOpaque},
  };
  return types;
}

std::string_view element_type_name(ElementType type) {
  for (const auto& [name, t] : all_element_types())
    if (t == type) return name;
  return "?";
}

int element_type_bits(ElementType type) {
  switch (type) {
    case ElementType::kPred: return 8;
    case ElementType::kS1:
    case ElementType::kU1: return 1;
    case ElementType::kS2:
    case ElementType::kU2: return 2;
    case ElementType::kS4:
    case ElementType::kU4:
    case ElementType::kF4E2M1FN: return 4;
    case ElementType::kF6E2M3FN:
    case ElementType::kF6E3M2FN: return 6;
    case ElementType::kS8:
    case ElementType::kU8:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E3M4:
    case ElementType::kF8E8M0FNU: return 8;
    case ElementType::kS16:
    case ElementType::kU16:
    case ElementType::kF16:
    case ElementType::kBF16: return 16;
    case ElementType::kS32:
    case ElementType::kU32:
    case ElementType::kF32: return 32;
    case ElementType::kS64:
    case ElementType::kU64:
    case ElementType::kF64:
    case ElementType::kC64: return 64;
    case ElementType::kC128: return 128;
    case ElementType::kToken:
    case ElementType::kOpaque: return 0;
  }
  return 0;
}

std::optional<std::int64_t> Shape::element_count() const {
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d) return std::nullopt;
    count *= d;
  }
  return count;
}

bool same_ignoring_layout(const Shape& a, const Shape& b) {
  if (a.is_tuple != b.is_tuple) return false;
  if (a.is_tuple)
    return std::equal(a.elements.begin(), a.elements.end(), b.elements.begin(), b.elements.end(), same_ignoring_layout);
  return a.is_buffer == b.is_buffer && a.type == b.type && a.dims == b.dims && a.dim_kinds == b.dim_kinds;
}

bool is_floating_point(ElementType type) {
  switch (type) {
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E3M4:
    case ElementType::kF8E8M0FNU:
    case ElementType::kF6E2M3FN:
    case ElementType::kF6E3M2FN:
    case ElementType::kF4E2M1FN: return true;
    default: return false;
  }
}

namespace {

bool compatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  if (a.is_tuple != b.is_tuple) return false;
  if (a.is_tuple) {
    if (a.elements.size() != b.elements.size()) return false;
    for (std::size_t k = 0; k < a.elements.size(); ++k)
      if (!compatible(a.elements[k], b.elements[k], ignore_fp_precision)) return false;
    return true;
  }
  const bool same_type =
      a.type == b.type || (ignore_fp_precision && is_floating_point(a.type) && is_floating_point(b.type));
  if (!same_type || a.is_buffer != b.is_buffer || a.rank() != b.rank()) return false;
  for (std::size_t d = 0; d < a.rank(); ++d)
    if (a.dims[d] != b.dims[d] && a.dim_kinds[d] != DimKind::kUnbounded && b.dim_kinds[d] != DimKind::kUnbounded)
      return false;
  return true;
}

}  // namespace

bool compatible(const Shape& a, const Shape& b) { return compatible(a, b, false); }

bool compatible_ignoring_fp_precision(const Shape& a, const Shape& b) { return compatible(a, b, true); }

std::string to_string_without_layout(const Shape& shape) {
  if (shape.is_tuple) {
    std::string out = "(";
    for (std::size_t i = 0; i < shape.elements.size(); ++i)
      out += (i ? ", " : "") + to_string_without_layout(shape.elements[i]);
    return out + ")";
  }
  if (!shape.layout) return to_string(shape);
  Shape bare = shape;
  bare.layout.reset();
  return to_string(bare);
}

std::string to_string(const Layout& layout) {
  std::string out = fmt::format("{{{}", fmt::join(layout.minor_to_major, ","));
  std::string extras;
  if (!layout.dim_level_types.empty()) extras += fmt::format("D({})", fmt::join(layout.dim_level_types, ","));
  if (!layout.tiles.empty()) {
    extras += "T";
    for (const Tile& tile : layout.tiles) {
      extras += "(";
      for (std::size_t i = 0; i < tile.dims.size(); ++i) {
        if (i) extras += ",";
        if (tile.dims[i] == k_combined_tile_dim)
          extras += "*";
        else
          extras += fmt::format("{}", tile.dims[i]);
      }
      extras += ")";
    }
  }
  if (layout.tail_padding_alignment != 1) extras += fmt::format("L({})", layout.tail_padding_alignment);
  if (layout.index_type) extras += fmt::format("#({})", *layout.index_type);
  if (layout.pointer_type) extras += fmt::format("*({})", *layout.pointer_type);
  if (layout.element_size_bits != 0) extras += fmt::format("E({})", layout.element_size_bits);
  if (layout.memory_space != 0) extras += fmt::format("S({})", layout.memory_space);
  for (const std::string& e : layout.extra) extras += e;
  if (!extras.empty()) fmt::format_to(std::back_inserter(out), ":{}", extras);
  return out + "}";
}

std::string to_string(const Shape& shape) {
  if (shape.is_tuple) {
    std::string out = "(";
    for (std::size_t i = 0; i < shape.elements.size(); ++i) {
      if (i) out += ", ";
      out += to_string(shape.elements[i]);
    }
    return out + ")";
  }
  std::string out = shape.is_buffer ? "b(" : "";
  out += element_type_name(shape.type);
  out += "[";
  for (std::size_t i = 0; i < shape.dims.size(); ++i) {
    if (i) out += ",";
    switch (shape.dim_kinds[i]) {
      case DimKind::kStatic: out += std::to_string(shape.dims[i]); break;
      case DimKind::kBounded: out += fmt::format("<={}", shape.dims[i]); break;
      case DimKind::kUnbounded: out += "?"; break;
    }
  }
  out += "]";
  if (shape.layout) out += to_string(*shape.layout);
  if (shape.is_buffer) out += ")";
  return out;
}

}  // namespace hlo_index::hlo
