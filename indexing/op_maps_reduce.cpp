// Ops that combine ranges of their operands: reduce and dot.
#include <algorithm>
#include <string>

#include "indexing/map_ops.hpp"
#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

bool contains(const std::vector<std::int64_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) != v.end();
}

}  // namespace

std::size_t input_count(const OpContext& op) {
  if (op.operand_count() % 2 != 0 || op.operand_count() == 0)
    throw Unsupported("expected inputs and as many init values");
  const std::size_t inputs = op.operand_count() / 2;
  // XLA's parser takes an array as an init value, but its verifier rejects
  // it, and no map says what it would mean.
  for (std::size_t k = inputs; k < 2 * inputs; ++k) {
    if (!op.operand_dims(k).empty())
      throw Unsupported("the init value (operand " + std::to_string(k) +
                        ") is not a scalar (XLA's verifier rejects it)");
  }
  return inputs;
}

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
  const std::size_t operands = op.opcode() == hlo::Opcode::kScaledDot ? 4 : 2;
  if (op.operand_count() != operands) {
    throw Unsupported(std::string(op.module.opcode_text(op.instruction()))
                          .append(" with other than ")
                          .append(std::to_string(operands))
                          .append(" operands"));
  }
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
  results.reserve(batch.size());
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

//===--- scaled-dot ---===//

namespace {

// A scale operand holds one scale per block of its operand: along each
// dimension the operand's size is a whole number of blocks (block =
// operand size / scale size; XLA's block-scaled dot broadcasts each scale
// over its block, along the contracting dimensions in practice).
std::vector<std::int64_t> scale_blocks(const std::vector<std::int64_t>& operand,
                                       const std::vector<std::int64_t>& scale) {
  if (scale.size() != operand.size()) throw Unsupported("a scale of scaled-dot differs in rank from its operand");
  std::vector<std::int64_t> blocks;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (scale[i] <= 0 || operand[i] % scale[i] != 0)
      throw Unsupported("a scale of scaled-dot does not divide its operand into whole blocks");
    blocks.push_back(operand[i] / scale[i]);
  }
  return blocks;
}

// The map into an operand, continued to the block of it that its scale holds.
IndexingMap into_scale(IndexingMap map, const std::vector<std::int64_t>& blocks) {
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i] != 1) map.results()[i] = simplify::floor_div(map.results()[i], blocks[i]);
  }
  return map;
}

}  // namespace

// (lhs, rhs, lhs_scale, rhs_scale): a dot of lhs * broadcast(lhs_scale) and
// rhs * broadcast(rhs_scale). Exact: an output element reads the scale of
// every block its operand elements fall in.
std::vector<MapSet> o2i_scaled_dot(const OpContext& op) {
  std::vector<MapSet> sets = o2i_dot(op);
  for (std::size_t k = 0; k < 2; ++k) {
    if (op.operand_dims(k + 2).empty()) {  // one scale for the whole operand
      sets.push_back({build::scalar(op.output_dims(0))});
      continue;
    }
    const auto blocks = scale_blocks(op.operand_dims(k), op.operand_dims(k + 2));
    sets.push_back({into_scale(sets[k].front(), blocks)});
  }
  return sets;
}

std::vector<MapSet> i2o_scaled_dot(const OpContext& op, std::size_t operand) {
  if (operand < 2) return i2o_dot(op, operand);
  return maps_by_inverse(op, operand, [](const OpContext& o, std::size_t) { return o2i_scaled_dot(o); });
}

//===--- pad ---===//
}  // namespace hlo_index::indexing::detail
