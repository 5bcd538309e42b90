// Shapes and layouts as HLO text writes them: f32[8,<=16,?]{2,1,0:T(8,128)(2,1)E(4)S(1)}.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hlo_index::hlo {

enum class ElementType : std::uint8_t {
  kPred,
  kS1,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU1,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF6E2M3FN,
  kF6E3M2FN,
  kF4E2M1FN,
  kC64,
  kC128,
  kToken,
  kOpaque,
};

/// The spelling HLO text uses ("bf16", "f8e4m3fn", ...).
std::string_view element_type_name(ElementType type);
/// Width of one element in bits (0 for token and opaque).
int element_type_bits(ElementType type);
/// Every element type with its name, for grammars and tests.
const std::vector<std::pair<std::string_view, ElementType>>& all_element_types();

/// How a dimension's size is known: `8`, `<=8` (bounded dynamic) or `?` (unbounded).
enum class DimKind : std::uint8_t { kStatic, kBounded, kUnbounded };

/// Marker for `*` (a combined dimension) inside a tile.
inline constexpr std::int64_t k_combined_tile_dim = std::numeric_limits<std::int64_t>::min();

struct Tile {
  std::vector<std::int64_t> dims;  // k_combined_tile_dim for '*'
  friend bool operator==(const Tile&, const Tile&) = default;
};

struct Layout {
  std::vector<std::int64_t> minor_to_major;
  std::vector<std::string> dim_level_types;  // D(...): "D", "C", "S", "H", with +/~ suffixes kept
  std::vector<Tile> tiles;                   // T(...)(...)
  std::int64_t tail_padding_alignment = 1;   // L(n), in elements
  std::optional<std::string> index_type;     // #(s32)
  std::optional<std::string> pointer_type;   // *(s64)
  std::int64_t element_size_bits = 0;        // E(n); 0 means the type's natural width
  std::int64_t memory_space = 0;             // S(n)
  std::vector<std::string> extra;            // SC(...), P(...), M(n): kept verbatim, in order
  friend bool operator==(const Layout&, const Layout&) = default;
};

/// An array, a tuple, or a buffer `b(f32[2,4])`: an array shape with
/// `is_buffer` set (the shape of the values CreateBuffer/Pin custom-calls
/// make). Everything that reads elements treats a buffer as its array.
struct Shape {
  bool is_tuple = false;
  bool is_buffer = false;                 // arrays only: written `b(array)`
  ElementType type = ElementType::kPred;  // arrays only
  std::vector<std::int64_t> dims;         // arrays only; -1 for an unbounded '?'
  std::vector<DimKind> dim_kinds;         // same length as dims
  std::optional<Layout> layout;           // arrays only; none when the text has none
  std::vector<Shape> elements;            // tuples only

  std::size_t rank() const { return dims.size(); }
  /// Product of the dimension sizes (bounds for dynamic dims); nullopt on overflow or '?'.
  std::optional<std::int64_t> element_count() const;
  friend bool operator==(const Shape&, const Shape&) = default;
};

/// Equal element types and dimensions, recursively; layouts are not compared.
bool same_ignoring_layout(const Shape& a, const Shape& b);

/// Whether `type` is a floating-point type (any width: f64 down to the f8, f6 and f4 types).
bool is_floating_point(ElementType type);

/// XLA's ShapeUtil::Compatible, what its verifier compares shapes with: equal
/// element types and dimensions, recursively through tuples. Layouts are not
/// compared, nor whether a dimension is dynamic: `f32[<=4]` is compatible with
/// `f32[4]`, and an unbounded `?` with any size.
bool compatible(const Shape& a, const Shape& b);
/// compatible(), floating-point types of different widths counting as equal
/// (XLA's CompatibleIgnoringFpPrecision): `bf16[4]` and `f32[4]`.
bool compatible_ignoring_fp_precision(const Shape& a, const Shape& b);

/// Canonical text of a shape or layout (the form XLA prints, no spaces; `b(...)` around a buffer's array).
std::string to_string(const Shape& shape);
std::string to_string(const Layout& layout);
/// to_string without the layouts (what messages about layout-blind comparisons print).
std::string to_string_without_layout(const Shape& shape);

}  // namespace hlo_index::hlo
