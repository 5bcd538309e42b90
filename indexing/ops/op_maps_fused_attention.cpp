// Transformer Engine's fused attention custom-calls (te_fused_attn_forward_ffi,
// te_fused_attn_backward_ffi; NVIDIA TransformerEngine, JAX extension
// transformer_engine/jax/csrc/extensions/attention.cpp) with q, k and v as
// separate tensors (NVTE_QKV_Layout in backend_config's qkv_layout,
// transformer_engine/common/include/transformer_engine/fused_attn.h):
// SBHD_SBHD_SBHD (4), BSHD_BSHD_BSHD (9), THD_THD_THD (14), the mixed
// SBHD_BSHD_BSHD (15), BSHD_SBHD_SBHD (16), THD_BSHD_BSHD (17),
// THD_SBHD_SBHD (18), and BHSD_BHSD_BHSD (25). q (and the output, its
// gradient, dq) has the query format, [b, s, h, d] in the order the layout
// names; k and v (dk, dv) the key format, [b, t, g, d], with the h heads in g
// groups (grouped-query attention). THD in JAX keeps the [b, s, h, d] arrays
// (segments inside a row); as [t, h, d] it has no batch dimension, and a query
// row may then read a key row of any batch.
//
// Which keys a query attends to depends on the mask, the sequence lengths
// and segment offsets, all runtime values, so every map is a sound superset
// and marked approximate: a query row reads its own q row and every k and v
// row of its batch and head group; the other operands (seed, sequence
// lengths, offsets) are read whole; the workspace result reads nothing.
//   forward:  (output, softmax_aux [b,h,s,1] or [b,s,h,1], rng_state, workspace)
//   backward: operands (q, k, v, bias, softmax_aux, rng_state, output,
//             doutput, ...); results (dq, dk, dv, dbias, workspace)
// The forward call also in the packed layouts, q, k and v in slots 0, 1, 2 of
// operand 0 (SB3HD 0, SBH3D 1, BS3HD 5, BSH3D 6, T3HD 10, TH3D 11) or k and v
// in slots 0, 1 of operand 1 (SBHD_SB2HD 2, SBHD_SBH2D 3, BSHD_BS2HD 7,
// BSHD_BSH2D 8, THD_T2HD 12, THD_TH2D 13): the same rows, read from their
// slot; the output has q's format without the slot. The backward call in a
// packed layout and the paged layouts throw Unsupported: the custom-call's
// fallback reads every operand element, approximate.
#include <array>
#include <charconv>

#include "indexing/maps/inverse.hpp"
#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

// Where the batch, sequence, head and depth dimensions of a tensor are (-1: none), and in a
// packed tensor the dimension of the slot (q, k, v or k, v).
struct Format {
  std::array<int, 4> at;  // b, s, h, d
  int slot = -1;
  std::size_t rank() const { return (at[0] < 0 ? 3U : 4U) + (slot >= 0 ? 1U : 0U); }
};

constexpr Format k_bshd{{0, 1, 2, 3}}, k_sbhd{{1, 0, 2, 3}}, k_bhsd{{0, 2, 1, 3}}, k_thd{{-1, 0, 1, 2}};
// Packed: BS3HD (BS2HD), BSH3D (BSH2D), SB3HD, SBH3D, T3HD, TH3D.
constexpr Format k_bs3hd{{0, 1, 3, 4}, 2}, k_bsh3d{{0, 1, 2, 4}, 3}, k_sb3hd{{1, 0, 3, 4}, 2}, k_sbh3d{{1, 0, 2, 4}, 3},
    k_t3hd{{-1, 0, 2, 3}, 1}, k_th3d{{-1, 0, 1, 3}, 2};

// The format without its slot dimension: the output's of a packed q.
Format unpacked(const Format& f) {
  if (f.slot < 0) return f;
  Format out{f.at};
  for (int& a : out.at)
    if (a > f.slot) --a;
  return out;
}

struct Attention {
  Format q_format, kv_format;
  std::vector<std::int64_t> q, kv;  // as given
  // The operand each of q, k and v is in, and its slot there (packed layouts).
  std::size_t q_op = 0, k_op = 1, v_op = 2;
  std::int64_t q_slot = 0, k_slot = 0, v_slot = 0;
  bool packed = false;
  std::int64_t batch = 1, s = 0, h = 0, d = 0, t = 0, g = 0, dv = 0;
  std::int64_t heads_per_group = 1;
  bool thd = false;  // a THD query format: softmax_aux may be [b, s, h, 1] (cuDNN 9.6 on)
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

// THD is [b, s, h, d] as JAX passes it, [t, h, d] otherwise; likewise packed.
Format thd(std::size_t rank) { return rank == 3 ? k_thd : k_bshd; }
Format t3hd(std::size_t rank) { return rank == 4 ? k_t3hd : k_bs3hd; }
Format th3d(std::size_t rank) { return rank == 4 ? k_th3d : k_bsh3d; }

// q, k and v in operand 0's slots 0, 1 and 2.
void qkv_packed(Attention& a, const Format& f) {
  a.q_format = a.kv_format = f;
  a.k_op = a.v_op = 0;
  a.k_slot = 1;
  a.v_slot = 2;
  a.packed = true;
}
// k and v in operand 1's slots 0 and 1.
void kv_packed(Attention& a, const Format& q, const Format& kv) {
  a.q_format = q;
  a.kv_format = kv;
  a.v_op = 1;
  a.v_slot = 1;
  a.packed = true;
}

std::int64_t size(const std::vector<std::int64_t>& dims, const Format& f, std::size_t role) {
  return f.at[role] < 0 ? 1 : dims[static_cast<std::size_t>(f.at[role])];
}

Attention attention(const OpContext& op) {
  if (op.operand_count() < 3) throw Unsupported("fused attention without q, k and v");
  const std::vector<std::int64_t> q = op.operand_dims(0);
  Attention a{k_bshd, k_bshd, q, op.operand_dims(1)};
  const std::size_t kr = a.kv.size();
  const std::optional<std::int64_t> layout = config_int(op, "qkv_layout");
  switch (layout.value_or(-1)) {
    case 0: qkv_packed(a, k_sb3hd); break;
    case 1: qkv_packed(a, k_sbh3d); break;
    case 2: kv_packed(a, k_sbhd, k_sb3hd); break;
    case 3: kv_packed(a, k_sbhd, k_sbh3d); break;
    case 5: qkv_packed(a, k_bs3hd); break;
    case 6: qkv_packed(a, k_bsh3d); break;
    case 7: kv_packed(a, k_bshd, k_bs3hd); break;
    case 8: kv_packed(a, k_bshd, k_bsh3d); break;
    case 10: qkv_packed(a, t3hd(q.size())); break;
    case 11: qkv_packed(a, th3d(q.size())); break;
    case 12: kv_packed(a, thd(q.size()), t3hd(kr)); break;
    case 13: kv_packed(a, thd(q.size()), th3d(kr)); break;
    case 4: a.q_format = a.kv_format = k_sbhd; break;
    case 9: break;
    case 14: a.q_format = a.kv_format = thd(q.size()); break;
    case 15: a.q_format = k_sbhd; break;
    case 16: a.kv_format = k_sbhd; break;
    case 17: a.q_format = thd(q.size()); break;
    case 18:
      a.q_format = thd(q.size());
      a.kv_format = k_sbhd;
      break;
    case 25: a.q_format = a.kv_format = k_bhsd; break;
    default:
      throw Unsupported("fused attention with qkv_layout " +
                        (layout ? std::to_string(*layout) : std::string("missing")) +
                        ", a packed or paged layout or none");
  }
  const std::vector<std::int64_t> k = op.operand_dims(a.k_op), v = op.operand_dims(a.v_op);
  if (q.size() != a.q_format.rank() || k.size() != a.kv_format.rank() || v.size() != k.size())
    throw Unsupported("fused attention operands of another rank than the layout's");
  a.kv = k;
  const auto slots = [](const std::vector<std::int64_t>& dims, const Format& f) {
    return f.slot < 0 ? 1 : dims[static_cast<std::size_t>(f.slot)];
  };
  if (a.packed && slots(k, a.kv_format) != (a.k_op == 0 ? 3 : 2))
    throw Unsupported("a packed fused attention tensor without its 3 (q, k, v) or 2 (k, v) slots");
  a.s = size(q, a.q_format, 1);
  a.h = size(q, a.q_format, 2);
  a.d = size(q, a.q_format, 3);
  a.t = size(k, a.kv_format, 1);
  a.g = size(k, a.kv_format, 2);
  a.dv = size(v, a.kv_format, 3);
  const bool q_batch = a.q_format.at[0] >= 0, kv_batch = a.kv_format.at[0] >= 0;
  a.batch = q_batch ? size(q, a.q_format, 0) : size(k, a.kv_format, 0);
  if ((q_batch && kv_batch && size(k, a.kv_format, 0) != a.batch) ||
      size(v, a.kv_format, 0) != size(k, a.kv_format, 0) || size(v, a.kv_format, 1) != a.t ||
      size(v, a.kv_format, 2) != a.g || size(k, a.kv_format, 3) != a.d || a.g <= 0 || a.h % a.g != 0)
    throw Unsupported("fused attention operands that are not q [b,s,h,d], k and v [b,t,g,d] in the layout's order");
  a.heads_per_group = a.h / a.g;
  a.thd = *layout >= 10 && *layout <= 18 && *layout != 15 && *layout != 16;
  return a;
}

// The shape of a tensor of format f with these sizes.
std::vector<std::int64_t> shape(const Format& f, std::int64_t b, std::int64_t s, std::int64_t h, std::int64_t d) {
  std::vector<std::int64_t> out(f.rank());
  const std::array<std::int64_t, 4> sizes{b, s, h, d};
  for (std::size_t r = 0; r < 4; ++r)
    if (f.at[r] >= 0) out[static_cast<std::size_t>(f.at[r])] = sizes[r];
  return out;
}

// An index of a tensor of format f: the expressions of its roles, in place, and the slot.
std::vector<Expr> place(const Format& f, const std::array<Expr, 4>& roles, std::int64_t slot = 0) {
  std::vector<Expr> out(f.rank());
  for (std::size_t r = 0; r < 4; ++r)
    if (f.at[r] >= 0) out[static_cast<std::size_t>(f.at[r])] = roles[r];
  if (f.slot >= 0) out[static_cast<std::size_t>(f.slot)] = Expr::constant(slot);
  return out;
}

bool empty(const std::vector<std::int64_t>& dims) { return build::product(dims) == 0; }

// The roles of an element of a tensor of format f, as the tensor's dimensions (constant 0 for none).
std::array<Expr, 4> roles_of(const Format& f) {
  std::array<Expr, 4> r;
  for (std::size_t k = 0; k < 4; ++k)
    r[k] = f.at[k] < 0 ? Expr::constant(0) : Expr::dim(u32(static_cast<std::size_t>(f.at[k])));
  return r;
}

// The batch index into the other format, with `ranges` extended when it is any batch.
Expr batch_into(const Format& from, const Format& to, const Expr& b, std::int64_t batches,
                std::vector<std::int64_t>& ranges) {
  if (to.at[0] < 0) return Expr::constant(0);
  if (from.at[0] >= 0) return b;
  ranges.push_back(batches);
  return Expr::range(u32(ranges.size() - 1));
}

// From an element with query roles (b, s, h): row s of head h of q-format `depth`-deep tensor.
IndexingMap query_row(const std::vector<std::int64_t>& from, const Attention& a, const std::array<Expr, 4>& at,
                      std::int64_t depth) {
  return build::map(from, place(a.q_format, {at[0], at[1], at[2], Expr::range(0)}, a.q_slot), {depth});
}

// Every row of head group `group` of a kv-format tensor; `depth_index`: one depth, else all `depth_size`.
IndexingMap group_rows(const std::vector<std::int64_t>& from, const Attention& a, const Format& from_format,
                       const Expr& b, const Expr& group, const std::optional<Expr>& depth_index,
                       std::int64_t depth_size, std::int64_t slot) {
  std::vector<std::int64_t> ranges{a.t};
  const Expr row = Expr::range(0);
  Expr depth = depth_index.value_or(Expr::constant(0));
  if (!depth_index) {
    ranges.push_back(depth_size);
    depth = Expr::range(1);
  }
  const Expr batch = batch_into(from_format, a.kv_format, b, a.batch, ranges);
  return build::map(from, place(a.kv_format, {batch, row, group, depth}, slot), ranges);
}

// Every query row of every head of group `group`, of a q-format tensor.
IndexingMap group_queries(const std::vector<std::int64_t>& from, const Attention& a, const Expr& b, const Expr& group,
                          std::int64_t depth) {
  std::vector<std::int64_t> ranges{a.s, a.heads_per_group, depth};
  const Expr batch = batch_into(a.kv_format, a.q_format, b, a.batch, ranges);
  return build::map(
      from, place(a.q_format, {batch, Expr::range(0), group * a.heads_per_group + Expr::range(1), Expr::range(2)}),
      ranges);
}

// softmax_aux: [b, h, s, x] or [b, s, h, x] ([h, s, x] or [s, h, x] without a batch).
struct Aux {
  Format format;  // its b, s, h; the depth is the trailing dimension
};

Aux aux_format(const std::vector<std::int64_t>& dims, const Attention& a) {
  const bool batch = a.q_format.at[0] >= 0;
  const std::size_t rank = batch ? 4 : 3;
  if (dims.size() != rank) throw Unsupported("fused attention softmax_aux of an unexpected rank");
  const int o = batch ? 1 : 0;
  const Format hs{{batch ? 0 : -1, o + 1, o, o + 2}}, sh{{batch ? 0 : -1, o, o + 1, o + 2}};
  auto fits = [&](const Format& f) {
    return size(dims, f, 0) == (batch ? a.batch : 1) && size(dims, f, 1) == a.s && size(dims, f, 2) == a.h;
  };
  const bool by_head = fits(hs), by_row = fits(sh);
  // As many heads as rows: [b, h, s, x], but for THD, whose aux may be either.
  if ((!by_head && !by_row) || (by_head && by_row && a.thd))
    throw Unsupported("fused attention softmax_aux that is not [b,h,s,x] or [b,s,h,x], or could be either");
  return {by_head ? hs : sh};
}

// The aux elements of the same query rows as `queries` (a map into a q-format tensor).
IndexingMap aux_of(const IndexingMap& queries, const Attention& a, const Aux& aux) {
  IndexingMap m = queries;
  std::array<Expr, 4> roles;
  for (std::size_t r = 0; r < 3; ++r)
    roles[r] = a.q_format.at[r] < 0 ? Expr::constant(0) : queries.results()[static_cast<std::size_t>(a.q_format.at[r])];
  roles[3] = Expr::constant(0);
  m.results() = place(aux.format, roles);
  return m;
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
  if (output == 0 || output == 1) {
    // output: q's format, v's depth; softmax_aux: its own.
    Format f = unpacked(a.q_format);
    if (output == 0) {
      if (out != shape(f, a.batch, a.s, a.h, a.dv))
        throw Unsupported("fused attention output of another shape than q's rows with v's depth");
    } else {
      f = aux_format(out, a).format;
    }
    const std::array<Expr, 4> at = roles_of(f);
    const Expr group = simplify::floor_div(at[2], a.heads_per_group);
    sets[a.q_op].push_back(approximate(query_row(out, a, at, a.d)).front());
    sets[a.k_op].push_back(approximate(group_rows(out, a, f, at[0], group, std::nullopt, a.d, a.k_slot)).front());
    if (output == 0)
      sets[a.v_op].push_back(approximate(group_rows(out, a, f, at[0], group, at[3], a.dv, a.v_slot)).front());
  }
  // The k and v operands a packed layout leaves unused: read whole if they hold anything.
  for (std::size_t j = 1; j < 3; ++j) {
    if (j != a.k_op && j != a.v_op && !empty(op.operand_dims(j))) sets[j] = approximate(whole(out, op.operand_dims(j)));
  }
  for (std::size_t j = 3; j < op.operand_count(); ++j) {
    if (!empty(op.operand_dims(j))) sets[j] = approximate(whole(out, op.operand_dims(j)));
  }
  return sets;
}

std::vector<MapSet> backward(const OpContext& op, std::size_t output) {
  const Attention a = attention(op);
  if (a.packed) throw Unsupported("the backward pass of a packed fused attention layout");
  const std::vector<std::int64_t> rows = shape(a.q_format, a.batch, a.s, a.h, a.dv);
  if (op.operand_count() < 8 || op.operand_dims(6) != rows || op.operand_dims(7) != rows)
    throw Unsupported(
        "fused attention backward operands are not (q, k, v, bias, softmax_aux, rng_state, output, "
        "doutput, ...)");
  const Aux aux = aux_format(op.operand_dims(4), a);
  std::vector<MapSet> sets(op.operand_count());
  if (output >= 3) return sets;  // dbias (unused here) and the workspace
  const auto out = op.output_dims(output);
  if (empty(out)) return sets;
  if (output == 0) {
    // dq: its own query row of q, output and doutput; every k and v row of its group.
    if (out != a.q) throw Unsupported("fused attention dq of another shape than q");
    const std::array<Expr, 4> at = roles_of(a.q_format);
    const Expr group = simplify::floor_div(at[2], a.heads_per_group);
    const IndexingMap row = query_row(out, a, at, a.d);
    sets[0] = approximate(row);
    sets[6] = sets[7] = approximate(query_row(out, a, at, a.dv));
    sets[4] = approximate(aux_of(row, a, aux));
    sets[1] = approximate(group_rows(out, a, a.q_format, at[0], group, std::nullopt, a.d, 0));
    sets[2] = approximate(group_rows(out, a, a.q_format, at[0], group, std::nullopt, a.dv, 0));
  } else {
    // dk, dv: every query row of the group's heads; the key's own rows of k and v.
    if (out != op.operand_dims(output)) throw Unsupported("fused attention dk or dv of another shape than k or v");
    const std::array<Expr, 4> at = roles_of(a.kv_format);
    const IndexingMap queries = group_queries(out, a, at[0], at[2], a.d);
    sets[0] = approximate(queries);
    sets[6] = sets[7] = approximate(group_queries(out, a, at[0], at[2], a.dv));
    sets[4] = approximate(aux_of(queries, a, aux));
    sets[1] = approximate(build::map(out, place(a.kv_format, {at[0], at[1], at[2], Expr::range(0)}), {a.d}));
    sets[2] = approximate(build::map(out, place(a.kv_format, {at[0], at[1], at[2], Expr::range(0)}), {a.dv}));
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
