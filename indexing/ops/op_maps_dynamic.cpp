// dynamic-slice, dynamic-update-slice and gather: ops whose offsets are
// runtime values. An offset is a runtime variable rt whose interval is the
// clamped range [0, dim - size]: rt stands for the offset after XLA's
// clamping, and its source says which element of which operand holds the
// unclamped value. Offsets held by a scalar constant or an iota are folded,
// with the clamp applied (an iota clamps piecewise); in the exact style so
// are offsets the computation derives from constants and iotas
// (integer_values): an expression clamped piecewise, or a table as one piece
// per run of equal clamped values.
#include <algorithm>
#include <charconv>
#include <functional>

#include "indexing/maps/inverse.hpp"
#include "indexing/ops/integer_values.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::optional<std::int64_t> scalar_integer_constant(const OpContext& op, std::size_t operand) {
  const hlo::Instruction& producer = op.operand(operand);
  if (producer.opcode != hlo::Opcode::kConstant || !op.operand_shape(operand).dims.empty()) return std::nullopt;
  std::string_view text = producer.literal;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The offsets of one op, each either folded or a runtime variable, and the
// pieces (combinations of folding cases) the maps are built from.
class Offsets {
public:
  Offsets(const OpContext& op, MapStyle style, std::vector<std::int64_t> dims, std::vector<std::int64_t> ranges)
      : m_op(op), m_style(style), m_dims(std::move(dims)), m_ranges(std::move(ranges)) {}

  /// The offset held by element `element` (over this map's domain) of
  /// operand `operand`, clamped to [0, limit].
  void add(std::size_t operand, std::vector<Expr> element, std::int64_t limit) {
    if (limit < 0) throw Unsupported("the slice is larger than the operand");
    const hlo::Instruction& producer = m_op.operand(operand);
    if (auto value = scalar_integer_constant(m_op, operand)) {
      if (m_style == MapStyle::kExact || (*value >= 0 && *value <= limit)) {
        m_choices.push_back({{Expr::constant(std::clamp<std::int64_t>(*value, 0, limit)), {}}});
        return;
      }
      m_approximate = true;  // XLA keeps an out-of-range constant as a runtime variable
    } else if (producer.opcode == hlo::Opcode::kIota) {
      auto dimension = parser::int_attribute(m_op.computation, producer, "iota_dimension");
      if (dimension && sz(*dimension) < element.size()) {
        m_choices.push_back(clamped(element[sz(*dimension)], limit));
        return;
      }
    } else if (m_style == MapStyle::kExact) {
      // Values computed from constants and iotas (in this computation) are known.
      if (auto known = known_integer_values(m_op.module, m_op.computation, m_op.operand_index(operand))) {
        if (add_known(operand, *known, element, limit)) return;
      }
    }
    add_runtime(operand, std::move(element), limit, Interval{0, limit});
  }
  /// One map per combination of folding cases; `fill` sets the results
  /// (and any constraints) from the offsets' values.
  MapSet maps(const std::function<void(IndexingMap&, const std::vector<Expr>&)>& fill) const {
    MapSet out;
    std::vector<std::size_t> pick(m_choices.size(), 0);
    while (true) {
      IndexingMap map(domain(), {});
      std::vector<Expr> values;
      for (std::size_t i = 0; i < m_choices.size(); ++i) {
        const Choice& c = m_choices[i][pick[i]];
        values.push_back(c.value);
        for (const auto& [e, interval] : c.conditions) map.add_constraint(e, interval);
      }
      fill(map, values);
      map.runtime_sources() = m_sources;
      if (m_approximate) map.mark_approximate("as XLA: an out-of-range constant offset kept as a runtime variable");
      if (!map.is_known_empty() || out.empty()) out.push_back(std::move(map));
      std::size_t i = 0;
      while (i < pick.size() && ++pick[i] == m_choices[i].size()) pick[i++] = 0;
      if (i == pick.size()) break;
    }
    return out;
  }

private:
  struct Choice {
    Expr value;
    std::vector<std::pair<Expr, Interval>> conditions;
  };

  // Offsets of known values become at most this many pieces each, and all
  // offsets of one op at most k_max_combinations maps; past that a runtime
  // variable narrowed to the values' range stands for them.
  static constexpr std::size_t k_max_pieces = 64;
  static constexpr std::size_t k_max_combinations = 4096;

  // A runtime variable for the offset, over `values` (within [0, limit]).
  void add_runtime(std::size_t operand, std::vector<Expr> element, std::int64_t limit, Interval values) {
    const auto r = u32(m_runtime.size());
    m_runtime.push_back(Variable{values, {}});
    RuntimeSource source;
    source.source = source_name(m_op.operand(operand), operand);
    source.map = std::make_shared<const IndexingMap>(build::map(m_dims, std::move(element), m_ranges));
    source.operand = static_cast<std::int64_t>(operand);
    source.instruction = m_op.operand_index(operand);
    source.feasible = Interval{0, limit};
    m_sources.push_back(std::move(source));
    m_choices.push_back({{Expr::runtime(r), {}}});
  }

  // The offset e (an expression over this map's domain) clamped to [0, limit]:
  // piecewise where it leaves the range.
  std::vector<Choice> clamped(const Expr& e, std::int64_t limit) const {
    std::vector<Choice> choices;
    const Interval range = simplify::RangeEvaluator(domain(), false)(e);
    if (range.lo < 0) choices.push_back({Expr::constant(0), {{e, Interval{range.lo, -1}}}});
    if (range.hi > limit) choices.push_back({Expr::constant(limit), {{e, Interval{limit + 1, range.hi}}}});
    if (choices.empty()) {
      choices.push_back({e, {}});
    } else if (range.lo <= limit && range.hi >= 0) {
      choices.push_back({e, {{e, Interval{0, limit}}}});
    }
    return choices;
  }

  std::size_t combinations() const {
    std::size_t n = 1;
    for (const auto& c : m_choices) n *= c.size();
    return n;
  }

  // An offset whose values are known: an expression of the element's index
  // (clamped piecewise), or a table: one piece per run of equal clamped
  // values along the last dimension of the elements the domain can name, or
  // past the bounds a runtime variable over the clamped values' range.
  bool add_known(std::size_t operand, const KnownIntegerValues& known, std::vector<Expr> element, std::int64_t limit) {
    if (known.dims.size() != element.size()) return false;
    if (known.expression) {
      m_choices.push_back(
          clamped(simplify::substitute(*known.expression, [&](Var v) { return element.at(v.index); }), limit));
      return true;
    }
    const std::vector<std::int64_t>& table = *known.table;
    const Domain over = domain();
    const simplify::RangeEvaluator range(over, false);
    std::vector<Interval> box;
    for (std::size_t k = 0; k < element.size(); ++k) {
      box.push_back(range(element[k]).intersect(Interval{0, known.dims[k] - 1}));
      if (box.back().empty()) return false;
    }
    // Runs go along the last dimension with more than one position (index
    // vectors often have a trailing dimension of one).
    std::size_t run = box.empty() ? 0 : box.size() - 1;
    while (run > 0 && box[run].lo == box[run].hi) --run;
    std::vector<std::size_t> order;  // outermost first, `run` last
    for (std::size_t k = 0; k < box.size(); ++k) {
      if (k != run) order.push_back(k);
    }
    if (!box.empty()) order.push_back(run);
    std::vector<Choice> pieces;
    Interval values{limit, 0};                // empty until the first value
    std::vector<std::int64_t> p(box.size());  // the position, from the box's first corner
    for (std::size_t k = 0; k < box.size(); ++k) p[k] = box[k].lo;
    while (true) {
      std::int64_t at = 0;
      for (std::size_t k = 0; k < p.size(); ++k) at = at * known.dims[k] + p[k];
      const std::int64_t v = std::clamp<std::int64_t>(table.at(sz(at)), 0, limit);
      values = Interval{std::min(values.lo, v), std::max(values.hi, v)};
      // A new piece at the start of each run and wherever the value changes.
      const bool run_start = p.empty() || p[run] == box[run].lo;
      if (run_start || pieces.back().value.constant_value() != v) {
        Choice piece{Expr::constant(v), {}};
        for (std::size_t k : order) piece.conditions.emplace_back(element[k], Interval::point(p[k]));
        pieces.push_back(std::move(piece));
      } else {
        pieces.back().conditions.back().second.hi = p[run];
      }
      std::size_t i = order.size();
      while (i > 0 && p[order[i - 1]] == box[order[i - 1]].hi) {
        p[order[i - 1]] = box[order[i - 1]].lo;
        --i;
      }
      if (i == 0) break;
      ++p[order[i - 1]];
    }
    if (values.lo == values.hi) {
      m_choices.push_back({{Expr::constant(values.lo), {}}});
    } else if (pieces.size() <= k_max_pieces && combinations() * pieces.size() <= k_max_combinations) {
      m_choices.push_back(std::move(pieces));
    } else {
      add_runtime(operand, std::move(element), limit, values);
    }
    return true;
  }

  Domain domain() const { return Domain(build::variables(m_dims), build::variables(m_ranges), m_runtime); }

  std::string source_name(const hlo::Instruction& producer, std::size_t operand) const {
    if (producer.opcode == hlo::Opcode::kParameter)
      return "parameter(" + std::to_string(producer.parameter_number) + ")";
    if (auto value = scalar_integer_constant(m_op, operand)) return "constant(" + std::to_string(*value) + ")";
    if (producer.opcode == hlo::Opcode::kConstant) return "constant";
    return std::string(producer.name);
  }

  const OpContext& m_op;
  MapStyle m_style;
  std::vector<std::int64_t> m_dims, m_ranges;
  std::vector<Variable> m_runtime;
  std::vector<RuntimeSource> m_sources;
  std::vector<std::vector<Choice>> m_choices;
  bool m_approximate = false;
};

// Scalar offsets (one operand per dimension) from operand `first` on.
void check_scalar_offsets(const OpContext& op, std::size_t first, std::size_t rank) {
  if (op.operand_count() != first + rank) {
    throw Unsupported("expected one scalar offset per dimension (the vector-offset form is not supported)");
  }
  for (std::size_t k = first; k < op.operand_count(); ++k) {
    if (!op.operand_dims(k).empty()) throw Unsupported("offsets must be scalars");
  }
}

// Scalar offsets in operands first, first + 1, ...: offset i places a
// window of size window[i] in a dimension of size full[i]. `domain` are the
// dimensions of the maps built from them.
Offsets scalar_offsets(const OpContext& op, MapStyle style, const std::vector<std::int64_t>& domain, std::size_t first,
                       const std::vector<std::int64_t>& full, const std::vector<std::int64_t>& window) {
  Offsets offsets(op, style, domain, {});
  for (std::size_t i = 0; i < full.size(); ++i) offsets.add(first + i, {}, full[i] - window[i]);
  return offsets;
}

}  // namespace

//===--- dynamic-slice ---===//

std::vector<MapSet> o2i_dynamic_slice(const OpContext& op, MapStyle style) {
  const auto in = op.operand_dims(0), out = op.output_dims(0);
  check_scalar_offsets(op, 1, in.size());
  if (out.size() != in.size()) throw Unsupported("the slice rank differs from the operand rank");
  const Offsets offsets = scalar_offsets(op, style, out, 1, in, out);
  std::vector<MapSet> sets;
  sets.push_back(offsets.maps([&](IndexingMap& map, const std::vector<Expr>& v) {
    for (std::size_t i = 0; i < in.size(); ++i) map.results().push_back(Expr::dim(u32(i)) + v[i]);
  }));
  for (std::size_t i = 0; i < in.size(); ++i) sets.push_back({build::scalar(out)});
  return sets;
}

std::vector<MapSet> i2o_dynamic_slice(const OpContext& op, std::size_t operand, MapStyle style) {
  const auto in = op.operand_dims(0), out = op.output_dims(0);
  check_scalar_offsets(op, 1, in.size());
  if (operand > 0) return one_each({build::to_every_element(out)});
  return {scalar_offsets(op, style, in, 1, in, out).maps([&](IndexingMap& map, const std::vector<Expr>& v) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      Expr r = Expr::dim(u32(i)) - v[i];
      map.results().push_back(r);
      map.add_constraint(r, Interval{0, out[i] - 1});
    }
  })};
}

//===--- dynamic-update-slice ---===//

namespace {

// The output elements the update does not overwrite, as disjoint pieces:
// inside the update along the dimensions before k, outside along k.
void outside_update(IndexingMap& map, const std::vector<Expr>& v, const std::vector<std::int64_t>& out,
                    const std::vector<std::int64_t>& update, std::size_t k, bool below) {
  for (std::size_t j = 0; j < k; ++j) map.add_constraint(Expr::dim(u32(j)) - v[j], Interval{0, update[j] - 1});
  const Expr rel = Expr::dim(u32(k)) - v[k];
  map.add_constraint(rel, below ? Interval{-out[k], -1} : Interval{update[k], out[k]});
}

// Operand 0 of a dynamic-update-slice both ways: the pieces are identities.
std::vector<MapSet> dus_operand_maps(const OpContext& op, MapStyle style) {
  const auto out = op.output_dims(0), update = op.operand_dims(1);
  if (style == MapStyle::kXla || build::product(update) == 0) {
    IndexingMap identity = IndexingMap::identity(out);
    if (style == MapStyle::kXla && build::product(update) != 0)
      identity.mark_approximate("as XLA: the operand read under the update too");
    return one_each({std::move(identity)});
  }
  const Offsets offsets = scalar_offsets(op, style, out, 2, out, update);
  MapSet pieces;
  for (std::size_t k = 0; k < out.size(); ++k) {
    for (bool below : {true, false}) {
      for (IndexingMap& m : offsets.maps([&](IndexingMap&map, const std::vector<Expr>&v) {
             map.results() = build::dims(out.size());
             outside_update(map, v, out, update, k, below);
           })) {
        if (!m.is_known_empty()) pieces.push_back(std::move(m));
      }
    }
  }
  return {pieces};
}

}  // namespace

std::vector<MapSet> o2i_dynamic_update_slice(const OpContext& op, MapStyle style) {
  const auto out = op.output_dims(0), update = op.operand_dims(1);
  check_scalar_offsets(op, 2, out.size());
  if (update.size() != out.size()) throw Unsupported("the update rank differs from the operand rank");
  std::vector<MapSet> sets = dus_operand_maps(op, style);
  sets.push_back(scalar_offsets(op, style, out, 2, out, update).maps([&](IndexingMap& map, const std::vector<Expr>& v) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      Expr r = Expr::dim(u32(i)) - v[i];
      map.results().push_back(r);
      if (style == MapStyle::kExact) map.add_constraint(r, Interval{0, update[i] - 1});
    }
    // XLA reads the update over the whole output.
    if (style == MapStyle::kXla) map.mark_approximate("as XLA: the update read over the whole output");
  }));
  for (std::size_t i = 0; i < out.size(); ++i) sets.push_back({build::scalar(out)});
  return sets;
}

std::vector<MapSet> i2o_dynamic_update_slice(const OpContext& op, std::size_t operand, MapStyle style) {
  const auto out = op.output_dims(0), update = op.operand_dims(1);
  check_scalar_offsets(op, 2, out.size());
  if (operand == 0) return dus_operand_maps(op, style);
  if (operand > 1) return one_each({build::to_every_element(out)});
  return {scalar_offsets(op, style, update, 2, out, update).maps([&](IndexingMap& map, const std::vector<Expr>& v) {
    for (std::size_t i = 0; i < out.size(); ++i) map.results().push_back(Expr::dim(u32(i)) + v[i]);
  })};
}

//===--- gather ---===//

namespace {

struct Gather {
  parser::GatherDimensions dims;
  std::vector<std::int64_t> operand, indices, output;
  std::size_t index_vector_dim = 0;      // == indices.size(): an implicit trailing vector of one
  std::vector<std::size_t> batch_dims;   // output dimensions not in offset_dims
  std::vector<std::size_t> window_dims;  // operand dimensions neither collapsed nor batching, in order
  // Operand batching dimension -> the position in batch_dims of the indices'
  // batching dimension paired with it.
  std::vector<std::pair<std::size_t, std::size_t>> batching;
};

Gather gather(const OpContext& op) {
  if (op.operand_count() != 2) throw Unsupported("a gather with other than two operands");
  Gather g{parser::gather_dimensions(op.computation, op.instruction()),
           op.operand_dims(0),
           op.operand_dims(1),
           op.output_dims(0),
           0,
           {},
           {},
           {}};
  g.index_vector_dim = sz(g.dims.index_vector_dim);
  if (g.index_vector_dim > g.indices.size() || g.dims.slice_sizes.size() != g.operand.size()) {
    throw Unsupported("gather dimensions do not match the shapes");
  }
  const std::int64_t vector_size = g.index_vector_dim == g.indices.size() ? 1 : g.indices[g.index_vector_dim];
  if (static_cast<std::int64_t>(g.dims.start_index_map.size()) != vector_size) {
    throw Unsupported("start_index_map does not match the index vector");
  }
  for (std::size_t i = 0; i < g.output.size(); ++i) {
    if (!contains(g.dims.offset_dims, i)) g.batch_dims.push_back(i);
  }
  for (std::size_t k = 0; k < g.operand.size(); ++k) {
    if (!contains(g.dims.collapsed_slice_dims, k) && !contains(g.dims.operand_batching_dims, k))
      g.window_dims.push_back(k);
  }
  if (g.dims.operand_batching_dims.size() != g.dims.start_indices_batching_dims.size())
    throw Unsupported("operand_batching_dims and start_indices_batching_dims differ in length");
  for (std::size_t i = 0; i < g.dims.operand_batching_dims.size(); ++i) {
    const std::int64_t k = g.dims.operand_batching_dims[i], t = g.dims.start_indices_batching_dims[i];
    if (k < 0 || sz(k) >= g.operand.size() || t < 0 || sz(t) >= g.indices.size() || sz(t) == g.index_vector_dim ||
        contains(g.dims.start_index_map, sz(k)) || g.dims.slice_sizes[sz(k)] != 1)
      throw Unsupported("gather batching dimensions out of range");
    // The indices' dimensions other than the index vector are the output's batch dimensions, in order.
    g.batching.emplace_back(sz(k), sz(t) - (sz(t) > g.index_vector_dim ? 1 : 0));
  }
  const std::size_t batch_rank = g.indices.size() - (g.index_vector_dim < g.indices.size() ? 1 : 0);
  if (g.batch_dims.size() != batch_rank || g.window_dims.size() != g.dims.offset_dims.size()) {
    throw Unsupported("gather dimensions do not match the shapes");
  }
  for (std::int64_t k : g.dims.start_index_map) {
    if (k < 0 || sz(k) >= g.operand.size()) throw Unsupported("start_index_map out of range");
  }
  return g;
}

// The index into the indices operand of index-vector entry `entry` at batch
// position `batch`.
std::vector<Expr> indices_index(const Gather& g, const std::vector<Expr>& batch, const Expr& entry) {
  std::vector<Expr> out;
  std::size_t b = 0;
  for (std::size_t t = 0; t < g.indices.size(); ++t) {
    out.push_back(t == g.index_vector_dim ? entry : batch[b++]);
  }
  return out;
}

}  // namespace

// Output (batch..., offsets...) reads operand dimension k at start_k +
// offset_k: start_k is entry j of the index vector when start_index_map[j]
// is k (clamped to [0, dim - slice size]), else 0; offset_k is the output's
// offset dimension for a window dimension, 0 for a collapsed one. An operand
// batching dimension is read at the batch index of the indices' dimension
// paired with it (start_indices_batching_dims): exact, no runtime value.
std::vector<MapSet> o2i_gather(const OpContext& op, MapStyle style) {
  const Gather g = gather(op);
  std::vector<Expr> batch;
  for (std::size_t b : g.batch_dims) batch.push_back(Expr::dim(u32(b)));
  Offsets offsets(op, style, g.output, {});
  for (std::size_t j = 0; j < g.dims.start_index_map.size(); ++j) {
    const std::size_t k = sz(g.dims.start_index_map[j]);
    offsets.add(1, indices_index(g, batch, Expr::constant(static_cast<std::int64_t>(j))),
                g.operand[k] - g.dims.slice_sizes[k]);
  }
  std::vector<MapSet> sets;
  sets.push_back(offsets.maps([&](IndexingMap& map, const std::vector<Expr>& v) {
    std::vector<Expr> results(g.operand.size(), Expr::constant(0));
    for (std::size_t w = 0; w < g.window_dims.size(); ++w) {
      results[g.window_dims[w]] = Expr::dim(u32(sz(g.dims.offset_dims[w])));
    }
    for (std::size_t j = 0; j < v.size(); ++j) {
      const std::size_t k = sz(g.dims.start_index_map[j]);
      results[k] = results[k] + v[j];
    }
    for (const auto& [k, b] : g.batching) results[k] = batch[b];
    map.results() = std::move(results);
  }));
  const bool implicit_vector = g.index_vector_dim == g.indices.size();
  sets.push_back({build::map(
      g.output, indices_index(g, batch, Expr::range(0)),
      implicit_vector ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{g.indices[g.index_vector_dim]})});
  return sets;
}

namespace {

// Starts at most this many folded pieces are inverted exactly.
constexpr std::size_t k_max_inverted_pieces = 64;

// Operand -> output of a gather whose starts are all known (folded to
// pieces without runtime variables): the inverse of each piece, exact; none
// when a start is a runtime value.
std::optional<MapSet> inverted_known_starts(const OpContext& op) {
  const std::vector<MapSet> reads = o2i_gather(op, MapStyle::kExact);
  const MapSet& pieces = reads.at(0);
  if (pieces.size() > k_max_inverted_pieces) return std::nullopt;
  for (const IndexingMap& m : pieces) {
    if (!m.is_defined() || m.approximate() || m.runtime_count() != 0) return std::nullopt;
  }
  MapSet out;
  for (const IndexingMap& m : pieces) {
    for (IndexingMap& piece : inverse(m)) out.push_back(std::move(piece));
  }
  return out;
}

}  // namespace

std::vector<MapSet> i2o_gather(const OpContext& op, std::size_t operand, MapStyle style) {
  const Gather g = gather(op);
  if (operand == 0 && style == MapStyle::kExact) {
    if (auto known = inverted_known_starts(op)) return {std::move(*known)};
  }
  if (operand == 1) {
    // Index vector (batch, j) feeds every offset of its batch position.
    std::vector<Expr> results(g.output.size());
    std::vector<std::int64_t> ranges;
    std::size_t b = 0;
    for (std::size_t t = 0; t < g.indices.size(); ++t) {
      if (t == g.index_vector_dim) continue;
      results[g.batch_dims[b++]] = Expr::dim(u32(t));
    }
    for (std::int64_t o : g.dims.offset_dims) {
      results[sz(o)] = Expr::range(u32(ranges.size()));
      ranges.push_back(g.output[sz(o)]);
    }
    return one_each({build::map(g.indices, std::move(results), ranges)});
  }
  // Which batch positions read an operand element depends on the values of
  // the indices; without them, every start offset is possible: a superset.
  // A batch position whose indices dimension is a batching one is the operand's batching index.
  std::vector<Expr> results(g.output.size());
  std::vector<std::int64_t> ranges;
  for (std::size_t b = 0; b < g.batch_dims.size(); ++b) {
    const auto paired =
        std::find_if(g.batching.begin(), g.batching.end(), [b](const auto& p) { return p.second == b; });
    if (paired != g.batching.end()) {
      results[g.batch_dims[b]] = Expr::dim(u32(paired->first));
      continue;
    }
    results[g.batch_dims[b]] = Expr::range(u32(ranges.size()));
    ranges.push_back(g.output[g.batch_dims[b]]);
  }
  std::vector<Expr> start(g.operand.size(), Expr::constant(0));
  for (std::int64_t k : g.dims.start_index_map) {
    start[sz(k)] = Expr::range(u32(ranges.size()));
    ranges.push_back(g.operand[sz(k)] - g.dims.slice_sizes[sz(k)] + 1);
  }
  IndexingMap map = build::map(g.operand, {}, ranges);
  for (std::size_t w = 0; w < g.window_dims.size(); ++w) {
    const std::size_t k = g.window_dims[w];
    Expr offset = Expr::dim(u32(k)) - start[k];
    results[sz(g.dims.offset_dims[w])] = offset;
    map.add_constraint(offset, Interval{0, g.dims.slice_sizes[k] - 1});
  }
  for (std::int64_t k : g.dims.collapsed_slice_dims) {
    map.add_constraint(Expr::dim(u32(sz(k))) - start[sz(k)], Interval::point(0));
  }
  map.results() = std::move(results);
  map.mark_approximate("without the indices' values, every start offset");
  return one_each({std::move(map)});
}

}  // namespace hlo_index::indexing::detail
