// Ops that read ranges of their operands or pad them: reduce, dot, pad,
// reduce-window.
#include <algorithm>

#include "indexing/map_ops.hpp"
#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::uint32_t u32(std::size_t i) { return static_cast<std::uint32_t>(i); }

bool contains(const std::vector<std::int64_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) != v.end();
}

// A variadic op with n inputs followed by n init values.
std::size_t input_count(const OpContext& op) {
  if (op.operand_count() % 2 != 0 || op.operand_count() == 0)
    throw Unsupported("expected inputs and as many init values");
  return op.operand_count() / 2;
}

}  // namespace

//===--- reduce ---===//

std::vector<MapSet> o2i_reduce(const OpContext& op, std::size_t output) {
  const std::size_t n = input_count(op);
  const auto reduced = op.required_int_list("dimensions");
  const auto out = op.output_dims(output);
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = op.operand_dims(k);
    std::vector<Expr> results;
    std::vector<std::int64_t> range_sizes;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (contains(reduced, i)) {
        results.push_back(Expr::range(u32(range_sizes.size())));
        range_sizes.push_back(in[i]);
      } else {
        results.push_back(Expr::dim(u32(kept++)));
      }
    }
    if (kept != out.size()) throw Unsupported("reduce dimensions do not match the output rank");
    maps.push_back(build::map(out, std::move(results), range_sizes));
  }
  for (std::size_t k = 0; k < n; ++k) maps.push_back(build::scalar(out));
  return one_each(std::move(maps));
}

std::vector<MapSet> i2o_reduce(const OpContext& op, std::size_t operand) {
  const std::size_t n = input_count(op);
  const auto reduced = op.required_int_list("dimensions");
  std::vector<MapSet> sets;
  for (std::size_t j = 0; j < op.output_count(); ++j) {
    if (operand >= n) {
      sets.push_back({build::to_every_element(op.output_dims(j))});
      continue;
    }
    const auto in = op.operand_dims(operand);
    std::vector<Expr> results;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!contains(reduced, i)) results.push_back(Expr::dim(u32(i)));
    }
    sets.push_back({build::map(in, std::move(results))});
  }
  return sets;
}

//===--- dot ---===//

namespace {

struct DotLayout {
  parser::DotDimensions dims;
  std::vector<std::size_t> lhs_free, rhs_free;
};

DotLayout dot_layout(const OpContext& op) {
  if (op.operand_count() != 2) throw Unsupported("a dot with other than two operands");
  DotLayout l{parser::dot_dimensions(op.computation, op.instruction()), {}, {}};
  const auto lhs = op.operand_dims(0), rhs = op.operand_dims(1);
  for (std::size_t i = 0; i < lhs.size(); ++i) {
    if (!contains(l.dims.lhs_batch, i) && !contains(l.dims.lhs_contracting, i)) l.lhs_free.push_back(i);
  }
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    if (!contains(l.dims.rhs_batch, i) && !contains(l.dims.rhs_contracting, i)) l.rhs_free.push_back(i);
  }
  if (l.dims.lhs_batch.size() != l.dims.rhs_batch.size() ||
      l.dims.lhs_contracting.size() != l.dims.rhs_contracting.size() ||
      l.dims.lhs_batch.size() + l.lhs_free.size() + l.rhs_free.size() != op.output_dims(0).size()) {
    throw Unsupported("dot dimensions do not match the shapes");
  }
  return l;
}

std::size_t position(const std::vector<std::int64_t>& v, std::size_t x) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) - v.begin());
}

}  // namespace

// Output dimensions: batch, lhs free, rhs free; a contracting pair is one
// range variable shared by both operands' maps.
std::vector<MapSet> o2i_dot(const OpContext& op) {
  const DotLayout l = dot_layout(op);
  const auto out = op.output_dims(0);
  const auto lhs = op.operand_dims(0), rhs = op.operand_dims(1);
  std::vector<std::int64_t> contracting_sizes;
  for (std::int64_t c : l.dims.lhs_contracting) contracting_sizes.push_back(lhs.at(static_cast<std::size_t>(c)));
  const std::size_t nb = l.dims.lhs_batch.size();
  auto operand_map = [&](std::size_t rank, const std::vector<std::int64_t>& batch,
                         const std::vector<std::int64_t>& contracting, const std::vector<std::size_t>& free,
                         std::size_t free_base) {
    std::vector<Expr> results(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      if (contains(batch, i)) {
        results[i] = Expr::dim(u32(position(batch, i)));
      } else if (contains(contracting, i)) {
        results[i] = Expr::range(u32(position(contracting, i)));
      } else {
        results[i] =
            Expr::dim(u32(free_base + static_cast<std::size_t>(std::find(free.begin(), free.end(), i) - free.begin())));
      }
    }
    return build::map(out, std::move(results), contracting_sizes);
  };
  return one_each(
      {operand_map(lhs.size(), l.dims.lhs_batch, l.dims.lhs_contracting, l.lhs_free, nb),
       operand_map(rhs.size(), l.dims.rhs_batch, l.dims.rhs_contracting, l.rhs_free, nb + l.lhs_free.size())});
}

std::vector<MapSet> i2o_dot(const OpContext& op, std::size_t operand) {
  const DotLayout l = dot_layout(op);
  const bool is_lhs = operand == 0;
  const auto in = op.operand_dims(operand);
  const auto other = op.operand_dims(is_lhs ? 1 : 0);
  const auto& batch = is_lhs ? l.dims.lhs_batch : l.dims.rhs_batch;
  const auto& own_free = is_lhs ? l.lhs_free : l.rhs_free;
  const auto& other_free = is_lhs ? l.rhs_free : l.lhs_free;
  std::vector<Expr> results;
  for (std::int64_t b : batch) results.push_back(Expr::dim(u32(static_cast<std::size_t>(b))));
  std::vector<Expr> own, others;
  std::vector<std::int64_t> range_sizes;
  for (std::size_t f : own_free) own.push_back(Expr::dim(u32(f)));
  for (std::size_t f : other_free) {
    others.push_back(Expr::range(u32(range_sizes.size())));
    range_sizes.push_back(other[f]);
  }
  const auto& first = is_lhs ? own : others;
  const auto& second = is_lhs ? others : own;
  results.insert(results.end(), first.begin(), first.end());
  results.insert(results.end(), second.begin(), second.end());
  return one_each({build::map(in, std::move(results), range_sizes)});
}

//===--- pad ---===//

IndexingMap padding_map(const std::vector<std::int64_t>& operand, const std::vector<std::int64_t>& padded,
                        const std::vector<std::int64_t>& low, const std::vector<std::int64_t>& interior) {
  std::vector<Expr> results;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    const Expr d = Expr::dim(u32(i));
    const std::int64_t step = interior[i] + 1;
    results.push_back(step == 1 ? d - low[i] : simplify::floor_div(d - low[i], step));
  }
  IndexingMap map = build::map(padded, std::move(results));
  for (std::size_t i = 0; i < operand.size(); ++i) {
    const Expr d = Expr::dim(u32(i));
    const std::int64_t step = interior[i] + 1;
    // Operand element j sits at low + j * step.
    map.add_constraint(
        d, Interval{std::max<std::int64_t>(0, low[i]), std::min(padded[i] - 1, low[i] + (operand[i] - 1) * step)});
    if (step != 1) map.add_constraint(simplify::mod(d - low[i], step), Interval::point(0));
  }
  return map;
}

namespace {

struct PadConfig {
  std::vector<std::int64_t> operand, padded, low, interior;
};

PadConfig pad_config(const OpContext& op) {
  auto padding = parser::padding_attribute(op.computation, op.instruction());
  PadConfig c{op.operand_dims(0), op.output_dims(0), {}, {}};
  if (!padding || padding->size() != c.operand.size()) throw Unsupported("the padding does not match the rank");
  for (const auto& p : *padding) {
    if (p.interior < 0) throw Unsupported("negative interior padding");
    c.low.push_back(p.low);
    c.interior.push_back(p.interior);
  }
  return c;
}

// The output elements that hold the padding value, as disjoint pieces: for
// each dimension k, those whose index along k is not an operand position
// while the indices along the dimensions before k are.
MapSet padding_value_pieces(const PadConfig& c) {
  using Condition = std::pair<Expr, Interval>;
  // The conditions under which index d along dimension k holds an operand element ...
  auto operand_position = [&](std::size_t k) {
    const Expr d = Expr::dim(u32(k));
    const std::int64_t step = c.interior[k] + 1;
    std::vector<Condition> all{{d, Interval{c.low[k], c.low[k] + (c.operand[k] - 1) * step}}};
    if (step != 1) all.push_back({simplify::mod(d - c.low[k], step), Interval::point(0)});
    return all;
  };
  // ... and the alternatives under which it holds padding.
  auto padding_positions = [&](std::size_t k) {
    const Expr d = Expr::dim(u32(k));
    const std::int64_t step = c.interior[k] + 1;
    const std::int64_t first = c.low[k], last = c.low[k] + (c.operand[k] - 1) * step;
    std::vector<std::vector<Condition>> alternatives;
    if (c.operand[k] == 0) return std::vector<std::vector<Condition>>{{{d, Interval{0, c.padded[k] - 1}}}};
    alternatives.push_back({{d, Interval{0, first - 1}}});
    alternatives.push_back({{d, Interval{last + 1, c.padded[k] - 1}}});
    if (step != 1) {
      alternatives.push_back({{d, Interval{first, last}}, {simplify::mod(d - c.low[k], step), Interval{1, step - 1}}});
    }
    return alternatives;
  };
  MapSet pieces;
  for (std::size_t k = 0; k < c.padded.size(); ++k) {
    for (const auto& alternative : padding_positions(k)) {
      IndexingMap piece = build::scalar(c.padded);
      for (std::size_t j = 0; j < k; ++j) {
        for (const auto& [e, i] : operand_position(j)) piece.add_constraint(e, i);
      }
      for (const auto& [e, i] : alternative) piece.add_constraint(e, i);
      if (!piece.is_known_empty()) pieces.push_back(std::move(piece));
    }
  }
  return pieces;
}

}  // namespace

std::vector<MapSet> o2i_pad(const OpContext& op, MapStyle style) {
  const PadConfig c = pad_config(op);
  std::vector<MapSet> sets(2);
  sets[0].push_back(padding_map(c.operand, c.padded, c.low, c.interior));
  if (style == MapStyle::kXla) {
    IndexingMap every = build::scalar(c.padded);
    every.mark_approximate();  // elements holding operand values do not read the padding value
    sets[1].push_back(std::move(every));
  } else {
    sets[1] = padding_value_pieces(c);
  }
  return sets;
}

std::vector<MapSet> i2o_pad(const OpContext& op, std::size_t operand, MapStyle style) {
  const PadConfig c = pad_config(op);
  if (operand == 1) {
    if (style == MapStyle::kXla) {
      IndexingMap every = build::to_every_element(c.padded);
      every.mark_approximate();
      return one_each({std::move(every)});
    }
    MapSet turned;
    for (const IndexingMap& piece : padding_value_pieces(c)) turned.push_back(build::turned_scalar(piece));
    return {turned};
  }
  std::vector<Expr> results;
  for (std::size_t i = 0; i < c.operand.size(); ++i) {
    results.push_back(Expr::dim(u32(i)) * (c.interior[i] + 1) + c.low[i]);
  }
  IndexingMap map = build::map(c.operand, results);
  // Negative padding cuts operand elements off.
  for (std::size_t i = 0; i < results.size(); ++i) map.add_constraint(results[i], Interval{0, c.padded[i] - 1});
  return one_each({std::move(map)});
}

//===--- reduce-window ---===//

namespace {

std::vector<parser::WindowDim> window_of(const OpContext& op, std::size_t rank) {
  auto window = parser::window_attribute(op.computation, op.instruction());
  if (!window || window->size() != rank) throw Unsupported("the window does not match the rank");
  for (const auto& w : *window) {
    if (w.size <= 0 || w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0) {
      throw Unsupported("window sizes, strides and dilations must be positive");
    }
  }
  return *window;
}

}  // namespace

// The window without padding, (d)[s] -> (d * stride + s * dilation), into
// the padded and base-dilated operand, then through its padding map.
std::vector<MapSet> o2i_reduce_window(const OpContext& op, std::size_t output) {
  const std::size_t n = input_count(op);
  const auto out = op.output_dims(output);
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = op.operand_dims(k);
    const auto window = window_of(op, in.size());
    if (out.size() != in.size()) throw Unsupported("reduce-window output rank differs from the input rank");
    std::vector<Expr> positions;
    std::vector<std::int64_t> sizes, padded, low, interior;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto& w = window[i];
      positions.push_back(Expr::dim(u32(i)) * w.stride + Expr::range(u32(i)) * w.window_dilation);
      sizes.push_back(w.size);
      padded.push_back(in[i] == 0 ? w.pad_low + w.pad_high
                                  : (in[i] - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high);
      low.push_back(w.pad_low);
      interior.push_back(w.base_dilation - 1);
    }
    IndexingMap window_map = build::map(out, std::move(positions), sizes);
    maps.push_back(compose(window_map, padding_map(in, padded, low, interior)));
  }
  for (std::size_t k = 0; k < n; ++k) maps.push_back(build::scalar(out));
  return one_each(std::move(maps));
}

// Operand element x sits at p = x * base_dilation + pad_low of the padded
// array; window position s of output o covers p = o * stride + s * dilation.
std::vector<MapSet> i2o_reduce_window(const OpContext& op, std::size_t operand) {
  const std::size_t n = input_count(op);
  std::vector<MapSet> sets;
  for (std::size_t j = 0; j < op.output_count(); ++j) {
    const auto out = op.output_dims(j);
    if (operand >= n) {
      sets.push_back({build::to_every_element(out)});
      continue;
    }
    const auto in = op.operand_dims(operand);
    const auto window = window_of(op, in.size());
    std::vector<Expr> results, distances;
    std::vector<std::int64_t> sizes;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto& w = window[i];
      Expr distance = Expr::dim(u32(i)) * w.base_dilation + w.pad_low - Expr::range(u32(i)) * w.window_dilation;
      results.push_back(w.stride == 1 ? distance : simplify::floor_div(distance, w.stride));
      distances.push_back(distance);
      sizes.push_back(w.size);
    }
    IndexingMap map = build::map(in, results, sizes);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (window[i].stride != 1) map.add_constraint(simplify::mod(distances[i], window[i].stride), Interval::point(0));
      map.add_constraint(results[i], Interval{0, out[i] - 1});
    }
    sets.push_back({std::move(map)});
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail
