// pad, and the padding map that windows share.
#include <algorithm>

#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

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
    if (step != 1) all.emplace_back(simplify::mod(d - c.low[k], step), Interval::point(0));
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
    every.mark_approximate("as XLA: the padding value read at operand positions too");
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
      every.mark_approximate("as XLA: the padding value read at operand positions too");
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

}  // namespace hlo_index::indexing::detail
