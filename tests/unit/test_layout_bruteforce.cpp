// Brute-force tests of physical layouts (layout/physical_layout) and their
// indexing maps (indexing/maps/layout_maps). On a few hundred deterministic random
// small layouts, every element's offset is computed by a direct, independent
// implementation of the tiled-layout formula (XLA's docs/tiled_layout.md,
// restated in xla-indexing-notes.md §6.4), and compared with
// logical_to_physical; every slot of the buffer is then run through
// physical_to_logical, which must give the element stored there or exclude
// the slot as padding. A few dozen cases are also checked exactly with isl.
//
// The direct formula, on integer vectors in physical (major-to-minor) order:
//   linear(e, d)            = e_n*d_{n-1}*...*d_1 + ... + e_2*d_1 + e_1
//   tile(e, d, t)           = ((e_prefix ‖ ⌊e'/t'⌋ ‖ e' mod t'),
//                              (d_prefix ‖ ⌈d'/t'⌉ ‖ t'))
// where t covers the minor-most t.size() dimensions (unit dimensions are
// prepended when it is longer), e'/d'/t' are those dimensions after every `*`
// entry merged its dimension into the next more-minor one, and
//   linear_with_tiles(e, d, t¹ t² ...) = linear_with_tiles(tile(e, d, t¹), t² ...)
// with linear_with_tiles(e, d) = linear(e, d). The buffer holds prod(d_final)
// slots rounded up to a multiple of L(n).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "indexing/maps/count.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/indexing_map.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/layout_maps.hpp"
#include "indexing/maps/map_printer.hpp"
#include "layout/physical_layout.hpp"
#include "parser/parse.hpp"
#include "parser/shape.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_layout_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using layout::LayoutError;
using layout::PhysicalLayout;

namespace {

using Ints = std::vector<std::int64_t>;

using test::Rng;

std::string join(const Ints& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

std::int64_t product(const Ints& v) {
  std::int64_t p = 1;
  for (std::int64_t x : v) p *= x;
  return p;
}

// ---------------------------------------------------------------------------
// The direct implementation of the document's formula.

bool is_star(std::int64_t t) { return t == hlo::k_combined_tile_dim || t == -1; }

/// An index e into an array of bounds d, both major to minor.
struct Indexed {
  Ints e;
  Ints d;
};

std::int64_t linear_index(const Ints& e, const Ints& d) {
  std::int64_t r = 0;
  for (std::size_t i = 0; i < e.size(); ++i) r = r * d[i] + e[i];
  return r;
}

/// One tiling level: the tile covers the minor-most t.size() dimensions.
Indexed tile_once(Indexed x, const Ints& t) {
  while (x.d.size() < t.size()) {  // a tile longer than the shape: unit dimensions in front
    x.d.insert(x.d.begin(), 1);
    x.e.insert(x.e.begin(), 0);
  }
  std::size_t base = x.d.size() - t.size();
  // Each size entry with the run of `*` entries just before it (more major)
  // is one combined dimension: bounds multiply, indices linearise.
  Ints ge, gd, gt;
  std::int64_t e = 0, d = 1;
  for (std::size_t j = 0; j < t.size(); ++j) {
    e = e * x.d[base + j] + x.e[base + j];
    d *= x.d[base + j];
    if (!is_star(t[j])) {
      ge.push_back(e);
      gd.push_back(d);
      gt.push_back(t[j]);
      e = 0;
      d = 1;
    }
  }
  Indexed out{Ints(x.e.begin(), x.e.begin() + static_cast<long>(base)),
              Ints(x.d.begin(), x.d.begin() + static_cast<long>(base))};
  for (std::size_t i = 0; i < gt.size(); ++i) {
    out.e.push_back(ge[i] / gt[i]);
    out.d.push_back((gd[i] + gt[i] - 1) / gt[i]);
  }
  for (std::size_t i = 0; i < gt.size(); ++i) {
    out.e.push_back(ge[i] % gt[i]);
    out.d.push_back(gt[i]);
  }
  return out;
}

Indexed apply_tiles(const Indexed& x, const std::vector<Ints>& tiles, std::size_t level = 0) {
  if (level == tiles.size()) return x;
  return apply_tiles(tile_once(x, tiles[level]), tiles, level + 1);
}

std::int64_t linear_index_with_tiles(const Indexed& x, const std::vector<Ints>& tiles) {
  Indexed final_index = apply_tiles(x, tiles);
  return linear_index(final_index.e, final_index.d);
}

/// A layout as the generator makes it, with the text it is written as.
struct Case {
  Ints dims;
  Ints minor_to_major;
  std::vector<Ints> tiles;
  std::int64_t align = 1;
  bool has_layout = true;

  std::size_t rank() const { return dims.size(); }

  Indexed physical(const Ints& logical) const {
    Indexed x;
    for (std::size_t j = rank(); j-- > 0;) {
      x.e.push_back(logical[static_cast<std::size_t>(minor_to_major[j])]);
      x.d.push_back(dims[static_cast<std::size_t>(minor_to_major[j])]);
    }
    return x;
  }
  std::int64_t offset(const Ints& logical) const { return linear_index_with_tiles(physical(logical), tiles); }
  Ints final_bounds() const { return apply_tiles(physical(Ints(rank(), 0)), tiles).d; }
  std::int64_t allocated() const {
    std::int64_t slots = product(final_bounds());
    return (slots + align - 1) / align * align;
  }

  hlo::Shape shape() const {
    hlo::Shape s;
    s.type = hlo::ElementType::kF32;
    s.dims = dims;
    s.dim_kinds.assign(dims.size(), hlo::DimKind::kStatic);
    if (has_layout) {
      hlo::Layout l;
      l.minor_to_major = minor_to_major;
      for (const Ints& t : tiles) l.tiles.push_back({t});
      l.tail_padding_alignment = align;
      s.layout = l;
    }
    return s;
  }

  std::string text() const {
    std::string s = "f32[";
    s.append(join(dims)).append("]");
    if (!has_layout) return s;
    s.append("{").append(join(minor_to_major));
    if (!tiles.empty() || align != 1) s += ":";
    if (!tiles.empty()) s += "T";
    for (const Ints& t : tiles) {
      s += "(";
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (i > 0) s += ',';
        s.append(t[i] == hlo::k_combined_tile_dim ? std::string("*") : std::to_string(t[i]));
      }
      s += ")";
    }
    if (align != 1) s.append("L(").append(std::to_string(align)).append(")");
    return s + "}";
  }
};

Case make_case(Ints dims, Ints minor_to_major, std::vector<Ints> tiles = {}, std::int64_t align = 1) {
  Case c;
  c.dims = std::move(dims);
  c.minor_to_major = std::move(minor_to_major);
  c.tiles = std::move(tiles);
  c.align = align;
  return c;
}

constexpr std::int64_t k_star = hlo::k_combined_tile_dim;
// Buffers larger than this are drawn again (keeps the enumeration fast).
constexpr std::int64_t k_max_allocated = 6000;

Case random_case(Rng& r) {
  for (;;) {
    Case c;
    std::size_t rank = static_cast<std::size_t>(r.uniform(0, 4));
    for (std::size_t i = 0; i < rank; ++i) c.dims.push_back(r.uniform(1, 7));
    for (std::size_t i = 0; i < rank; ++i) c.minor_to_major.push_back(static_cast<std::int64_t>(i));
    for (std::size_t i = rank; i > 1; --i)
      std::swap(c.minor_to_major[i - 1],
                c.minor_to_major[static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(i) - 1))]);
    std::int64_t w = r.uniform(0, 99);
    int levels = w < 20 ? 0 : w < 55 ? 1 : w < 85 ? 2 : 3;
    std::int64_t current_rank = static_cast<std::int64_t>(rank);
    for (int level = 0; level < levels; ++level) {
      std::int64_t k = r.uniform(1, std::min<std::int64_t>(current_rank, 4) + 1);
      Ints t;
      std::int64_t stars = 0;
      for (std::int64_t j = 0; j < k; ++j) {
        if (j + 1 < k && r.chance(20)) {
          t.push_back(r.chance(50) ? k_star : -1);
          ++stars;
        } else {
          t.push_back(r.uniform(1, 5));
        }
      }
      c.tiles.push_back(t);
      current_rank = std::max(current_rank, k) - stars + (k - stars);
    }
    if (r.chance(25)) c.align = r.uniform(2, 8);
    c.has_layout = !c.tiles.empty() || c.align != 1 || r.chance(80);
    if (!c.has_layout)
      for (std::size_t i = 0; i < rank; ++i) c.minor_to_major[i] = static_cast<std::int64_t>(rank - 1 - i);
    if (c.allocated() <= k_max_allocated) return c;
  }
}

// ---------------------------------------------------------------------------
// Evaluating maps.

simplify::VarValues values_of(const Ints& dims) { return {dims, {}, {}}; }

bool in_domain(const IndexingMap& m, const Ints& dims) {
  const auto& vars = m.domain().variables(simplify::VarKind::kDim);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!vars[i].bounds.contains(dims[i])) return false;
  for (const simplify::Constraint& c : m.domain().constraints())
    if (!c.interval.contains(simplify::evaluate(c.expr, values_of(dims)))) return false;
  return true;
}

Ints evaluate_results(const IndexingMap& m, const Ints& dims) {
  Ints out;
  for (const simplify::Expr& e : m.results()) out.push_back(simplify::evaluate(e, values_of(dims)));
  return out;
}

/// Logical indices of an array, row-major.
std::vector<Ints> all_elements(const Ints& dims) {
  std::vector<Ints> out;
  Ints index(dims.size(), 0);
  for (;;) {
    out.push_back(index);
    std::size_t i = dims.size();
    while (i > 0 && ++index[i - 1] == dims[i - 1]) index[--i] = 0;
    if (i == 0) return out;
  }
}

/// Collects the first few failures of a case (and counts them all), so that a
/// wrong layout prints a handful of precise lines instead of thousands.
class Failures {
public:
  void add(const std::string& message) {
    if (m_count++ < 6) m_messages += "\n  " + message;
  }
  bool empty() const { return m_count == 0; }
  std::string text() const { return std::to_string(m_count) + " failure(s):" + m_messages; }

private:
  std::size_t m_count = 0;
  std::string m_messages;
};

bool is_simple_map(const IndexingMap& m, std::size_t dims, std::size_t results) {
  return m.is_defined() && m.dim_count() == dims && m.range_count() == 0 && m.runtime_count() == 0 &&
         m.results().size() == results;
}

/// Checks 1-3 of the file comment on one layout: the direct offsets against
/// logical_to_physical, injectivity and the buffer size, and every slot
/// against physical_to_logical.
void check_against_direct(const Case& c) {
  INFO("layout " << c.text());
  PhysicalLayout layout;
  REQUIRE_NOTHROW(layout = PhysicalLayout::of(c.shape()));
  std::int64_t allocated = c.allocated();
  CHECK(layout.logical_elements() == product(c.dims));
  CHECK(layout.allocated_elements() == allocated);
  CHECK(layout.physical_dims() == c.final_bounds());
  REQUIRE(layout.allocated_elements() == allocated);

  IndexingMap to_physical = indexing::logical_to_physical(layout);
  IndexingMap to_logical = indexing::physical_to_logical(layout);
  INFO("logical_to_physical: " << indexing::print_map(to_physical));
  INFO("physical_to_logical: " << indexing::print_map(to_logical));
  REQUIRE(is_simple_map(to_physical, c.rank(), 1));
  REQUIRE(is_simple_map(to_logical, 1, c.rank()));

  Failures failures;
  std::vector<Ints> elements = all_elements(c.dims);
  std::vector<std::int64_t> owner(static_cast<std::size_t>(allocated), -1);  // element number per slot
  for (std::size_t n = 0; n < elements.size(); ++n) {
    const Ints& e = elements[n];
    std::int64_t expected = c.offset(e);
    if (expected < 0 || expected >= allocated) {
      failures.add("direct offset of (" + join(e) + ") is " + std::to_string(expected) + ", outside the buffer");
      continue;
    }
    std::int64_t& slot = owner[static_cast<std::size_t>(expected)];
    if (slot != -1)
      failures.add("direct offsets of (" + join(elements[static_cast<std::size_t>(slot)]) + ") and (" + join(e) +
                   ") are both " + std::to_string(expected));
    slot = static_cast<std::int64_t>(n);
    if (!in_domain(to_physical, e)) failures.add("element (" + join(e) + ") is outside logical_to_physical's domain");
    std::int64_t actual = evaluate_results(to_physical, e)[0];
    if (actual != expected)
      failures.add("element (" + join(e) + "): offset expected " + std::to_string(expected) + ", map gives " +
                   std::to_string(actual));
  }

  std::int64_t held = 0;
  for (std::int64_t offset = 0; offset < allocated; ++offset) {
    std::int64_t n = owner[static_cast<std::size_t>(offset)];
    Ints at{offset};
    if (!in_domain(to_logical, at)) {
      if (n != -1)
        failures.add("slot " + std::to_string(offset) + " holds (" + join(elements[static_cast<std::size_t>(n)]) +
                     ") but is outside physical_to_logical's domain");
      continue;
    }
    ++held;
    Ints actual = evaluate_results(to_logical, at);
    if (n == -1)
      failures.add("slot " + std::to_string(offset) + " is padding but physical_to_logical gives (" + join(actual) +
                   ")");
    else if (actual != elements[static_cast<std::size_t>(n)])
      failures.add("slot " + std::to_string(offset) + ": element expected (" +
                   join(elements[static_cast<std::size_t>(n)]) + "), map gives (" + join(actual) + ")");
  }
  if (held != layout.logical_elements())
    failures.add(std::to_string(held) + " slots are in physical_to_logical's domain, expected " +
                 std::to_string(layout.logical_elements()));

  INFO(failures.text());
  CHECK(failures.empty());
}

/// Check 4: exact counts and equalities with isl, and the isl inverse of
/// logical_to_physical evaluated at every slot.
/// Sets the isl operation limit of this thread for a scope.
class IslLimit {
public:
  explicit IslLimit(unsigned long limit) : m_saved(indexing::IslContext::get().operation_limit()) {
    indexing::IslContext::get().set_operation_limit(limit);
  }
  ~IslLimit() { indexing::IslContext::get().set_operation_limit(m_saved); }
  IslLimit(const IslLimit&) = delete;
  IslLimit& operator=(const IslLimit&) = delete;

private:
  unsigned long m_saved;
};

/// Returns false when the inverse hit the isl budget (and was not checked).
bool check_with_isl(const Case& c) {
  INFO("layout " << c.text());
  PhysicalLayout layout = PhysicalLayout::of(c.shape());
  IndexingMap to_physical = indexing::logical_to_physical(layout, true);
  IndexingMap to_physical_raw = indexing::logical_to_physical(layout, false);
  IndexingMap to_logical = indexing::physical_to_logical(layout, true);
  IndexingMap to_logical_raw = indexing::physical_to_logical(layout, false);
  INFO("logical_to_physical: " << indexing::print_map(to_physical));
  INFO("  unsimplified: " << indexing::print_map(to_physical_raw));
  INFO("physical_to_logical: " << indexing::print_map(to_logical));
  INFO("  unsimplified: " << indexing::print_map(to_logical_raw));
  std::int64_t elements = layout.logical_elements();

  indexing::Count image = indexing::count_image(to_physical);
  CHECK(image.exact);
  CHECK(image.value == elements);
  indexing::Count domain = indexing::count_domain(to_logical);
  CHECK(domain.exact);
  CHECK(domain.value == elements);
  indexing::Count logical_image = indexing::count_image(to_logical);
  CHECK(logical_image.exact);
  CHECK(logical_image.value == elements);

  CHECK(indexing::are_equal(to_physical, to_physical_raw) == std::optional<bool>(true));
  CHECK(indexing::are_equal(to_logical, to_logical_raw) == std::optional<bool>(true));

  // The isl inverse of logical_to_physical: at each slot, the pieces that
  // hold it must all give the element stored there, and no piece may hold a
  // padding slot.
  // The inverse of a tiled layout often splits into dozens of pieces (one per
  // residue class) and can take the default budget's ~10 s of isl time; a
  // smaller budget keeps the suite fast and skips those few cases.
  std::vector<IndexingMap> pieces;
  {
    IslLimit limit(50'000);
    pieces = indexing::inverse(to_physical);
  }
  std::string text;
  for (const IndexingMap& p : pieces) text += "\n  " + indexing::print_map(p);
  INFO("inverse pieces:" << text);
  REQUIRE_FALSE(pieces.empty());
  for (const IndexingMap& p : pieces) {
    if (p.approximate()) return false;  // the isl budget ran out: nothing exact to check
    REQUIRE(is_simple_map(p, 1, c.rank()));
  }
  Failures failures;
  for (std::int64_t offset = 0; offset < layout.allocated_elements(); ++offset) {
    Ints at{offset};
    bool expect_element = false;
    Ints expected;
    if (in_domain(to_logical, at)) {
      expect_element = true;
      expected = evaluate_results(to_logical, at);
    }
    std::size_t holding = 0;
    for (const IndexingMap& p : pieces) {
      if (!in_domain(p, at)) continue;
      ++holding;
      Ints actual = evaluate_results(p, at);
      if (!expect_element)
        failures.add("slot " + std::to_string(offset) + " is padding but the inverse gives (" + join(actual) + ")");
      else if (actual != expected)
        failures.add("slot " + std::to_string(offset) + ": inverse gives (" + join(actual) + "), expected (" +
                     join(expected) + ")");
    }
    if (expect_element && holding == 0)
      failures.add("slot " + std::to_string(offset) + " holds (" + join(expected) + ") but no inverse piece has it");
  }
  INFO(failures.text());
  CHECK(failures.empty());
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------

TEST_CASE("the direct formula reproduces the tiled-layout document's examples", "[layout][bruteforce]") {
  // F32[3,5]{1,0:T(2,2)}: element (2,3) has tile index (1,1), in-tile (0,1).
  Case figure1 = make_case({3, 5}, {1, 0}, {{2, 2}});
  CHECK(figure1.offset({2, 3}) == 17);
  CHECK(figure1.allocated() == 24);
  // bf16[16,256]{1,0:T(8,128)(2,1)}, element (9,130).
  Case repeated = make_case({16, 256}, {1, 0}, {{8, 128}, {2, 1}});
  CHECK(repeated.final_bounds() == Ints{2, 2, 4, 128, 2, 1});
  CHECK(repeated.offset({9, 130}) == 3077);
  // F32[2,7,8,11,10]{4,3,2,1,0} combined to [112,110], then tiled by (2,3).
  Case combined = make_case({2, 7, 8, 11, 10}, {4, 3, 2, 1, 0}, {{k_star, k_star, 2, k_star, 3}});
  CHECK(combined.final_bounds() == Ints{56, 37, 2, 3});
  CHECK(combined.offset({1, 6, 7, 10, 9}) == linear_index({111 / 2, 109 / 3, 111 % 2, 109 % 3}, {56, 37, 2, 3}));

  SECTION("and the library agrees on every element") {
    check_against_direct(figure1);
    check_against_direct(make_case({16, 16}, {1, 0}, {{8, 8}, {2, 1}}));
    check_against_direct(combined);
    check_against_direct(make_case({2, 3, 10}, {2, 1, 0}, {{2, k_star, 4}}));
    check_against_direct(make_case({3, 5}, {0, 1}, {{2, 2}}, 7));
  }
}

TEST_CASE("random layouts: offsets, buffer size and inverse match the direct formula", "[layout][bruteforce]") {
  constexpr int k_cases = 300;
  int tiled = 0, repeated = 0, combined = 0, prepended = 0, aligned = 0, no_layout = 0;
  for (int i = 0; i < k_cases; ++i) {
    Rng r(0x1a70u + static_cast<std::uint64_t>(i) * 1000003u);
    Case c = random_case(r);
    INFO("case " << i);
    check_against_direct(c);
    // The text form describes the same layout (round trip through the parser).
    std::string error;
    std::optional<hlo::Shape> parsed = parser::parse_shape(c.text(), &error);
    INFO("layout " << c.text() << ", parse error: " << error);
    INFO("parsed: " << (parsed ? hlo::to_string(*parsed) : std::string("-")));
    CHECK((parsed && *parsed == c.shape()));

    tiled += !c.tiles.empty();
    repeated += c.tiles.size() > 1;
    aligned += c.align != 1;
    no_layout += !c.has_layout;
    bool star = false, longer = false;
    std::size_t rank = c.rank();
    for (const Ints& t : c.tiles) {
      std::size_t stars = 0;
      for (std::int64_t d : t) stars += is_star(d) ? 1 : 0;
      star = star || stars > 0;
      longer = longer || t.size() > rank;
      rank = std::max(rank, t.size()) - stars + (t.size() - stars);
    }
    combined += star;
    prepended += longer;
  }
  // The generator covers every feature.
  CHECK(tiled > k_cases / 2);
  CHECK(repeated > k_cases / 5);
  CHECK(combined > k_cases / 10);
  CHECK(prepended > k_cases / 10);
  CHECK(aligned > k_cases / 10);
  CHECK(no_layout > 0);
}

TEST_CASE("random layouts: isl counts, simplified equals unsimplified, isl inverse", "[layout][bruteforce]") {
  constexpr int k_cases = 30;
  int inverses_checked = 0;
  for (int i = 0; i < k_cases; ++i) {
    Rng r(0x15e1u + static_cast<std::uint64_t>(i) * 7919u);
    Case c = random_case(r);
    INFO("case " << i);
    inverses_checked += check_with_isl(c) ? 1 : 0;
  }
  INFO("inverses checked: " << inverses_checked);
  CHECK(inverses_checked > k_cases / 2);
}

TEST_CASE("invalid layouts throw LayoutError", "[layout][bruteforce]") {
  auto shape = [](Ints dims, Ints m2m, std::vector<Ints> tiles = {}, std::int64_t align = 1) {
    Case c = make_case(std::move(dims), std::move(m2m), std::move(tiles), align);
    return c.shape();
  };
  auto throws = [](const hlo::Shape& s) {
    INFO("shape " << hlo::to_string(s));
    CHECK_THROWS_AS(PhysicalLayout::of(s), LayoutError);
  };
  SECTION("minor_to_major is not a permutation") {
    throws(shape({3, 5}, {0, 0}));
    throws(shape({3, 5}, {1, 1}));
    throws(shape({3, 5}, {2, 0}));
    throws(shape({3, 5}, {-1, 0}));
    throws(shape({3, 5, 2}, {0, 2, 0}));
  }
  SECTION("minor_to_major has the wrong length") {
    throws(shape({3, 5}, {0}));
    throws(shape({3, 5}, {2, 1, 0}));
    throws(shape({4}, {}));
    throws(shape({}, {0}));
  }
  SECTION("a tile entry is 0 or negative other than -1") {
    throws(shape({3, 5}, {1, 0}, {{0, 2}}));
    throws(shape({3, 5}, {1, 0}, {{2, 0}}));
    throws(shape({3, 5}, {1, 0}, {{-2, 2}}));
    throws(shape({3, 5}, {1, 0}, {{2, -2}}));
    throws(shape({3, 5}, {1, 0}, {{2, 2}, {1, 0}}));
    throws(shape({3, 5}, {1, 0}, {{4}, {-3}}));
  }
  SECTION("a tile ends in '*'") {
    throws(shape({3, 5}, {1, 0}, {{2, k_star}}));
    throws(shape({3, 5}, {1, 0}, {{2, -1}}));
    throws(shape({3, 5}, {1, 0}, {{k_star}}));
    throws(shape({3, 5}, {1, 0}, {{k_star, k_star}}));
    throws(shape({3, 5}, {1, 0}, {{2, 2}, {4, k_star}}));
    throws(shape({}, {}, {{k_star}}));
  }
  SECTION("a dimension is unbounded") {
    hlo::Shape s = shape({-1, 3}, {1, 0});
    s.dim_kinds[0] = hlo::DimKind::kUnbounded;
    throws(s);
    s.layout.reset();
    throws(s);
    std::optional<hlo::Shape> parsed = parser::parse_shape("f32[?,3]{1,0}");
    REQUIRE(parsed);
    throws(*parsed);
    parsed = parser::parse_shape("f32[2,?]{0,1:T(2,2)}");
    REQUIRE(parsed);
    throws(*parsed);
  }
  SECTION("L(0)") {
    throws(shape({3, 5}, {1, 0}, {}, 0));
    throws(shape({3, 5}, {1, 0}, {{2, 2}}, 0));
    throws(shape({3, 5}, {1, 0}, {}, -4));
  }
  SECTION("valid spellings are accepted") {
    // -1 is '*' when it is not the last entry; a tile longer than the shape
    // and a rank-0 shape with a tile are valid.
    CHECK_NOTHROW(PhysicalLayout::of(shape({3, 5}, {1, 0}, {{-1, 2}})));
    CHECK_NOTHROW(PhysicalLayout::of(shape({3}, {0}, {{2, 2, 2}})));
    CHECK_NOTHROW(PhysicalLayout::of(shape({}, {}, {{4}}, 8)));
    std::optional<hlo::Shape> parsed = parser::parse_shape("f32[3,5]{1,0:T(2,2)}");
    REQUIRE(parsed);
    CHECK_NOTHROW(PhysicalLayout::of(*parsed));
  }
}

TEST_CASE("random layouts broken in one place throw LayoutError", "[layout][bruteforce]") {
  for (int i = 0; i < 200; ++i) {
    Rng r(0xbadu + static_cast<std::uint64_t>(i) * 104729u);
    Case c = random_case(r);
    c.has_layout = true;
    hlo::Shape s = c.shape();
    hlo::Layout& l = *s.layout;
    std::string what;
    // Pick a mutation that applies to this case.
    for (bool done = false; !done;) {
      switch (r.uniform(0, 5)) {
        case 0:  // a repeated entry in minor_to_major
          if (l.minor_to_major.size() >= 2) {
            std::size_t a = static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(c.rank()) - 1));
            std::size_t b = (a + 1) % c.rank();
            l.minor_to_major[a] = l.minor_to_major[b];
            what = "repeated minor_to_major entry";
            done = true;
          }
          break;
        case 1:  // an entry dropped or added
          if (!l.minor_to_major.empty() && r.chance(50))
            l.minor_to_major.pop_back();
          else
            l.minor_to_major.push_back(static_cast<std::int64_t>(c.rank()));
          what = "minor_to_major of the wrong length";
          done = true;
          break;
        case 2:  // a tile entry 0 or -2
          if (!l.tiles.empty()) {
            hlo::Tile& t =
                l.tiles[static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(l.tiles.size()) - 1))];
            t.dims[static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(t.dims.size()) - 1))] =
                r.chance(50) ? 0 : -2;
            what = "tile entry 0 or -2";
            done = true;
          }
          break;
        case 3:  // a tile ending in '*'
          if (!l.tiles.empty()) {
            hlo::Tile& t =
                l.tiles[static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(l.tiles.size()) - 1))];
            t.dims.back() = r.chance(50) ? k_star : -1;
            what = "tile ending in '*'";
            done = true;
          }
          break;
        case 4:  // an unbounded dimension
          if (c.rank() > 0) {
            std::size_t d = static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(c.rank()) - 1));
            s.dims[d] = -1;
            s.dim_kinds[d] = hlo::DimKind::kUnbounded;
            what = "unbounded dimension";
            done = true;
          }
          break;
        default:
          l.tail_padding_alignment = r.chance(50) ? 0 : -r.uniform(1, 8);
          what = "L(0) or negative";
          done = true;
          break;
      }
    }
    INFO("case " << i << ": " << c.text() << " with " << what);
    CHECK_THROWS_AS(PhysicalLayout::of(s), LayoutError);
  }
}

}  // namespace test_layout_bruteforce_cases
