// Ops that combine ranges of their operands: reduce and dot.
#include <algorithm>
#include <string>

#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

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
  std::vector<std::size_t> lhs_free, rhs_free;
};

bool distinct_in_range(const std::vector<std::int64_t>& dims, std::size_t rank) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || static_cast<std::size_t>(dims[i]) >= rank) return false;
    if (std::find(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(i), dims[i]) !=
        dims.begin() + static_cast<std::ptrdiff_t>(i))
      return false;
  }
  return true;
}

// The free dimensions of both operands, after checking that the dimension
// numbers fit the shapes (the dot op's were checked at parse time; a
// custom-call's come from backend_config unchecked).
DotLayout dot_layout(const parser::DotDimensions& d, const DotShapes& s) {
  const auto& lhs = s.lhs;
  const auto& rhs = s.rhs;
  auto sizes_match = [&](const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (lhs[static_cast<std::size_t>(a[i])] != rhs[static_cast<std::size_t>(b[i])]) return false;
    return true;
  };
  std::vector<std::int64_t> lhs_used = d.lhs_batch, rhs_used = d.rhs_batch;
  lhs_used.insert(lhs_used.end(), d.lhs_contracting.begin(), d.lhs_contracting.end());
  rhs_used.insert(rhs_used.end(), d.rhs_contracting.begin(), d.rhs_contracting.end());
  if (!distinct_in_range(lhs_used, lhs.size()) || !distinct_in_range(rhs_used, rhs.size()) ||
      !sizes_match(d.lhs_batch, d.rhs_batch) || !sizes_match(d.lhs_contracting, d.rhs_contracting)) {
    throw Unsupported("dot dimensions do not match the shapes");
  }
  DotLayout l;
  std::vector<std::int64_t> expected_out;
  for (std::int64_t b : d.lhs_batch) expected_out.push_back(lhs[static_cast<std::size_t>(b)]);
  for (std::size_t i = 0; i < lhs.size(); ++i) {
    if (!contains(lhs_used, i)) {
      l.lhs_free.push_back(i);
      expected_out.push_back(lhs[i]);
    }
  }
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    if (!contains(rhs_used, i)) {
      l.rhs_free.push_back(i);
      expected_out.push_back(rhs[i]);
    }
  }
  if (expected_out != s.out) throw Unsupported("dot dimensions do not match the shapes");
  return l;
}

std::size_t position(const std::vector<std::int64_t>& v, std::size_t x) {
  return static_cast<std::size_t>(std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) - v.begin());
}

DotShapes dot_shapes(const OpContext& op) {
  const std::size_t operands = op.opcode() == hlo::Opcode::kScaledDot ? 4 : 2;
  if (op.operand_count() != operands) {
    throw Unsupported(std::string(op.module.opcode_text(op.instruction()))
                          .append(" with other than ")
                          .append(std::to_string(operands))
                          .append(" operands"));
  }
  return {op.operand_dims(0), op.operand_dims(1), op.output_dims(0)};
}

}  // namespace

// Output dimensions: batch, lhs free, rhs free; a contracting pair is one
// range variable shared by both operands' maps.
std::vector<IndexingMap> dot_operand_maps(const parser::DotDimensions& d, const DotShapes& s) {
  const DotLayout l = dot_layout(d, s);
  std::vector<std::int64_t> contracting_sizes;
  for (std::int64_t c : d.lhs_contracting) contracting_sizes.push_back(s.lhs.at(static_cast<std::size_t>(c)));
  const std::size_t nb = d.lhs_batch.size();
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
    return build::map(s.out, std::move(results), contracting_sizes);
  };
  std::vector<IndexingMap> maps{
      operand_map(s.lhs.size(), d.lhs_batch, d.lhs_contracting, l.lhs_free, nb),
      operand_map(s.rhs.size(), d.rhs_batch, d.rhs_contracting, l.rhs_free, nb + l.lhs_free.size())};
  for (IndexingMap& m : maps) build::mark_contracted(m);
  return maps;
}

IndexingMap dot_output_map(const parser::DotDimensions& d, const DotShapes& s, std::size_t operand) {
  const DotLayout l = dot_layout(d, s);
  const bool is_lhs = operand == 0;
  const auto& in = is_lhs ? s.lhs : s.rhs;
  const auto& other = is_lhs ? s.rhs : s.lhs;
  const auto& batch = is_lhs ? d.lhs_batch : d.rhs_batch;
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
  return build::map(in, std::move(results), range_sizes);
}

std::vector<MapSet> o2i_dot(const OpContext& op) {
  return one_each(dot_operand_maps(parser::dot_dimensions(op.computation, op.instruction()), dot_shapes(op)));
}

std::vector<MapSet> i2o_dot(const OpContext& op, std::size_t operand) {
  return one_each({dot_output_map(parser::dot_dimensions(op.computation, op.instruction()), dot_shapes(op), operand)});
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
