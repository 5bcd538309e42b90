// scan: inputs..., inits... (num_carries of them) -> (outputs..., carries...)
// along `dimensions`, running to_apply at each position t in order (from the
// end with is_reverse=true) on the inputs' elements at t and the carries.
// to_apply takes scalars (XLA's ScanOp, as reduce's reducer): each index of
// the other dimensions is a scan of its own, so a carry has the inputs'
// shape without the scan dimension.
#include <optional>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

struct ScanShapes {
  std::size_t inputs = 0, carries = 0, outputs = 0;  // outputs: the non-carry ones
  std::size_t dimension = 0;
  std::vector<std::int64_t> dims;  // of every input and non-carry output
  bool reverse = false;
};

std::vector<std::int64_t> without(std::vector<std::int64_t> dims, std::size_t d) {
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(d));
  return dims;
}

// Whether to_apply takes scalars only.
bool applies_to_scalars(const OpContext& op) {
  const hlo::Computation* to_apply = op.module.callee(op.computation, op.instruction());
  if (to_apply == nullptr || op.computation.callees_of(op.instruction()).size() != 1) return false;
  for (const hlo::Instruction& i : to_apply->instructions) {
    const hlo::Shape& shape = op.module.shape_of(i);
    if (i.opcode == hlo::Opcode::kParameter && (shape.is_tuple || !shape.dims.empty())) return false;
  }
  return true;
}

// The shapes of an elementwise scan, or none when it is not one (to_apply
// on slices): then the maps are the whole operands, approximate.
std::optional<ScanShapes> scan_shapes(const OpContext& op) {
  const auto dimensions = op.required_int_list("dimensions");
  const auto carries = op.int_attribute("num_carries");
  if (dimensions.size() != 1 || !carries || *carries < 0) throw Unsupported("scan needs one dimension and num_carries");
  ScanShapes s;
  s.carries = static_cast<std::size_t>(*carries);
  if (op.operand_count() <= s.carries || op.output_count() < s.carries)
    throw Unsupported("scan has fewer operands or outputs than num_carries");
  s.inputs = op.operand_count() - s.carries;
  s.outputs = op.output_count() - s.carries;
  s.reverse = op.attribute("is_reverse").value_or("false") == "true";
  s.dims = op.operand_dims(0);
  if (dimensions[0] < 0 || static_cast<std::size_t>(dimensions[0]) >= s.dims.size())
    throw Unsupported("the scan dimension is not a dimension of the inputs");
  s.dimension = static_cast<std::size_t>(dimensions[0]);
  if (!applies_to_scalars(op)) return std::nullopt;
  const auto carry = without(s.dims, s.dimension);
  for (std::size_t j = 0; j < s.inputs; ++j)
    if (op.operand_dims(j) != s.dims) return std::nullopt;
  for (std::size_t k = 0; k < s.outputs; ++k)
    if (op.output_dims(k) != s.dims) return std::nullopt;
  for (std::size_t c = 0; c < s.carries; ++c)
    if (op.operand_dims(s.inputs + c) != carry || op.output_dims(s.outputs + c) != carry) return std::nullopt;
  return s;
}

// Indices `d` of the carry shape with `inserted` placed at dimension `at`.
std::vector<Expr> with(std::vector<Expr> d, std::size_t at, const Expr& inserted) {
  d.insert(d.begin() + static_cast<std::ptrdiff_t>(at), inserted);
  return d;
}

}  // namespace

// Output element (.., t, ..) reads the inputs at positions 0..t (t..n-1
// reversed) of its index and the carries' initial values at its index
// through the chain of carries; a final carry reads every position. Exact in
// the sense of reduce: every such element feeds the result through to_apply.
std::vector<MapSet> o2i_scan(const OpContext& op, std::size_t output) {
  const auto shapes = scan_shapes(op);
  if (!shapes) {
    std::vector<MapSet> sets = o2i_whole_operands(op, output);
    for (MapSet& set : sets)
      for (IndexingMap& m : set) m.mark_approximate("a scan of shapes not recognised: whole operands");
    return sets;
  }
  const ScanShapes& s = *shapes;
  const std::size_t d = s.dimension;
  const std::int64_t n = s.dims[d];
  std::vector<MapSet> sets(op.operand_count());
  if (output < s.outputs) {
    std::vector<Expr> others = build::dims(s.dims.size());
    const Expr t = others[d];
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(d));
    for (std::size_t j = 0; j < s.inputs; ++j) {
      IndexingMap m = build::map(s.dims, with(others, d, Expr::range(0)), {n});
      m.add_constraint(s.reverse ? Expr::range(0) - t : t - Expr::range(0), Interval{0, n - 1});
      sets[j].push_back(std::move(m));
    }
    for (std::size_t c = 0; c < s.carries; ++c) sets[s.inputs + c].push_back(build::map(s.dims, others));
  } else {
    const auto carry = without(s.dims, d);
    for (std::size_t j = 0; j < s.inputs; ++j)
      sets[j].push_back(build::map(carry, with(build::dims(carry.size()), d, Expr::range(0)), {n}));
    for (std::size_t c = 0; c < s.carries; ++c) sets[s.inputs + c].push_back(IndexingMap::identity(carry));
  }
  return sets;
}

std::vector<MapSet> i2o_scan(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_scan);
}

}  // namespace hlo_index::indexing::detail
