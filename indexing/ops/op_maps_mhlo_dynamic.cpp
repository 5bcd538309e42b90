// custom-calls that stand for MHLO's dynamic-shape ops in HLO text (XLA's
// MHLO export writes them as custom-calls named after the op; hlo_to_mhlo's
// custom_call_importer reads them back), and XLA's PadToStatic:
//
//   mhlo.dynamic_broadcast_in_dim(operand, output_dimensions)
//       backend_config={broadcast_dimensions = [..]}: broadcast-in-dim to a
//       runtime shape; an operand dimension of size 1 may be expanded.
//   mhlo.dynamic_reshape(operand, output_shape): a reshape to a runtime shape.
//   mhlo.real_dynamic_slice(operand, start_indices, limit_indices, strides):
//       a strided slice at runtime offsets.
//   PadToStatic(operand) -> (data, size per dimension...): the dynamic
//       operand padded to its bounds (XLA dynamic_padder.cc); the sizes are
//       the runtime sizes, read from the buffer's metadata, not its elements.
//
// Shapes are bounds here. A dimension whose size is static on both sides is
// exact (a broadcast dimension of size 1 reads index 0, a slice dimension as
// large as the operand's starts at 0 with stride 1, a static reshape is a
// reshape); any other dimension reads every index of the operand's, and a
// map with such a dimension, or over a bounded-dynamic shape (elements past
// the runtime size read nothing), is approximate. The shape and index
// vector operands are read whole by every element.
#include <algorithm>
#include <charconv>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

constexpr std::string_view k_bounds_reason = "the runtime sizes of a dynamic shape";

bool dynamic(const hlo::Shape& s) {
  return std::any_of(s.dim_kinds.begin(), s.dim_kinds.end(), [](hlo::DimKind k) { return k != hlo::DimKind::kStatic; });
}

bool static_dim(const hlo::Shape& s, std::size_t d) {
  return d >= s.dim_kinds.size() || s.dim_kinds[d] == hlo::DimKind::kStatic;
}

void read_vectors_whole(const OpContext& op, std::size_t first, const std::vector<std::int64_t>& out,
                        std::vector<MapSet>& sets) {
  for (std::size_t k = first; k < op.operand_count(); ++k) {
    const std::vector<std::int64_t> in = op.operand_dims(k);
    if (build::product(in) != 0) sets[k].push_back(whole(out, in));
  }
}

// The integers of `key = [a, b, ...]` (or `array<i64: a, b>`) in backend_config.
std::vector<std::int64_t> config_list(const OpContext& op, std::string_view key) {
  const std::string_view config = op.attribute("backend_config").value_or("");
  const std::size_t at = config.find(key);
  if (at == std::string_view::npos) throw Unsupported(std::string("no ").append(key).append(" in backend_config"));
  // "[0 : i64, 1 : i64]", "dense<[0, 1]>" or "array<i64: 0, 1>".
  const std::size_t bracket = config.find('[', at), array = config.find("array<", at);
  std::size_t open = bracket, close = std::string_view::npos;
  if (array < bracket) {
    open = config.find(':', array);
    close = config.find('>', array);
  } else if (bracket != std::string_view::npos) {
    close = config.find(']', bracket);
  }
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw Unsupported(std::string("a malformed ").append(key));
  std::vector<std::int64_t> values;
  std::string_view list = config.substr(open + 1, close - open - 1);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    item = item.substr(0, item.find(':'));  // "0 : i64"
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || end != item.data() + item.size())
        throw Unsupported(std::string("a malformed ").append(key));
      values.push_back(v);
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return values;
}

std::vector<MapSet> broadcast_in_dim(const OpContext& op) {
  if (op.operand_count() < 2 || op.shape().is_tuple) throw Unsupported("expects (operand, output_dimensions)");
  const std::vector<std::int64_t> out = op.output_dims(0), in = op.operand_dims(0);
  const std::vector<std::int64_t> dims = config_list(op, "broadcast_dimensions");
  if (dims.size() != in.size()) throw Unsupported("not one broadcast dimension per operand dimension");
  bool exact = !dynamic(op.shape()) && !dynamic(op.operand_shape(0));
  std::vector<Expr> results;
  std::vector<std::int64_t> ranges;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (dims[i] < 0 || static_cast<std::size_t>(dims[i]) >= out.size())
      throw Unsupported("a broadcast dimension out of range");
    const auto d = static_cast<std::size_t>(dims[i]);
    const bool known = static_dim(op.operand_shape(0), i) && static_dim(op.shape(), d);
    if (known && in[i] == 1) {
      results.push_back(Expr::constant(0));
    } else if (known && in[i] == out[d]) {
      results.push_back(Expr::dim(u32(d)));
    } else {
      results.push_back(Expr::range(u32(ranges.size())));
      ranges.push_back(in[i]);
      exact = false;
    }
  }
  std::vector<MapSet> sets(op.operand_count());
  if (build::product(in) != 0 && build::product(out) != 0) {
    IndexingMap m = build::map(out, std::move(results), ranges);
    if (!exact) m.mark_approximate(k_bounds_reason);
    sets[0].push_back(std::move(m));
  }
  if (build::product(out) != 0) read_vectors_whole(op, 1, out, sets);
  return sets;
}

std::vector<MapSet> dynamic_reshape(const OpContext& op) {
  if (op.operand_count() != 2 || op.shape().is_tuple) throw Unsupported("expects (operand, output_shape)");
  const std::vector<std::int64_t> out = op.output_dims(0), in = op.operand_dims(0);
  std::vector<MapSet> sets(2);
  if (build::product(out) == 0) return sets;
  if (build::product(in) != 0) {
    if (!dynamic(op.shape()) && !dynamic(op.operand_shape(0)) && build::product(in) == build::product(out)) {
      sets[0].push_back(build::map(out, build::reshape_index(out, build::dims(out.size()), in)));
    } else {
      IndexingMap m = whole(out, in);
      m.mark_approximate(k_bounds_reason);
      sets[0].push_back(std::move(m));
    }
  }
  read_vectors_whole(op, 1, out, sets);
  return sets;
}

std::vector<MapSet> real_dynamic_slice(const OpContext& op) {
  if (op.operand_count() != 4 || op.shape().is_tuple)
    throw Unsupported("expects (operand, start_indices, limit_indices, strides)");
  const std::vector<std::int64_t> out = op.output_dims(0), in = op.operand_dims(0);
  if (out.size() != in.size()) throw Unsupported("the result's rank is not the operand's");
  bool exact = !dynamic(op.shape()) && !dynamic(op.operand_shape(0));
  std::vector<Expr> results;
  std::vector<std::int64_t> ranges;
  for (std::size_t d = 0; d < in.size(); ++d) {
    // As large as the operand: the slice starts at 0 with stride 1 (or has one element).
    if (static_dim(op.shape(), d) && static_dim(op.operand_shape(0), d) && out[d] == in[d]) {
      results.push_back(Expr::dim(u32(d)));
    } else {
      results.push_back(Expr::range(u32(ranges.size())));
      ranges.push_back(in[d]);
      exact = false;
    }
  }
  std::vector<MapSet> sets(4);
  if (build::product(out) == 0) return sets;
  if (build::product(in) != 0) {
    IndexingMap m = build::map(out, std::move(results), ranges);
    if (!exact) m.mark_approximate("a slice at runtime offsets");
    sets[0].push_back(std::move(m));
  }
  read_vectors_whole(op, 1, out, sets);
  return sets;
}

std::vector<MapSet> pad_to_static(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 1) throw Unsupported("expects one operand");
  std::vector<MapSet> sets(1);
  if (output > 0) return sets;  // a runtime size: the buffer's metadata
  const std::vector<std::int64_t> out = op.output_dims(0), in = op.operand_dims(0);
  if (out != in) throw Unsupported("the data result does not have the operand's bounds");
  if (build::product(out) == 0) return sets;
  IndexingMap m = IndexingMap::identity(out);
  if (dynamic(op.operand_shape(0))) m.mark_approximate("elements past the runtime size are padding");
  sets[0].push_back(std::move(m));
  return sets;
}

}  // namespace

std::vector<MapSet> o2i_mhlo_dynamic(const OpContext& op, std::size_t output, MhloDynamicOp kind) {
  switch (kind) {
    case MhloDynamicOp::kBroadcastInDim: return broadcast_in_dim(op);
    case MhloDynamicOp::kReshape: return dynamic_reshape(op);
    case MhloDynamicOp::kRealDynamicSlice: return real_dynamic_slice(op);
    case MhloDynamicOp::kPadToStatic: return pad_to_static(op, output);
  }
  return {};
}

std::vector<MapSet> i2o_mhlo_dynamic(const OpContext& op, std::size_t operand, MhloDynamicOp kind) {
  return maps_by_inverse(op, operand,
                         [kind](const OpContext& o, std::size_t output) { return o2i_mhlo_dynamic(o, output, kind); });
}

}  // namespace hlo_index::indexing::detail
