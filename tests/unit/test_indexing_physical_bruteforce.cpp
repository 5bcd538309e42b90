// Brute-force tests of maps in physical offsets: the exact bitcast maps
// (op_maps_reshape: "same bits in the buffer", element widths may differ),
// indexing::in_physical_offsets, and PhysicalIndexing::apply (what
// `hlo-index analyze --physical` runs).
//
// Every check enumerates the maps point by point (dimension and range
// variables over their intervals, every domain constraint evaluated with
// simplify::evaluate) and compares the relation with a direct computation
// that shares no code with layout/ or indexing/:
//  - the layout formula of the tiled-layout document: the logical index in
//    physical order (the reverse of minor_to_major); then per tile level,
//    unit dimensions in front when the tile is longer than the shape, each
//    `*` entry merges its dimension into the next more-minor one, and the
//    tiled (minor-most) dimensions split into all tile indices followed by
//    all indices in the tile, the shape padded to whole tiles. The offset is
//    the row-major linear index of the final index, the buffer the product
//    of its bounds;
//  - a bitcast: the output element at offset p (bits p*b_out ..
//    p*b_out + b_out - 1 of its buffer) reads every operand element whose
//    bits overlap those; padding slots, and bits beyond the operand's
//    buffer, hold nothing;
//  - transpose, slice, broadcast, reverse, add, copy, reduce: the op's
//    semantics on logical indices, then the layout formula on both sides.
// A map set denotes the union of its maps' relations
//   { d -> r(d, s) : (d, s) in the variable box and every constraint }.
// In physical offsets a padding slot must be outside the domain: it then
// has no point, and the relations are compared as wholes.
//
// Random cases come from splitmix64 with fixed seeds (the same cases with
// every compiler and standard library). Cases of the TPU corpus are fixed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "indexing/analysis/physical_indexing.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/indexing_map.hpp"
#include "indexing/maps/layout_maps.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "layout/physical_layout.hpp"
#include "parser/diagnostics.hpp"
#include "parser/parse.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_physical_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using Ints = std::vector<std::int64_t>;

// ---------------------------------------------------------------------------
// A portable random source (one sequence on every machine).

using SplitMix64 = test::Rng;

// ---------------------------------------------------------------------------
// Text helpers.

/// Concatenation by appending (GCC 12 warns falsely on `"literal" + std::string` in Release).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

std::string join(const Ints& v, const char* separator = ",") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += separator;
    s += std::to_string(v[i]);
  }
  return s;
}

std::string tuple_text(const Ints& v) {
  std::string s = "(";
  s += join(v, ", ");
  s += ")";
  return s;
}

std::int64_t product(const Ints& v) {
  std::int64_t p = 1;
  for (std::int64_t x : v) p *= x;
  return p;
}

/// Every index of `dims`, row-major (one empty index for a scalar).
std::vector<Ints> all_indices(const Ints& dims) {
  std::vector<Ints> out;
  if (product(dims) == 0) return out;
  Ints index(dims.size(), 0);
  for (;;) {
    out.push_back(index);
    std::size_t i = dims.size();
    while (i > 0 && ++index[i - 1] == dims[i - 1]) index[--i] = 0;
    if (i == 0) return out;
  }
}

// ---------------------------------------------------------------------------
// Arrays and the direct layout formula.

constexpr std::int64_t k_star = -1;  // a `*` tile entry

std::int64_t bits_of(const std::string& type) {
  if (type == "f32") return 32;
  if (type == "s16" || type == "bf16") return 16;
  if (type == "s8") return 8;
  throw std::logic_error(cat("no width for ", type));
}

struct Array {
  std::string type = "f32";
  Ints dims;
  Ints minor_to_major;      // empty for a scalar
  std::vector<Ints> tiles;  // k_star for `*`
};

std::string text(const Array& a) {
  std::string s = a.type;
  s += "[";
  s += join(a.dims);
  s += "]";
  if (a.dims.empty()) return s;
  s += "{";
  s += join(a.minor_to_major);
  if (!a.tiles.empty()) s += ":T";
  for (const Ints& t : a.tiles) {
    s += "(";
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (i > 0) s += ",";
      s += t[i] == k_star ? std::string("*") : std::to_string(t[i]);
    }
    s += ")";
  }
  s += "}";
  return s;
}

Ints row_major(std::size_t rank) {
  Ints m2m;
  for (std::size_t i = rank; i-- > 0;) m2m.push_back(static_cast<std::int64_t>(i));
  return m2m;
}

Array array(std::string type, Ints dims, Ints minor_to_major = {}, std::vector<Ints> tiles = {}) {
  Array a;
  a.type = std::move(type);
  a.minor_to_major = minor_to_major.empty() ? row_major(dims.size()) : std::move(minor_to_major);
  a.dims = std::move(dims);
  a.tiles = std::move(tiles);
  return a;
}

/// The final physical index of an element and its bounds, major to minor.
struct Placed {
  Ints index, bounds;
};

Placed place(const Array& a, const Ints& logical) {
  Placed x;
  for (std::size_t j = a.minor_to_major.size(); j-- > 0;) {
    const auto dim = static_cast<std::size_t>(a.minor_to_major[j]);
    x.index.push_back(logical[dim]);
    x.bounds.push_back(a.dims[dim]);
  }
  for (const Ints& t : a.tiles) {
    while (x.bounds.size() < t.size()) {
      x.index.insert(x.index.begin(), 0);
      x.bounds.insert(x.bounds.begin(), 1);
    }
    const std::size_t base = x.bounds.size() - t.size();
    Ints index, bound, size;  // the tiled dimensions after merging the `*` ones
    std::int64_t e = 0, d = 1;
    for (std::size_t j = 0; j < t.size(); ++j) {
      e = e * x.bounds[base + j] + x.index[base + j];
      d *= x.bounds[base + j];
      if (t[j] == k_star) continue;
      index.push_back(e);
      bound.push_back(d);
      size.push_back(t[j]);
      e = 0;
      d = 1;
    }
    x.index.resize(base);
    x.bounds.resize(base);
    for (std::size_t i = 0; i < size.size(); ++i) {
      x.index.push_back(index[i] / size[i]);
      x.bounds.push_back((bound[i] + size[i] - 1) / size[i]);
    }
    for (std::size_t i = 0; i < size.size(); ++i) {
      x.index.push_back(index[i] % size[i]);
      x.bounds.push_back(size[i]);
    }
  }
  return x;
}

std::int64_t offset_of(const Array& a, const Ints& logical) {
  const Placed x = place(a, logical);
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < x.index.size(); ++i) offset = offset * x.bounds[i] + x.index[i];
  return offset;
}

std::int64_t slots_of(const Array& a) { return product(place(a, Ints(a.dims.size(), 0)).bounds); }

/// An array laid out: every element's offset and every slot's element.
struct Buffer {
  Ints dims;
  std::size_t rank = 0;
  std::int64_t slots = 0, bits = 0;
  std::vector<Ints> elements;  // row-major
  Ints offset;                 // per element
  Ints owner;                  // per slot: the element's number, -1 for padding
};

Buffer lay_out(const Array& a) {
  Buffer b;
  b.dims = a.dims;
  b.rank = a.dims.size();
  b.bits = bits_of(a.type);
  b.slots = slots_of(a);
  b.elements = all_indices(a.dims);
  b.owner.assign(static_cast<std::size_t>(b.slots), -1);
  for (std::size_t n = 0; n < b.elements.size(); ++n) {
    const std::int64_t p = offset_of(a, b.elements[n]);
    if (p < 0 || p >= b.slots || b.owner[static_cast<std::size_t>(p)] != -1)
      throw std::logic_error(cat("the direct layout formula is not injective on ", text(a)));
    b.offset.push_back(p);
    b.owner[static_cast<std::size_t>(p)] = static_cast<std::int64_t>(n);
  }
  return b;
}

// ---------------------------------------------------------------------------
// Relations: sorted (from-point, to-point) pairs, flat, so that comparing
// a few ten thousand of them stays cheap in Debug builds.

constexpr std::size_t k_max_components = 8;  // from rank + to rank
using Point = std::array<std::int64_t, k_max_components>;

struct Relation {
  std::size_t from_rank = 0, to_rank = 0;
  std::vector<Point> points;  // from ++ to, zero-filled; sorted and unique after finish()

  Relation() = default;
  Relation(std::size_t from, std::size_t to) : from_rank(from), to_rank(to) {
    if (from + to > k_max_components) throw std::logic_error("ranks too large for a Relation");
  }
  void add(const Ints& from, const Ints& to) {
    Point p{};
    std::copy(from.begin(), from.end(), p.begin());
    std::copy(to.begin(), to.end(), p.begin() + static_cast<std::ptrdiff_t>(from_rank));
    points.push_back(p);
  }
  Relation& finish() {
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    return *this;
  }
  Ints from(const Point& p) const { return Ints(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(from_rank)); }
  Ints to(const Point& p) const {
    return Ints(p.begin() + static_cast<std::ptrdiff_t>(from_rank),
                p.begin() + static_cast<std::ptrdiff_t>(from_rank + to_rank));
  }
  /// from-point -> to-points (for messages and small checks).
  std::map<Ints, std::set<Ints>> grouped() const {
    std::map<Ints, std::set<Ints>> g;
    for (const Point& p : points) g[from(p)].insert(to(p));
    return g;
  }
};

Relation inverse(const Relation& r) {
  Relation out(r.to_rank, r.from_rank);
  for (const Point& p : r.points) out.add(r.to(p), r.from(p));
  return out.finish();
}

/// The elements of `to` that share bits with each element of `from`, as
/// logical indices or (with `offsets`) as element offsets.
Relation same_bits(const Buffer& from, const Buffer& to, bool offsets) {
  Relation r = offsets ? Relation(1, 1) : Relation(from.rank, to.rank);
  for (std::size_t n = 0; n < from.elements.size(); ++n) {
    const std::int64_t p = from.offset[n];
    const std::int64_t first_bit = p * from.bits, last_bit = first_bit + from.bits - 1;
    for (std::int64_t q = first_bit / to.bits; q <= last_bit / to.bits && q < to.slots; ++q) {
      const std::int64_t m = to.owner[static_cast<std::size_t>(q)];
      if (m < 0) continue;
      if (offsets)
        r.add({p}, {q});
      else
        r.add(from.elements[n], to.elements[static_cast<std::size_t>(m)]);
    }
  }
  return r.finish();
}

/// The offset of an element given by its logical index.
std::int64_t offset_in(const Buffer& b, const Ints& logical) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < logical.size(); ++i) n = n * b.dims[i] + logical[i];
  return b.offset[static_cast<std::size_t>(n)];
}

/// A relation between logical indices restated between offsets.
Relation in_offsets(const Relation& logical, const Buffer& from, const Buffer& to) {
  Relation r(1, 1);
  for (const Point& p : logical.points) r.add({offset_in(from, logical.from(p))}, {offset_in(to, logical.to(p))});
  return r.finish();
}

/// The reads of an op given per output element (operand, index) pairs.
std::vector<Relation> reads_of(const Array& output, std::size_t operands,
                               const std::function<void(const Ints&, std::vector<std::vector<Ints>>&)>& reads) {
  std::vector<Relation> out;
  for (const Ints& o : all_indices(output.dims)) {
    std::vector<std::vector<Ints>> read(operands);
    reads(o, read);
    for (std::size_t j = 0; j < operands; ++j) {
      if (out.size() <= j) out.emplace_back(output.dims.size(), read[j].empty() ? 0 : read[j][0].size());
      for (const Ints& i : read[j]) out[j].add(o, i);
    }
  }
  for (Relation& r : out) r.finish();
  return out;
}

// ---------------------------------------------------------------------------
// Enumerating maps.

constexpr std::int64_t k_max_points = 200'000;

std::vector<simplify::Interval> bounds_of(const simplify::Domain& d, simplify::VarKind kind) {
  std::vector<simplify::Interval> out;
  for (const simplify::Variable& v : d.variables(kind)) out.push_back(v.bounds);
  return out;
}

std::int64_t box_size(const std::vector<simplify::Interval>& box) {
  std::int64_t n = 1;
  for (const simplify::Interval& b : box) n *= std::max<std::int64_t>(0, b.hi - b.lo + 1);
  return n;
}

template <typename Fn>
void for_each_point(const std::vector<simplify::Interval>& box, Fn&& fn) {
  if (box_size(box) == 0) return;
  Ints point;
  for (const simplify::Interval& b : box) point.push_back(b.lo);
  for (;;) {
    fn(static_cast<const Ints&>(point));
    std::size_t i = point.size();
    while (i > 0 && point[i - 1] == box[i - 1].hi) {
      point[i - 1] = box[i - 1].lo;
      --i;
    }
    if (i == 0) return;
    ++point[i - 1];
  }
}

/// What the generated cases exercised (per test case; checked at its end).
struct Coverage {
  std::map<std::string, int> counts;
  void add(const std::string& feature, bool happened = true) {
    if (happened) ++counts[feature];
  }
  void require(const std::vector<std::string>& features) const {
    for (const std::string& f : features) {
      INFO("feature: " << f);
      CHECK(counts.count(f) != 0);
    }
  }
};

/// The relation of a set of maps (from_rank dimensions, to_rank results).
/// `error` collects what makes a map unusable (UNDEFINED, approximate,
/// runtime variables, other ranks, too large).
Relation relation_of(const MapSet& set, std::size_t from_rank, std::size_t to_rank, std::string& error,
                     Coverage* coverage = nullptr) {
  Relation out(from_rank, to_rank);
  for (const IndexingMap& m : set) {
    if (m.is_known_empty()) continue;
    if (m.is_undefined()) {
      error.append("UNDEFINED map (").append(m.undefined_reason()).append("); ");
      continue;
    }
    if (m.approximate()) error += "an approximate map; ";
    if (m.runtime_count() != 0 || m.has_replica_id()) {
      error += "a map with runtime variables or a replica id; ";
      continue;
    }
    if (m.dim_count() != from_rank || m.results().size() != to_rank) {
      error.append("a map with ").append(std::to_string(m.dim_count())).append(" dimensions and ");
      error.append(std::to_string(m.results().size())).append(" results; ");
      continue;
    }
    if (coverage) coverage->add("map with range variables", m.range_count() > 0);
    if (coverage) coverage->add("map with constraints", !m.domain().constraints().empty());
    const auto dims = bounds_of(m.domain(), simplify::VarKind::kDim);
    const auto ranges = bounds_of(m.domain(), simplify::VarKind::kRange);
    if (box_size(dims) * box_size(ranges) > k_max_points) {
      error += "a map too large to enumerate; ";
      continue;
    }
    for_each_point(dims, [&](const Ints& d) {
      Point p{};
      std::copy(d.begin(), d.end(), p.begin());
      for_each_point(ranges, [&](const Ints& s) {
        const simplify::VarValues at{d, s, {}};
        for (const simplify::Constraint& c : m.domain().constraints())
          if (!c.interval.contains(simplify::evaluate(c.expr, at))) return;
        for (std::size_t k = 0; k < to_rank; ++k) p[from_rank + k] = simplify::evaluate(m.results()[k], at);
        out.points.push_back(p);
      });
    });
  }
  return out.finish();
}

std::string set_text(const std::set<Ints>& s) {
  std::string out = "{";
  int shown = 0;
  for (const Ints& t : s) {
    if (shown++ == 8) {
      out += " ...";
      break;
    }
    out += shown > 1 ? " " : "";
    out += tuple_text(t);
  }
  out += "}";
  return out;
}

/// "" when the relations are equal, else the first few points that differ.
/// `describe` names a from-point ("output element (1, 2)", "output offset 7
/// (padding)").
std::string difference(const Relation& expected, const Relation& actual,
                       const std::function<std::string(const Ints&)>& describe) {
  if (expected.points == actual.points) return {};
  const auto expected_groups = expected.grouped(), actual_groups = actual.grouped();
  std::set<Ints> keys;
  for (const auto& kv : expected_groups) keys.insert(kv.first);
  for (const auto& kv : actual_groups) keys.insert(kv.first);
  static const std::set<Ints> none;
  std::string out;
  int count = 0;
  for (const Ints& k : keys) {
    auto e = expected_groups.find(k);
    auto a = actual_groups.find(k);
    const std::set<Ints>& es = e == expected_groups.end() ? none : e->second;
    const std::set<Ints>& as = a == actual_groups.end() ? none : a->second;
    if (es == as) continue;
    if (count++ < 5) {
      out.append("\n  ").append(describe(k)).append(": expected ").append(set_text(es));
      out.append(", the maps give ").append(set_text(as));
    }
  }
  if (count == 0) return {};
  std::string head = std::to_string(count);
  head += " point(s) differ:";
  return head + out;
}

std::string maps_text(const MapSet& set) {
  std::string out;
  for (const IndexingMap& m : set) out.append("\n    ").append(indexing::print_map(m));
  return out.empty() ? std::string("\n    (no maps)") : out;
}

/// Checks that `set` denotes exactly `expected`, and that every map survives
/// the text round trip.
void check_set(const MapSet& set, const Relation& expected, const std::string& what,
               const std::function<std::string(const Ints&)>& describe, Coverage& coverage) {
  INFO(what << ":" << maps_text(set));
  for (const IndexingMap& m : set) {
    const std::string printed = indexing::print_map(m);
    CHECK(indexing::print_map(indexing::parse_map(printed)) == printed);
  }
  std::string error;
  const Relation actual = relation_of(set, expected.from_rank, expected.to_rank, error, &coverage);
  INFO(error);
  CHECK(error.empty());
  const std::string diff = difference(expected, actual, describe);
  INFO(diff);
  CHECK(diff.empty());
}

std::function<std::string(const Ints&)> element_named(const char* role) {
  return [role](const Ints& k) {
    std::string s = role;
    s += " element ";
    s += tuple_text(k);
    return s;
  };
}

std::function<std::string(const Ints&)> offset_named(const char* role, const Buffer& b) {
  return [role, &b](const Ints& k) {
    std::string s = role;
    s += " offset ";
    s += std::to_string(k[0]);
    const bool in_buffer = k[0] >= 0 && k[0] < b.slots;
    if (!in_buffer) {
      s += " (outside the buffer)";
    } else if (b.owner[static_cast<std::size_t>(k[0])] < 0) {
      s += " (padding)";
    } else {
      s += " (element ";
      s += tuple_text(b.elements[static_cast<std::size_t>(b.owner[static_cast<std::size_t>(k[0])])]);
      s += ")";
    }
    return s;
  };
}

// ---------------------------------------------------------------------------
// Modules.

struct Parsed {
  std::vector<hlo::Module> modules;
  std::uint32_t computation = 0, instruction = 0;
  const hlo::Module& module() const { return modules[0]; }
  const hlo::Computation& entry() const { return modules[0].computations[computation]; }
  const hlo::Instruction& root() const { return entry().instructions[instruction]; }
};

Parsed parse(const std::string& text) {
  Parsed p;
  parser::DiagnosticEngine diagnostics;
  p.modules = parser::parse_hlo_text(text, "physical.hlo", diagnostics);
  INFO("diagnostics:\n" << parser::render(diagnostics));
  REQUIRE(p.modules.size() == 1);
  REQUIRE_FALSE(diagnostics.has_errors());
  p.computation = p.modules[0].entry;
  p.instruction = p.modules[0].computations[p.computation].root;
  return p;
}

/// One op: its module text, its arrays, and the reference reads per operand
/// (output logical index -> operand logical indices).
struct OpCase {
  std::string op;
  std::vector<Array> operands;
  Array output;
  std::string attributes;
  std::vector<bool> constant;  // per operand: a scalar constant instead of a parameter
  std::vector<Relation> reads;

  std::string module_text() const {
    std::string t = "HloModule m\n\n";
    if (op == "reduce")
      t += "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";
    t += "ENTRY e {\n";
    std::string args;
    for (std::size_t j = 0; j < operands.size(); ++j) {
      const std::string name = cat(constant.size() > j && constant[j] ? "c" : "p", std::to_string(j));
      t.append("  ").append(name).append(" = ").append(text(operands[j]));
      if (constant.size() > j && constant[j])
        t += " constant(0)\n";
      else
        t.append(" parameter(").append(std::to_string(j)).append(")\n");
      if (j > 0) args += ", ";
      args += name;
    }
    t.append("  ROOT r = ").append(text(output)).append(" ").append(op).append("(").append(args).append(")");
    t.append(attributes).append("\n}\n");
    return t;
  }
};

OpCase bitcast_case(const Array& operand, const Array& output) {
  OpCase c;
  c.op = "bitcast";
  c.operands = {operand};
  c.output = output;
  c.reads = {same_bits(lay_out(output), lay_out(operand), false)};
  return c;
}

/// The exact analysis (logical indices) against the reference, both ways.
void check_logical(const OpCase& c, const Parsed& p, indexing::IndexingAnalysis& analysis, Coverage& coverage) {
  const std::vector<MapSet> o2i = analysis.output_to_input(p.computation, p.instruction, 0);
  REQUIRE(o2i.size() == c.operands.size());
  for (std::size_t j = 0; j < c.operands.size(); ++j) {
    INFO("operand " << j);
    check_set(o2i[j], c.reads[j], "output -> operand", element_named("output"), coverage);
    const std::vector<MapSet> i2o = analysis.input_to_output(p.computation, p.instruction, j);
    REQUIRE(i2o.size() >= 1);
    check_set(i2o[0], inverse(c.reads[j]), "operand -> output", element_named("operand"), coverage);
  }
}

/// PhysicalIndexing::apply (and in_physical_offsets unsimplified) against
/// the reference in offsets: output offset -> operand offsets and back.
void check_physical(const OpCase& c, const Parsed& p, indexing::IndexingAnalysis& analysis, Coverage& coverage) {
  const indexing::InstructionIndexing logical = analysis.analyze(p.computation, p.instruction, true, true);
  analysis::PhysicalIndexing physical(p.module());
  const indexing::InstructionIndexing offsets = physical.apply(p.entry(), p.root(), logical);
  REQUIRE(offsets.output_to_input.size() == 1);
  REQUIRE(offsets.output_to_input[0].size() == c.operands.size());
  REQUIRE(offsets.input_to_output.size() == 1);
  const Buffer out = lay_out(c.output);
  const layout::PhysicalLayout out_layout = layout::PhysicalLayout::of(p.module().shape_of(p.root()));
  const auto operand_ids = p.entry().operands_of(p.root());
  for (std::size_t j = 0; j < c.operands.size(); ++j) {
    INFO("operand " << j);
    const Buffer in = lay_out(c.operands[j]);
    const Relation expected = in_offsets(c.reads[j], out, in);
    coverage.add("output padding", out.slots > static_cast<std::int64_t>(out.elements.size()));
    coverage.add("operand padding", in.slots > static_cast<std::int64_t>(in.elements.size()));
    check_set(offsets.output_to_input[0][j], expected, "output offset -> operand offset", offset_named("output", out),
              coverage);
    const MapSet none;
    const MapSet& backward = offsets.input_to_output[0].size() > j ? offsets.input_to_output[0][j] : none;
    check_set(backward, inverse(expected), "operand offset -> output offset", offset_named("operand", in), coverage);

    // in_physical_offsets on its own, without simplification.
    const layout::PhysicalLayout in_layout =
        layout::PhysicalLayout::of(p.module().shape_of(p.entry().instructions[operand_ids[j]]));
    MapSet raw_forward, raw_backward;
    for (const IndexingMap& m : logical.output_to_input[0][j])
      raw_forward.push_back(indexing::in_physical_offsets(m, out_layout, in_layout, false));
    if (logical.input_to_output[0].size() > j)
      for (const IndexingMap& m : logical.input_to_output[0][j])
        raw_backward.push_back(indexing::in_physical_offsets(m, in_layout, out_layout, false));
    check_set(raw_forward, expected, "in_physical_offsets, unsimplified, output -> operand",
              offset_named("output", out), coverage);
    check_set(raw_backward, inverse(expected), "in_physical_offsets, unsimplified, operand -> output",
              offset_named("operand", in), coverage);
  }
}

void check_case(const OpCase& c, bool logical, bool physical, Coverage& coverage) {
  const std::string hlo = c.module_text();
  INFO("HLO:\n" << hlo);
  const Parsed p = parse(hlo);
  indexing::IndexingAnalysis analysis(p.module(), indexing::AnalysisOptions{});
  if (logical) check_logical(c, p, analysis, coverage);
  if (physical) check_physical(c, p, analysis, coverage);
}

// ---------------------------------------------------------------------------
// Random cases.

constexpr std::int64_t k_max_slots = 400;
const std::vector<std::string> k_types = {"f32", "s16", "bf16", "s8"};

Ints random_dims(SplitMix64& r, std::int64_t min_rank = 1) {
  for (;;) {
    Ints dims;
    const std::int64_t rank = r.uniform(min_rank, 3);
    for (std::int64_t i = 0; i < rank; ++i) dims.push_back(r.uniform(1, 6));
    if (product(dims) <= 200) return dims;
  }
}

/// A random layout for `a` (its dims and type set): a permutation, and 0-2
/// tile levels with sizes 1-4, sometimes `*`, sometimes longer than the
/// shape. The buffer stays at most k_max_slots.
void random_layout(SplitMix64& r, Array& a, int tiled_percent = 60) {
  const std::size_t rank = a.dims.size();
  if (rank == 0) return;
  for (;;) {
    a.minor_to_major = r.permutation(rank);
    a.tiles.clear();
    const int levels = !r.chance(tiled_percent) ? 0 : r.chance(65) ? 1 : 2;
    std::size_t current = rank;
    for (int level = 0; level < levels; ++level) {
      const std::size_t k =
          static_cast<std::size_t>(r.uniform(1, static_cast<std::int64_t>(std::min<std::size_t>(current, 3)) + 1));
      Ints t;
      std::size_t stars = 0;
      for (std::size_t j = 0; j < k; ++j) {
        if (j + 1 < k && r.chance(15)) {
          t.push_back(k_star);
          ++stars;
        } else {
          t.push_back(r.uniform(1, 4));
        }
      }
      a.tiles.push_back(t);
      current = std::max(current, k) - stars + (k - stars);
    }
    if (slots_of(a) <= k_max_slots) return;
  }
}

/// n as a product of 1-3 factors.
Ints random_factors(SplitMix64& r, std::int64_t n) {
  const std::int64_t rank = r.uniform(1, 3);
  Ints dims;
  std::int64_t rest = n;
  for (std::int64_t i = 0; i + 1 < rank; ++i) {
    Ints divisors;
    for (std::int64_t d = 1; d <= rest && d <= 12; ++d)
      if (rest % d == 0) divisors.push_back(d);
    dims.push_back(r.pick(divisors));
    rest /= dims.back();
  }
  dims.push_back(rest);
  std::reverse(dims.begin(), dims.end());  // the large factor major
  return dims;
}

std::int64_t allocated_bits(const Array& a) { return slots_of(a) * bits_of(a.type); }

/// A bitcast from a random operand: the output's allocated bits equal the
/// operand's about half of the time, else anything (more or fewer). Two
/// untiled sides always have equal sizes (the parser rejects others, as XLA
/// does; only tiles make the size depend on the layout).
OpCase random_bitcast(SplitMix64& r) {
  Array in;
  in.type = r.pick(k_types);
  in.dims = random_dims(r);
  random_layout(r, in);
  for (;;) {
    Array out;
    out.type = r.pick(k_types);
    const std::int64_t bits = allocated_bits(in), out_bits = bits_of(out.type);
    if (r.chance(50) && bits % out_bits == 0 && bits / out_bits <= k_max_slots) {
      // Same buffer size: an untiled output, or tiles that add no padding.
      out.dims = random_factors(r, bits / out_bits);
      const Array plain = array(out.type, out.dims, r.permutation(out.dims.size()));
      out = plain;
      if (r.chance(60)) {
        for (int attempt = 0; attempt < 20; ++attempt) {
          random_layout(r, out, 100);
          if (slots_of(out) == product(out.dims)) break;
          out = plain;
        }
      }
    } else {
      out.dims = random_dims(r);
      random_layout(r, out);
    }
    if (!in.tiles.empty() || !out.tiles.empty() || allocated_bits(out) == bits) return bitcast_case(in, out);
  }
}

OpCase random_op(SplitMix64& r, const std::string& op) {
  OpCase c;
  c.op = op;
  auto with_layout = [&r](std::string type, Ints dims) {
    Array a;
    a.type = std::move(type);
    a.dims = std::move(dims);
    random_layout(r, a);
    return a;
  };
  const std::string type = r.pick(k_types);
  if (op == "transpose") {
    Array in = with_layout(type, random_dims(r));
    const Ints perm = r.permutation(in.dims.size());
    Ints dims;
    for (std::int64_t k : perm) dims.push_back(in.dims[static_cast<std::size_t>(k)]);
    c.operands = {in};
    c.output = with_layout(type, dims);
    c.attributes = cat(", dimensions={", join(perm), "}");
    c.reads = reads_of(c.output, 1, [perm](const Ints& o, std::vector<std::vector<Ints>>& read) {
      Ints i(o.size());
      for (std::size_t k = 0; k < perm.size(); ++k) i[static_cast<std::size_t>(perm[k])] = o[k];
      read[0].push_back(i);
    });
  } else if (op == "slice") {
    Array in = with_layout(type, random_dims(r));
    Ints starts, strides, dims;
    std::string spec;
    for (std::size_t k = 0; k < in.dims.size(); ++k) {
      const std::int64_t start = r.uniform(0, in.dims[k] - 1), limit = r.uniform(start + 1, in.dims[k]);
      const std::int64_t stride = r.uniform(1, 3);
      starts.push_back(start);
      strides.push_back(stride);
      dims.push_back((limit - start + stride - 1) / stride);
      if (k > 0) spec += ", ";
      spec.append("[").append(std::to_string(start)).append(":").append(std::to_string(limit));
      spec.append(":").append(std::to_string(stride)).append("]");
    }
    c.operands = {in};
    c.output = with_layout(type, dims);
    c.attributes = cat(", slice={", spec, "}");
    c.reads = reads_of(c.output, 1, [starts, strides](const Ints& o, std::vector<std::vector<Ints>>& read) {
      Ints i;
      for (std::size_t k = 0; k < o.size(); ++k) i.push_back(starts[k] + o[k] * strides[k]);
      read[0].push_back(i);
    });
  } else if (op == "broadcast") {
    c.output = with_layout(type, random_dims(r));
    const Ints kept = r.subset(c.output.dims.size(),
                               static_cast<std::size_t>(r.uniform(0, static_cast<std::int64_t>(c.output.dims.size()))));
    Ints dims;
    for (std::int64_t k : kept) dims.push_back(c.output.dims[static_cast<std::size_t>(k)]);
    c.operands = {with_layout(type, dims)};
    c.attributes = cat(", dimensions={", join(kept), "}");
    c.reads = reads_of(c.output, 1, [kept](const Ints& o, std::vector<std::vector<Ints>>& read) {
      Ints i;
      for (std::int64_t k : kept) i.push_back(o[static_cast<std::size_t>(k)]);
      read[0].push_back(i);
    });
  } else if (op == "reverse") {
    Array in = with_layout(type, random_dims(r));
    const Ints reversed =
        r.subset(in.dims.size(), static_cast<std::size_t>(r.uniform(1, static_cast<std::int64_t>(in.dims.size()))));
    c.operands = {in};
    c.output = with_layout(type, in.dims);
    c.attributes = cat(", dimensions={", join(reversed), "}");
    const Ints dims = in.dims;
    c.reads = reads_of(c.output, 1, [reversed, dims](const Ints& o, std::vector<std::vector<Ints>>& read) {
      Ints i = o;
      for (std::int64_t k : reversed) {
        const auto d = static_cast<std::size_t>(k);
        i[d] = dims[d] - 1 - o[d];
      }
      read[0].push_back(i);
    });
  } else if (op == "add" || op == "copy") {
    const Ints dims = random_dims(r);
    const std::size_t n = op == "add" ? 2 : 1;
    for (std::size_t j = 0; j < n; ++j) c.operands.push_back(with_layout(type, dims));
    c.output = with_layout(type, dims);
    c.reads = reads_of(c.output, n, [n](const Ints& o, std::vector<std::vector<Ints>>& read) {
      for (std::size_t j = 0; j < n; ++j) read[j].push_back(o);
    });
  } else if (op == "reduce") {
    Array in = with_layout("f32", random_dims(r));
    const Ints reduced =
        r.subset(in.dims.size(), static_cast<std::size_t>(r.uniform(1, static_cast<std::int64_t>(in.dims.size()))));
    Ints kept_dims, reduced_dims;
    std::vector<bool> is_reduced(in.dims.size(), false);
    for (std::int64_t k : reduced) is_reduced[static_cast<std::size_t>(k)] = true;
    for (std::size_t k = 0; k < in.dims.size(); ++k) (is_reduced[k] ? reduced_dims : kept_dims).push_back(in.dims[k]);
    c.operands = {in, array("f32", {})};
    c.constant = {false, true};
    c.output = with_layout("f32", kept_dims);
    c.attributes = cat(", dimensions={", join(reduced), "}, to_apply=add");
    c.reads = reads_of(c.output, 2, [=](const Ints& o, std::vector<std::vector<Ints>>& read) {
      for (const Ints& s : all_indices(reduced_dims)) {
        Ints i;
        std::size_t ko = 0, ks = 0;
        for (std::size_t k = 0; k < is_reduced.size(); ++k) i.push_back(is_reduced[k] ? s[ks++] : o[ko++]);
        read[0].push_back(i);
      }
      read[1].push_back({});
    });
  } else {
    throw std::logic_error(cat("no generator for ", op));
  }
  return c;
}

void cover_bitcast(const OpCase& c, Coverage& coverage) {
  const Array& in = c.operands[0];
  const Array& out = c.output;
  const std::int64_t in_bits = allocated_bits(in), out_bits = allocated_bits(out);
  coverage.add("bitcast: same allocated bits", in_bits == out_bits);
  coverage.add("bitcast: output larger than the operand's buffer", out_bits > in_bits);
  coverage.add("bitcast: output smaller than the operand's buffer", out_bits < in_bits);
  coverage.add("bitcast: narrower output elements", bits_of(out.type) < bits_of(in.type));
  coverage.add("bitcast: wider output elements", bits_of(out.type) > bits_of(in.type));
  coverage.add("bitcast: equal widths", bits_of(out.type) == bits_of(in.type));
  coverage.add("bitcast: bf16 <-> s16 (same width, other type)",
               in.type != out.type && bits_of(out.type) == bits_of(in.type));
  coverage.add("bitcast: tiles on both sides", !in.tiles.empty() && !out.tiles.empty());
  coverage.add("bitcast: no tiles on either side", in.tiles.empty() && out.tiles.empty());
  // A wide output element whose bits are partly operand padding reads the rest.
  if (bits_of(out.type) > bits_of(in.type)) {
    const Buffer bi = lay_out(in), bo = lay_out(out);
    const std::int64_t k = bo.bits / bi.bits;
    for (std::int64_t p : bo.offset) {
      std::int64_t padding = 0;
      for (std::int64_t q = p * k; q < p * k + k && q < bi.slots; ++q)
        padding += bi.owner[static_cast<std::size_t>(q)] < 0 ? 1 : 0;
      coverage.add("bitcast: a wide output element partly over operand padding", padding > 0 && padding < k);
    }
  }
  for (const Array* a : {&in, &out}) {
    coverage.add("two tile levels", a->tiles.size() == 2);
    for (const Ints& t : a->tiles) {
      coverage.add("a `*` tile entry", std::count(t.begin(), t.end(), k_star) > 0);
      coverage.add("a tile longer than the shape", t.size() > a->dims.size());
    }
    coverage.add("padding", slots_of(*a) > product(a->dims));
  }
}

}  // namespace

// ---------------------------------------------------------------------------

TEST_CASE("the direct layout formula reproduces the documents' examples", "[indexing][physical][bruteforce]") {
  // f32[3,5]{1,0:T(2,2)}: element (2,3) at offset 17 of 24 (hlo-index layout's example).
  const Array figure = array("f32", {3, 5}, {1, 0}, {{2, 2}});
  CHECK(offset_of(figure, {2, 3}) == 17);
  CHECK(slots_of(figure) == 24);
  // bf16[16,256]{1,0:T(8,128)(2,1)}: element (9,130) at 3077.
  const Array repeated = array("bf16", {16, 256}, {1, 0}, {{8, 128}, {2, 1}});
  CHECK(place(repeated, {9, 130}).bounds == Ints{2, 2, 4, 128, 2, 1});
  CHECK(offset_of(repeated, {9, 130}) == 3077);
  // f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)} is [112,110] tiled by (2,3).
  const Array combined = array("f32", {2, 7, 8, 11, 10}, {4, 3, 2, 1, 0}, {{k_star, k_star, 2, k_star, 3}});
  CHECK(place(combined, {1, 6, 7, 10, 9}).bounds == Ints{56, 37, 2, 3});
  CHECK(place(combined, {1, 6, 7, 10, 9}).index == Ints{111 / 2, 109 / 3, 111 % 2, 109 % 3});
  // f32[]{:T(128)}-like: a tile longer than the shape adds unit dimensions.
  CHECK(slots_of(array("f32", {3}, {0}, {{2, 4}})) == 8);  // [1,3] in tiles of (2,4)
  // Bits: bf16[2,4]{1,0} -> s8[16]{0}: s8 element 5 lies in bf16 element (0, 2).
  const Relation bits = same_bits(lay_out(array("s8", {16})), lay_out(array("bf16", {2, 4})), false);
  CHECK(bits.grouped().at({5}) == std::set<Ints>{{0, 2}});
  CHECK(inverse(bits).grouped().at({1, 3}) == std::set<Ints>{{14}, {15}});
}

TEST_CASE("random bitcasts: exact maps read exactly the operand elements sharing bits",
          "[indexing][physical][bruteforce]") {
  constexpr int k_cases = 250;
  Coverage coverage;
  for (int i = 0; i < k_cases; ++i) {
    SplitMix64 r(0xb17ca57ULL + static_cast<std::uint64_t>(i) * 7919u);
    const OpCase c = random_bitcast(r);
    INFO("case " << i);
    cover_bitcast(c, coverage);
    check_case(c, true, i % 3 == 0, coverage);
  }
  coverage.require({"bitcast: same allocated bits", "bitcast: output larger than the operand's buffer",
                    "bitcast: output smaller than the operand's buffer", "bitcast: narrower output elements",
                    "bitcast: wider output elements", "bitcast: equal widths",
                    "bitcast: bf16 <-> s16 (same width, other type)", "bitcast: tiles on both sides",
                    "bitcast: no tiles on either side", "bitcast: a wide output element partly over operand padding",
                    "two tile levels", "a `*` tile entry", "a tile longer than the shape", "padding",
                    "map with range variables", "map with constraints"});
}

TEST_CASE("random ops with layouts: analyze --physical maps match the layouts and the op semantics",
          "[indexing][physical][bruteforce]") {
  const std::vector<std::string> ops = {"transpose", "slice", "broadcast", "reverse", "add", "copy", "reduce"};
  constexpr int k_cases_per_op = 30;
  Coverage coverage;
  for (std::size_t n = 0; n < ops.size(); ++n) {
    const std::string& op = ops[n];
    for (int i = 0; i < k_cases_per_op; ++i) {
      SplitMix64 r(0x9d1cULL + n * 1'000'003u + static_cast<std::uint64_t>(i) * 104729u);
      const OpCase c = random_op(r, op);
      INFO(op << " case " << i);
      coverage.add(op);
      check_case(c, true, true, coverage);
    }
  }
  coverage.require({"transpose", "slice", "broadcast", "reverse", "add", "copy", "reduce", "output padding",
                    "operand padding", "map with range variables", "map with constraints"});
}

TEST_CASE("bitcasts of the TPU corpus, exact and in physical offsets", "[indexing][physical][bruteforce]") {
  Coverage coverage;
  const Array tiled2 = array("bf16", {16, 256}, {1, 0}, {{8, 128}, {2, 1}});
  const Array tiled3 = array("bf16", {2, 8, 256}, {2, 1, 0}, {{8, 128}, {2, 1}});
  const Array vector128 = array("f32", {128}, {0}, {{128}});
  const Array row128 = array("f32", {1, 128}, {1, 0}, {{1, 128}});
  const std::vector<std::pair<Array, Array>> cases = {
      {tiled2, tiled3},
      {tiled3, tiled2},
      {vector128, row128},
      {row128, vector128},
      {array("bf16", {2, 4}), array("s8", {16})},
      {array("s8", {2, 8}), array("bf16", {2, 4})},
      // bf16[1,128,128,512]{3,2,1,0:T(8,128)(2,1)} -> s8[...]{0:T(1024)(128)(4,1)}, smaller.
      {array("bf16", {1, 8, 16, 128}, {3, 2, 1, 0}, {{8, 128}, {2, 1}}),
       array("s8", {32768}, {0}, {{1024}, {128}, {4, 1}})},
      // Not from the corpus: the README's reordering inside tiles, and scalars.
      {array("f32", {4, 4}, {1, 0}, {{2, 2}}), array("f32", {4, 4}, {1, 0})},
      {array("f32", {}), array("s8", {4})},
      {array("s8", {2, 2}, {0, 1}), array("f32", {})},
      {array("bf16", {}), array("s8", {1, 2}, {1, 0}, {{2, 2}})},
  };
  for (const auto& [from, to] : cases) {
    const OpCase c = bitcast_case(from, to);
    check_case(c, true, true, coverage);
  }
  // The README's example: bf16[16,256] tiled -> bf16[2,8,256] tiled is the reshape (d0 * 8 + d1, d2).
  const Relation reads = bitcast_case(tiled2, tiled3).reads[0];
  std::size_t reshaped = 0;
  for (const Point& p : reads.points) reshaped += reads.to(p) == Ints{p[0] * 8 + p[1], p[2]} ? 1 : 0;
  CHECK(reshaped == 4096);
  CHECK(reads.points.size() == 4096);
}

TEST_CASE("xla-compat mode: bitcast without tiles, equal widths: same relation (sanity)",
          "[indexing][physical][bruteforce]") {
  const OpCase c = bitcast_case(array("f32", {3, 4}, {0, 1}), array("f32", {12}, {0}));
  const Parsed p = parse(c.module_text());
  indexing::IndexingAnalysis analysis(p.module(), indexing::AnalysisOptions{indexing::MapStyle::kXla, true});
  const std::vector<MapSet> o2i = analysis.output_to_input(p.computation, p.instruction, 0);
  REQUIRE(o2i.size() == 1);
  Coverage coverage;
  check_set(o2i[0], c.reads[0], "output -> operand (xla-compat)", element_named("output"), coverage);
}

}  // namespace test_indexing_physical_bruteforce_cases
