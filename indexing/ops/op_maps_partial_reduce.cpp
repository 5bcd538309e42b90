// PartialReduce: the TPU custom-call jax.lax.approx_max_k / approx_min_k
// lower to (XLA: hlo/builder/lib/approx_topk.cc). Operands: N arrays of one
// shape, then N scalar init values; results: N arrays, the operands reduced
// along backend_config's "reduction_dim" to an approximate top-k by the
// comparator it calls. Which elements of the reduced dimension end up in an
// output position is the kernel's choice (log2_reduction, recall_target),
// so an output element reads the whole reduced dimension of every operand at
// its other indices, and every init value: approximate.
#include <charconv>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

constexpr std::string_view k_top_k_reason = "an approximate top-k picks from the whole reduced dimension";

std::int64_t reduction_dim(const OpContext& op) {
  const std::string_view config = op.attribute("backend_config").value_or("");
  const std::string_view key = "\"reduction_dim\"";
  const std::size_t at = config.find(key);
  if (at == std::string_view::npos) throw Unsupported("PartialReduce without reduction_dim in backend_config");
  std::size_t begin = config.find(':', at + key.size());
  if (begin == std::string_view::npos) throw Unsupported("a malformed reduction_dim");
  ++begin;
  while (begin < config.size() && config[begin] == ' ') ++begin;
  std::int64_t value = -1;
  const auto [end, ec] = std::from_chars(config.data() + begin, config.data() + config.size(), value);
  if (ec != std::errc() || end == config.data() + begin) throw Unsupported("a malformed reduction_dim");
  return value;
}

}  // namespace

std::vector<MapSet> o2i_partial_reduce(const OpContext& op, std::size_t output) {
  const std::size_t n = op.operand_count() / 2;
  if (n == 0 || op.operand_count() != 2 * n || op.output_count() != n)
    throw Unsupported("PartialReduce expects N arrays, N init values and N results");
  const std::vector<std::int64_t> out = op.output_dims(output), in = op.operand_dims(0);
  const std::int64_t dim = reduction_dim(op);
  if (dim < 0 || static_cast<std::size_t>(dim) >= in.size() || out.size() != in.size())
    throw Unsupported("PartialReduce: the reduction dimension or the result's rank does not fit the operands");
  const auto r = static_cast<std::size_t>(dim);
  for (std::size_t d = 0; d < in.size(); ++d)
    if (d != r && in[d] != out[d]) throw Unsupported("PartialReduce: a result differs outside the reduced dimension");
  std::vector<MapSet> sets(op.operand_count());
  if (build::product(out) == 0) return sets;
  for (std::size_t j = 0; j < n; ++j) {
    if (op.operand_dims(j) != in) throw Unsupported("PartialReduce operands of different shapes");
    if (build::product(in) == 0) continue;
    std::vector<Expr> results = build::dims(in.size());
    results[r] = Expr::range(0);
    IndexingMap m = build::map(out, std::move(results), {in[r]});
    m.mark_approximate(k_top_k_reason);
    sets[j].push_back(std::move(m));
  }
  for (std::size_t j = n; j < 2 * n; ++j) {
    if (!op.operand_dims(j).empty()) throw Unsupported("PartialReduce: an init value that is not a scalar");
    IndexingMap m = build::scalar(out);
    m.mark_approximate(k_top_k_reason);
    sets[j].push_back(std::move(m));
  }
  return sets;
}

std::vector<MapSet> i2o_partial_reduce(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, o2i_partial_reduce);
}

}  // namespace hlo_index::indexing::detail
