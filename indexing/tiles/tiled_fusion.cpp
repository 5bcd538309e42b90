#include "indexing/tiles/tiled_fusion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/maps/count.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/op_context.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "simplify/expr_print.hpp"

namespace hlo_index::tiles {

namespace {

using indexing::Domain;
using indexing::IndexingMap;
using simplify::Var;
using simplify::Variable;
using simplify::VarKind;

std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t k_max = std::int64_t{1} << 62;
  return b > 0 && a > k_max / b ? k_max : a * b;
}

std::size_t minor_dimension(const hlo::Shape& shape) {
  if (shape.layout && !shape.layout->minor_to_major.empty())
    return static_cast<std::size_t>(shape.layout->minor_to_major.front());
  return shape.dims.empty() ? 0 : shape.dims.size() - 1;
}

std::int64_t memory_space_of(const hlo::Shape& shape) { return shape.layout ? shape.layout->memory_space : 0; }

const hlo::Shape* array_leaf(const hlo::Shape& shape, std::size_t element) {
  if (!shape.is_tuple) return &shape;
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  return element < leaves.size() ? leaves[element] : nullptr;
}

TiledEntry make_entry(const hlo::Module& module, const hlo::Computation& c, std::uint32_t instruction,
                      const hlo::Shape& shape, IndexingMap map) {
  const hlo::Instruction& i = c.instructions[instruction];
  TiledEntry e;
  e.instruction = instruction;
  e.name = std::string(i.name);
  e.opcode = std::string(module.opcode_text(i));
  e.dims = indexing::dimension_sizes(shape);
  e.element_bits = hlo::element_type_bits(shape.type);
  e.minor = minor_dimension(shape);
  e.memory_space = memory_space_of(shape);
  if (map.is_defined()) indexing::simplify(map, indexing::SimplifyPolicy::kExact);
  e.derivation = derive_symbolic_tile(map);
  if (map.is_defined()) {
    for (const Variable& v : map.domain().variables(VarKind::kRange)) {
      if (v.contracted)
        e.contracted_elements = saturating_product(e.contracted_elements, v.bounds.hi - v.bounds.lo + 1);
    }
  }
  e.map = std::move(map);
  return e;
}

// Restricts the contracted range variables of `map` to one step of `k_tile` elements, filled from the
// last variable (the minor one of a flattened K); returns the steps the whole extent takes.
std::int64_t restrict_to_k_step(IndexingMap& map, std::int64_t k_tile) {
  std::vector<Variable>& ranges = map.domain().variables(VarKind::kRange);
  std::int64_t left = std::max<std::int64_t>(k_tile, 1), steps = 1;
  for (std::size_t j = ranges.size(); j-- > 0;) {
    Variable& v = ranges[j];
    if (!v.contracted) continue;
    const std::int64_t n = v.bounds.hi - v.bounds.lo + 1, step = std::min(n, left);
    left = left >= n ? left / n : 1;
    v.bounds.hi = v.bounds.lo + step - 1;
    steps = saturating_product(steps, (n + step - 1) / step);
  }
  return steps;
}

// The variables of the counting maps: k_i (tile index), r_i (position in the tile) per root dimension,
// then the map's range variables, then its runtime variables (as range variables: every value).
struct TileSpace {
  std::size_t rank = 0, ranges = 0;
  Var k(std::size_t i) const { return {VarKind::kRange, static_cast<std::uint32_t>(i)}; }
  Var r(std::size_t i) const { return {VarKind::kRange, static_cast<std::uint32_t>(rank + i)}; }
  Var range(std::size_t j) const { return {VarKind::kRange, static_cast<std::uint32_t>(2 * rank + j)}; }
  Var runtime(std::size_t j) const { return {VarKind::kRange, static_cast<std::uint32_t>(2 * rank + ranges + j)}; }
};

// { (k, f(k * s + r)) }: each tile's index with the elements it reads.
IndexingMap reads_map(const IndexingMap& map, std::span<const std::int64_t> sizes, std::span<const std::int64_t> tiles,
                      std::span<const std::int64_t> root_dims, const std::vector<std::size_t>& results) {
  const TileSpace space{sizes.size(), map.range_count()};
  std::vector<Variable> ranges;
  for (std::size_t i = 0; i < space.rank; ++i) ranges.push_back({{0, tiles[i] - 1}, {}});
  for (std::size_t i = 0; i < space.rank; ++i) ranges.push_back({{0, sizes[i] - 1}, {}});
  for (const Variable& v : map.domain().variables(VarKind::kRange)) ranges.push_back({v.bounds, {}});
  for (const Variable& v : map.domain().variables(VarKind::kRuntime)) ranges.push_back({v.bounds, {}});
  auto subst = [&](const Expr& e) {
    return simplify::substitute(e, [&](Var v) {
      switch (v.kind) {
        case VarKind::kDim: return Expr::variable(space.k(v.index)) * sizes[v.index] + Expr::variable(space.r(v.index));
        case VarKind::kRange: return Expr::variable(space.range(v.index));
        case VarKind::kRuntime: break;
      }
      return Expr::variable(space.runtime(v.index));
    });
  };
  std::vector<Expr> out;
  for (std::size_t i = 0; i < space.rank; ++i) out.push_back(Expr::variable(space.k(i)));
  for (std::size_t j : results) out.push_back(subst(map.results()[j]));
  IndexingMap m(Domain({}, std::move(ranges), {}), std::move(out));
  for (std::size_t i = 0; i < space.rank; ++i) {
    // The root index within the root and within the map's domain (a concatenate's operand: its part).
    const Interval& b = map.domain().variables(VarKind::kDim)[i].bounds;
    const Interval within{std::max<std::int64_t>(b.lo, 0), std::min(b.hi, root_dims[i] - 1)};
    if (within.lo > 0 || within.hi < tiles[i] * sizes[i] - 1)
      m.add_constraint(Expr::variable(space.k(i)) * sizes[i] + Expr::variable(space.r(i)), within);
  }
  for (const simplify::Constraint& c : map.domain().constraints()) m.add_constraint(subst(c.expr), c.interval);
  return m;
}

// The offset of an entry's dimension `j` for the tile at k * s (range variables at their lower bound,
// runtime variables at 0), as an expression of the tile index variables k (or of given values).
Expr offset_expr(const IndexingMap& map, std::size_t j, std::span<const std::int64_t> sizes) {
  const TileSpace space{sizes.size(), map.range_count()};
  return simplify::substitute(map.results()[j], [&](Var v) {
    switch (v.kind) {
      case VarKind::kDim: return Expr::variable(space.k(v.index)) * sizes[v.index];
      case VarKind::kRange: return Expr::constant(map.domain().bounds(v).lo);
      case VarKind::kRuntime: break;
    }
    return Expr::constant(0);
  });
}

// { (k, o(k) + m * stride) : within bounds } over the dimensions `results` of the entry.
IndexingMap box_map(const IndexingMap& map, const ConcreteEntry& e, std::span<const std::int64_t> sizes,
                    std::span<const std::int64_t> tiles, std::span<const std::int64_t> dims,
                    const std::vector<std::size_t>& results) {
  const std::size_t rank = sizes.size();
  std::vector<Variable> ranges;
  for (std::size_t i = 0; i < rank; ++i) ranges.push_back({{0, tiles[i] - 1}, {}});
  for (std::size_t j : results) ranges.push_back({{0, std::max<std::int64_t>(e.sizes[j], 1) - 1}, {}});
  std::vector<Expr> out;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(Expr::range(static_cast<std::uint32_t>(i)));
  for (std::size_t n = 0; n < results.size(); ++n) {
    const std::size_t j = results[n];
    const Expr m = Expr::range(static_cast<std::uint32_t>(rank + n));
    out.push_back(e.whole[j] ? m : offset_expr(map, j, sizes) + m * e.strides[j]);
  }
  std::vector<Expr> bounded(out.begin() + static_cast<std::ptrdiff_t>(rank), out.end());
  IndexingMap b(Domain({}, std::move(ranges), {}), std::move(out));
  for (std::size_t n = 0; n < results.size(); ++n) b.add_constraint(bounded[n], {0, dims[results[n]] - 1});
  return b;
}

void count_entry(const TiledEntry& entry, const std::vector<std::int64_t>& root_dims, const ConcreteTiling& t,
                 ConcreteEntry& e) {
  const IndexingMap& map = entry.map;
  std::vector<std::size_t> all(map.results().size());
  for (std::size_t j = 0; j < all.size(); ++j) all[j] = j;
  const bool runtime = map.runtime_count() > 0;
  if (runtime) {
    e.counts_exact = false;
    e.note += (e.note.empty() ? "" : "; ") + std::string("offsets read at run time: counts over every value");
  }
  // Per dimension: does the box cover the projection of each tile's reads? Else the whole dimension.
  if (!runtime) {
    for (std::size_t j : all) {
      if (e.whole[j]) continue;
      const IndexingMap reads = reads_map(map, t.sizes, t.tiles_per_dimension, root_dims, {j});
      const IndexingMap box = box_map(map, e, t.sizes, t.tiles_per_dimension, entry.dims, {j});
      const indexing::Count boxed = indexing::count_image(box);
      const std::vector<IndexingMap> both{reads, box};
      const indexing::Count joined = indexing::count_union_image(both);
      if (!boxed.exact || !joined.exact) e.counts_exact = false;
      if (boxed.exact && joined.exact && boxed.value == joined.value) continue;
      e.whole[j] = true;
      e.offsets[j] = 0;
      e.sizes[j] = entry.dims[j];
      e.strides[j] = 1;
      e.note += (e.note.empty() ? "" : "; ") +
                fmt::format("dimension {}: the tile's box misses elements its reads reach: taken whole", j);
    }
  }
  const IndexingMap reads = reads_map(map, t.sizes, t.tiles_per_dimension, root_dims, all);
  const indexing::Count r = indexing::count_image(reads);
  e.reads = r.value;
  std::vector<Expr> elements(reads.results().begin() + static_cast<std::ptrdiff_t>(t.sizes.size()),
                             reads.results().end());
  IndexingMap flat(reads.domain(), std::move(elements));
  const indexing::Count d = indexing::count_image(flat);
  e.distinct = d.value;
  if (!r.exact || !d.exact) e.counts_exact = false;
  if (!runtime) {
    const indexing::Count b = indexing::count_image(box_map(map, e, t.sizes, t.tiles_per_dimension, entry.dims, all));
    e.box_elements = b.value;
    if (!b.exact) e.counts_exact = false;
    e.covers = e.counts_exact;
    e.exact = e.covers && b.value == r.value;
  }
  e.counted = true;
}

// Where XLA has no usable tile: a box from the reads of tile 0, enumerated (at most k_enumerated points):
// per dimension the values read, when they are a progression from the value at the tile's origin.
// The counts then check it for every tile. False: no such box (or too many points).
constexpr std::int64_t k_enumerated = std::int64_t{1} << 16;

bool box_from_first_tile(const TiledEntry& entry, std::span<const std::int64_t> root_dims,
                         std::span<const std::int64_t> sizes, ConcreteEntry& e) {
  const IndexingMap& map = entry.map;
  if (map.runtime_count() > 0) return false;
  std::vector<std::int64_t> extent;
  std::int64_t points = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) extent.push_back(std::min(sizes[i], root_dims[i]));
  const auto& ranges = map.domain().variables(VarKind::kRange);
  for (const Variable& v : ranges) extent.push_back(v.bounds.hi - v.bounds.lo + 1);
  for (std::int64_t x : extent) {
    if (x <= 0) return false;
    points *= x;
    if (points > k_enumerated) return false;
  }
  const std::size_t rank = sizes.size(), results = map.results().size();
  std::vector<std::vector<std::int64_t>> values(results);
  std::vector<std::int64_t> at(extent.size(), 0), dims(rank), range(ranges.size());
  while (true) {
    for (std::size_t i = 0; i < rank; ++i) dims[i] = at[i];
    for (std::size_t j = 0; j < ranges.size(); ++j) range[j] = ranges[j].bounds.lo + at[rank + j];
    const simplify::VarValues v{dims, range, {}};
    bool in_domain = true;
    for (std::size_t i = 0; i < rank; ++i)
      in_domain = in_domain && map.domain().variables(VarKind::kDim)[i].bounds.contains(dims[i]);
    const bool inside = in_domain && std::all_of(map.domain().constraints().begin(), map.domain().constraints().end(),
                                                 [&](const simplify::Constraint& c) {
                                                   return c.interval.contains(simplify::evaluate(c.expr, v));
                                                 });
    if (inside) {
      for (std::size_t j = 0; j < results; ++j) values[j].push_back(simplify::evaluate(map.results()[j], v));
    }
    std::size_t i = extent.size();
    while (i > 0 && ++at[i - 1] == extent[i - 1]) at[--i] = 0;
    if (i == 0) break;
  }
  if (!values.empty() && values[0].empty()) return false;
  std::vector<std::int64_t> zeros(rank, 0), lows;
  for (const Variable& r : ranges) lows.push_back(r.bounds.lo);
  const simplify::VarValues origin{zeros, lows, {}};
  for (std::size_t j = 0; j < results; ++j) {
    std::vector<std::int64_t>& vs = values[j];
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
    const std::int64_t step = vs.size() > 1 ? vs[1] - vs[0] : 1;
    for (std::size_t n = 1; n < vs.size(); ++n)
      if (vs[n] - vs[n - 1] != step) return false;
    const std::int64_t first = simplify::evaluate(map.results()[j], origin);
    if (first == vs.front()) {
      e.strides[j] = step;
    } else if (first == vs.back()) {
      e.strides[j] = -step;
    } else {
      return false;
    }
    e.offsets[j] = first;
    e.sizes[j] = static_cast<std::int64_t>(vs.size());
    e.whole[j] = false;
  }
  return true;
}

}  // namespace

bool TiledFusion::reached(std::uint32_t fused) const {
  return std::any_of(entries.begin(), entries.end(), [fused](const TiledEntry& e) { return e.instruction == fused; });
}

std::vector<std::int64_t> candidate_sizes(std::int64_t dimension) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 1; p < dimension; p *= 2) out.push_back(p);
  out.push_back(std::max<std::int64_t>(dimension, 1));
  return out;
}

TiledFusion tile_instruction(analysis::ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  TiledFusion out;
  out.computation = out.body = computation;
  out.instruction = instruction;
  out.name = std::string(instr.name);
  const hlo::Shape& shape = module.shape_of(instr);
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  if (leaves.empty() || leaves[0]->is_tuple || !leaves[0]->element_count()) {
    out.undefined_reason = "the instruction has no array output of known size to tile";
    return out;
  }
  const hlo::Shape& root = *leaves[0];
  out.root_dims = indexing::dimension_sizes(root);
  // One root tile tiles every output of output 0's dimensions.
  std::vector<std::size_t>& others = out.untiled_outputs;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const hlo::Shape& leaf = *leaves[k];
    if (k == 0 || (!leaf.is_tuple && leaf.element_count() && indexing::dimension_sizes(leaf) == out.root_dims)) {
      out.outputs.push_back({k, hlo::element_type_bits(leaf.type), minor_dimension(leaf), memory_space_of(leaf)});
    } else {
      others.push_back(k);
      if (!leaf.is_tuple && leaf.element_count() && memory_space_of(leaf) == 0) {
        out.untiled_output_bytes +=
            std::ceil(static_cast<double>(*leaf.element_count()) * hlo::element_type_bits(leaf.type) / 8);
      }
    }
  }
  if (leaves.size() > 1) {
    std::string note = fmt::format("multi-output: the root tile tiles all {} outputs", leaves.size());
    if (!others.empty()) {
      note = fmt::format(
          "multi-output: the root tile tiles {} of the {} outputs (not output{} {}: other dimensions, written "
          "once, untiled)",
          out.outputs.size(), leaves.size(), others.size() > 1 ? "s" : "", fmt::join(others, ", "));
    }
    out.notes.push_back(note + "; XLA tiles a multi-output fusion only when one root is the real root");
  }
  if (instr.opcode == hlo::Opcode::kFusion) {
    const auto body_memo = analysis.fused_body(computation, instruction);
    const analysis::FusedBody& body = *body_memo;
    if (!body.defined()) {
      out.undefined_reason = body.undefined_reason;
      return out;
    }
    out.body = body.callee;
    const hlo::Computation& fc = module.computations[body.callee];
    // What the tiled outputs reach, each (instruction, element) with its distinct maps.
    std::map<std::pair<std::uint32_t, std::size_t>, indexing::MapSet> reached;
    for (const TiledOutput& o : out.outputs) {
      if (o.index >= body.to_instruction.size()) continue;
      for (const auto& [key, maps] : body.to_instruction[o.index]) {
        indexing::MapSet& into = reached[key];
        for (const IndexingMap& m : maps) {
          if (std::find(into.begin(), into.end(), m) == into.end()) into.push_back(m);
        }
      }
    }
    // Users before operands: the roots first, then by descending position in the body.
    for (auto it = reached.rbegin(); it != reached.rend(); ++it) {
      const auto& [key, maps] = *it;
      const hlo::Instruction& fi = fc.instructions[key.first];
      const hlo::Shape* leaf = array_leaf(module.shape_of(fi), key.second);
      if (leaf == nullptr || leaf->is_tuple || !leaf->element_count()) continue;
      for (const IndexingMap& m : maps) {
        TiledEntry e = make_entry(module, fc, key.first, *leaf, m);
        e.root = key.first == fc.root;
        if (e.root) e.output = key.second;
        if (fi.opcode == hlo::Opcode::kParameter) {
          e.reads_memory = true;
          e.parameter = fi.parameter_number;
        }
        out.entries.push_back(std::move(e));
      }
    }
    std::stable_sort(out.entries.begin(), out.entries.end(), [](const TiledEntry& a, const TiledEntry& b) {
      return a.root != b.root ? a.root : a.root && a.output < b.output;
    });
  } else {
    const auto operands = c.operands_of(instr);
    std::vector<indexing::MapSet> reads(operands.size());
    for (const TiledOutput& o : out.outputs) {
      out.entries.push_back(make_entry(module, c, instruction, *leaves[o.index], IndexingMap::identity(out.root_dims)));
      out.entries.back().root = true;
      out.entries.back().output = o.index;
      const std::vector<indexing::MapSet> maps = analysis.maps().output_to_input(computation, instruction, o.index);
      for (std::size_t p = 0; p < maps.size() && p < operands.size(); ++p) {
        for (const IndexingMap& m : maps[p]) {
          if (std::find(reads[p].begin(), reads[p].end(), m) == reads[p].end()) reads[p].push_back(m);
        }
      }
    }
    for (std::size_t p = 0; p < operands.size(); ++p) {
      const hlo::Shape& s = module.shape_of(c.instructions[operands[p]]);
      if (s.is_tuple || !s.element_count()) continue;
      for (const IndexingMap& m : reads[p]) {
        TiledEntry e = make_entry(module, c, operands[p], s, m);
        e.reads_memory = true;
        e.parameter = static_cast<std::int64_t>(p);
        out.entries.push_back(std::move(e));
      }
    }
  }
  // The elements of one multi-output instruction through one map are computed together.
  for (std::size_t k = 0; k < out.entries.size(); ++k) {
    for (std::size_t j = 0; j < k && out.entries[k].computes; ++j) {
      if (out.entries[j].instruction == out.entries[k].instruction && out.entries[j].map == out.entries[k].map)
        out.entries[k].computes = false;
    }
  }
  out.constraints = TileConstraints::always();
  out.all_tiled = true;
  bool reduces = false;
  for (const TiledEntry& e : out.entries) {
    out.k_extent = std::max(out.k_extent, e.contracted_elements);
    if (e.map.is_defined()) {
      const auto& ranges = e.map.domain().variables(VarKind::kRange);
      reduces = reduces || std::any_of(ranges.begin(), ranges.end(), [](const Variable& v) { return !v.contracted; });
    }
    if (e.derivation.tile) {
      out.constraints = out.constraints && e.derivation.tile->constraints;
      if (!e.derivation.tile->constraints.satisfiable()) out.all_tiled = false;
    } else {
      out.all_tiled = false;
    }
  }
  out.constraints.simplify();
  if (out.k_extent > 1)
    out.notes.push_back(fmt::format(
        "contracted dimensions (a dot's or convolution's, K = {}) are tiled by a K step of their own, as XLA tiles a "
        "dot's contracting dimension: each tile loops over K, reading one step's tile of each operand at a time",
        out.k_extent));
  if (reduces) out.notes.emplace_back("reduced dimensions are read whole by each tile");
  return out;
}

KStepTiles k_step_tiles(const TiledFusion& fusion, std::int64_t k_tile) {
  KStepTiles out;
  out.k_tile = fusion.k_extent > 1 ? std::clamp<std::int64_t>(k_tile, 1, fusion.k_extent) : 0;
  out.steps.assign(fusion.entries.size(), 1);
  out.tiles.resize(fusion.entries.size());
  if (out.k_tile == 0) return out;
  for (std::size_t k = 0; k < fusion.entries.size(); ++k) {
    const TiledEntry& e = fusion.entries[k];
    if (e.contracted_elements <= out.k_tile || !e.map.is_defined()) continue;
    IndexingMap step = e.map;
    out.steps[k] = restrict_to_k_step(step, out.k_tile);
    TileDerivation d = derive_symbolic_tile(step);
    if (d.tile) out.tiles[k] = std::move(*d.tile);
  }
  return out;
}

std::vector<std::int64_t> k_tile_candidates(const TiledFusion& fusion) {
  if (fusion.k_extent <= 1) return {0};
  return candidate_sizes(fusion.k_extent);
}

ConcreteTiling concrete_tiling(const TiledFusion& fusion, std::span<const std::int64_t> sizes, bool count,
                               const KStepTiles* k) {
  ConcreteTiling t;
  t.sizes.assign(sizes.begin(), sizes.end());
  if (k != nullptr) t.k_tile = k->k_tile;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t n = (fusion.root_dims[i] + sizes[i] - 1) / sizes[i];
    t.tiles_per_dimension.push_back(n);
    t.tiles *= n;
  }
  t.constraints_hold = fusion.constraints.holds(sizes);
  for (const TiledEntry& entry : fusion.entries) {
    ConcreteEntry e;
    const std::size_t rank = entry.dims.size();
    e.whole.assign(rank, true);
    e.offsets.assign(rank, 0);
    e.sizes = entry.dims;
    e.strides.assign(rank, 1);
    if (!entry.map.is_defined()) {
      e.note = "no maps: " + entry.map.undefined_reason();
      e.counts_exact = false;
      t.entries.push_back(std::move(e));
      continue;
    }
    if (const auto& tile = entry.derivation.tile; tile && tile->constraints.satisfiable()) {
      const bool holds = tile->constraints.holds(sizes);
      e.symbolic = holds;
      if (holds || count) {
        e.offsets = evaluate_offsets(*tile, sizes);
        e.sizes = evaluate_sizes(*tile, sizes);
        e.strides = evaluate_strides(*tile, sizes);
        e.whole.assign(rank, false);
      }
      if (!holds) e.note = "XLA's constraints do not hold: " + tile->constraints.to_string();
    } else {
      e.note = "XLA has no tile: " + entry.derivation.reason;
    }
    if (count && !e.symbolic) {
      // Whatever XLA says, the exact counts decide: first a box read off tile 0, checked on every tile.
      ConcreteEntry candidate = e;
      candidate.offsets.assign(rank, 0);
      candidate.sizes = entry.dims;
      candidate.strides.assign(rank, 1);
      candidate.whole.assign(rank, true);
      if (box_from_first_tile(entry, fusion.root_dims, sizes, candidate)) e = std::move(candidate);
    }
    if (count) count_entry(entry, fusion.root_dims, t, e);
    e.step_sizes = e.sizes;
    e.step_strides = e.strides;
    if (const std::size_t n = t.entries.size(); k != nullptr && k->steps[n] > 1) {
      // One step's tile where the entry's own tile holds (else it reads its tile, whole K, at once).
      const std::optional<SymbolicTile>& step = k->tiles[n];
      const bool holds = step && step->constraints.holds(sizes);
      if (holds && e.symbolic) {
        e.steps = k->steps[n];
        e.step_sizes = evaluate_sizes(*step, sizes);
        e.step_strides = evaluate_strides(*step, sizes);
        t.k_steps = std::max(t.k_steps, e.steps);
      }
      if (!holds) {
        t.constraints_hold = t.k_steps_hold = false;
        e.note +=
            (e.note.empty() ? "" : "; ") +
            std::string(step ? "XLA's constraints of one K step's tile do not hold: " + step->constraints.to_string()
                             : "one K step has no tile: the tile reads its whole contracted extent at once");
      }
    }
    t.entries.push_back(std::move(e));
  }
  return t;
}

TileBox tile_box(const TiledFusion& fusion, const ConcreteTiling& tiling, std::size_t entry,
                 std::span<const std::int64_t> tile) {
  const TiledEntry& te = fusion.entries[entry];
  const ConcreteEntry& ce = tiling.entries[entry];
  TileBox box{ce.offsets, ce.sizes, ce.strides};
  for (std::size_t j = 0; j < box.offsets.size(); ++j) {
    if (ce.whole[j]) continue;
    const Expr o = offset_expr(te.map, j, tiling.sizes);
    box.offsets[j] = simplify::evaluate(o, simplify::VarValues{{}, tile, {}});
  }
  return box;
}

}  // namespace hlo_index::tiles
