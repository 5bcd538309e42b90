// Transformer Engine's fused attention custom-calls (te_fused_attn_forward_ffi,
// te_fused_attn_backward_ffi; NVIDIA TransformerEngine, JAX extension
// transformer_engine/jax/csrc/extensions/attention.cpp) with q, k, v in the
// BSHD_BSHD_BSHD layout (qkv_layout 9 in backend_config): q [b, s, h, d],
// k and v [b, t, g, d] with the h heads in g groups (grouped-query attention).
//
// Which keys a query attends to depends on the mask, the sequence lengths
// and segment offsets, all runtime values, so every map is a sound superset
// and marked approximate: a query row reads its own q row and every k and v
// row of its batch and head group; the other operands (seed, sequence
// lengths, offsets) are read whole; the workspace result reads nothing.
//   forward:  (output [b,s,h,d], softmax_aux [b,h,s,1], rng_state, workspace)
//   backward: operands (q, k, v, bias, softmax_aux, rng_state, output,
//             doutput, ...); results (dq, dk, dv, dbias, workspace)
#include <charconv>

#include "indexing/maps/inverse.hpp"
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

constexpr std::int64_t k_bshd_bshd_bshd = 9;

struct Attention {
  std::vector<std::int64_t> q, kv;  // [b, s, h, d] and [b, t, g, d]
  std::int64_t heads_per_group = 1;
};

std::optional<std::int64_t> config_int(const OpContext& op, std::string_view key) {
  const std::string_view config = op.attribute("backend_config").value_or("");
  const std::string needle = std::string(key) + " = ";
  const auto at = config.find(needle);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const char* begin = config.data() + at + needle.size();
  const auto [end, ec] = std::from_chars(begin, config.data() + config.size(), value);
  if (ec != std::errc() || end == begin) return std::nullopt;
  return value;
}

Attention attention(const OpContext& op) {
  if (config_int(op, "qkv_layout") != k_bshd_bshd_bshd)
    throw Unsupported("fused attention with a qkv_layout other than BSHD_BSHD_BSHD (9)");
  if (op.operand_count() < 3) throw Unsupported("fused attention without q, k and v");
  Attention a{op.operand_dims(0), op.operand_dims(1)};
  if (a.q.size() != 4 || a.kv != op.operand_dims(2) || a.kv.size() != 4 || a.q[0] != a.kv[0] || a.kv[2] <= 0 ||
      a.q[2] % a.kv[2] != 0)
    throw Unsupported("fused attention operands are not q [b,s,h,d], k and v [b,t,g,d]");
  a.heads_per_group = a.q[2] / a.kv[2];
  return a;
}

bool empty(const std::vector<std::int64_t>& dims) { return build::product(dims) == 0; }

// (d..)[s..] -> (s..): every element of `to`.
IndexingMap whole(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  return build::map(from, build::ranges(to.size()), to);
}

// From an element (b, s, h, ...) of a query-indexed array: row s of head h of
// a [b, s, h, d] array, every d.
IndexingMap query_row(const std::vector<std::int64_t>& from, const Expr& b, const Expr& s, const Expr& h,
                      std::int64_t depth) {
  return build::map(from, {b, s, h, Expr::range(0)}, {depth});
}

// Every row of head group `group` of a [b, t, g, d] array.
IndexingMap group_rows(const std::vector<std::int64_t>& from, const Expr& b, const Expr& group,
                       const std::vector<std::int64_t>& kv) {
  return build::map(from, {b, Expr::range(0), group, Expr::range(1)}, {kv[1], kv[3]});
}

// Every query row of every head of group `group`: [b, s, h, d] with h in the group.
IndexingMap group_queries(const std::vector<std::int64_t>& from, const Expr& b, const Expr& group, const Attention& a,
                          std::int64_t depth) {
  return build::map(from, {b, Expr::range(0), group * a.heads_per_group + Expr::range(1), Expr::range(2)},
                    {a.q[1], a.heads_per_group, depth});
}

// softmax_aux [b, h, s, 1] of the same query rows as `queries` (a map to [b, s, h, d]).
IndexingMap aux_of(const IndexingMap& queries) {
  IndexingMap aux = queries;
  const auto& r = queries.results();
  aux.results() = {r[0], r[2], r[1], Expr::constant(0)};
  return aux;
}

constexpr std::string_view k_attention_reason = "every key row the mask and sequence lengths may allow";

MapSet approximate(IndexingMap map) {
  map.mark_approximate(k_attention_reason);
  return {std::move(map)};
}

std::vector<MapSet> forward(const OpContext& op, std::size_t output) {
  const Attention a = attention(op);
  std::vector<MapSet> sets(op.operand_count());
  if (output >= 3) return sets;  // the workspace
  const auto out = op.output_dims(output);
  if (empty(out)) return sets;
  const Expr d0 = Expr::dim(0);
  if (output == 0 || output == 1) {
    // output [b, s, h, d]; softmax_aux [b, h, s, 1]
    const Expr s = output == 0 ? Expr::dim(1) : Expr::dim(2), h = output == 0 ? Expr::dim(2) : Expr::dim(1);
    const Expr group = simplify::floor_div(h, a.heads_per_group);
    sets[0] = approximate(query_row(out, d0, s, h, a.q[3]));
    sets[1] = approximate(group_rows(out, d0, group, a.kv));
    if (output == 0) {
      if (op.operand_dims(2)[3] != out[3]) throw Unsupported("fused attention output depth differs from v's");
      sets[2] = approximate(build::map(out, {d0, Expr::range(0), group, Expr::dim(3)}, {a.kv[1]}));
    }
  }
  for (std::size_t j = 3; j < op.operand_count(); ++j) {
    if (!empty(op.operand_dims(j))) sets[j] = approximate(whole(out, op.operand_dims(j)));
  }
  return sets;
}

std::vector<MapSet> backward(const OpContext& op, std::size_t output) {
  const Attention a = attention(op);
  if (op.operand_count() < 8 || op.operand_dims(6) != a.q || op.operand_dims(7) != a.q ||
      op.operand_dims(4) != std::vector<std::int64_t>{a.q[0], a.q[2], a.q[1], 1})
    throw Unsupported(
        "fused attention backward operands are not (q, k, v, bias, softmax_aux, rng_state, output, "
        "doutput, ...)");
  std::vector<MapSet> sets(op.operand_count());
  if (output >= 3) return sets;  // dbias (unused here) and the workspace
  const auto out = op.output_dims(output);
  if (empty(out)) return sets;
  const Expr d0 = Expr::dim(0), d1 = Expr::dim(1), d2 = Expr::dim(2);
  if (output == 0) {
    // dq [b, s, h, d]: its own query row of q, output and doutput; every k and v row of its group.
    const Expr group = simplify::floor_div(d2, a.heads_per_group);
    const IndexingMap row = query_row(out, d0, d1, d2, a.q[3]);
    sets[0] = sets[6] = sets[7] = approximate(row);
    sets[4] = approximate(aux_of(row));
    sets[1] = sets[2] = approximate(group_rows(out, d0, group, a.kv));
  } else {
    // dk, dv [b, t, g, d]: every query row of the group's heads; the key's own rows of k and v.
    const IndexingMap queries = group_queries(out, d0, d2, a, a.q[3]);
    sets[0] = sets[6] = sets[7] = approximate(queries);
    sets[4] = approximate(aux_of(queries));
    sets[1] = sets[2] = approximate(build::map(out, {d0, d1, d2, Expr::range(0)}, {a.kv[3]}));
  }
  for (std::size_t j = 3; j < op.operand_count(); ++j) {
    if (j == 4 || j == 6 || j == 7 || empty(op.operand_dims(j))) continue;
    sets[j] = approximate(whole(out, op.operand_dims(j)));
  }
  return sets;
}

}  // namespace

std::vector<MapSet> o2i_fused_attention(const OpContext& op, std::size_t output, bool is_backward) {
  return is_backward ? backward(op, output) : forward(op, output);
}

// The inverse of each output's maps (approximate like them).
std::vector<MapSet> i2o_fused_attention(const OpContext& op, std::size_t operand, bool is_backward) {
  std::vector<MapSet> sets(op.output_count());
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    const std::vector<MapSet> reads = o2i_fused_attention(op, k, is_backward);
    for (const IndexingMap& m : reads.at(operand)) {
      for (IndexingMap& piece : inverse(m)) {
        piece.mark_approximate(k_attention_reason);
        sets[k].push_back(std::move(piece));
      }
    }
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail
