#include "op_reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "convolution_reference.hpp"

namespace hlo_index::test::ops {

/// How often the generators produced each feature (per test case): every
/// test case checks that the features it is about were exercised.
std::map<std::string, int>& coverage() {
  static std::map<std::string, int> c;
  return c;
}

void cover(const std::string& feature, bool happened) {
  if (happened) ++coverage()[feature];
}

// ---------------------------------------------------------------------------
// Shapes and indices.

std::int64_t element_count(const Tuple& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

std::string join(const Tuple& v, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out.append(i ? separator : "").append(std::to_string(v[i]));
  return out;
}

std::string to_string(const Tuple& t) { return "(" + join(t, ", ") + ")"; }

Tuple default_layout(std::size_t rank) {
  Tuple m2m(rank);
  for (std::size_t i = 0; i < rank; ++i) m2m[i] = static_cast<std::int64_t>(rank - 1 - i);
  return m2m;
}

std::string shape_text(const Array& a) {
  std::string out = a.type + "[" + join(a.dims) + "]";
  if (!a.dims.empty() || !a.layout_suffix.empty())
    out +=
        "{" + join(a.minor_to_major.empty() ? default_layout(a.dims.size()) : a.minor_to_major) + a.layout_suffix + "}";
  return out;
}

std::int64_t linear(const Tuple& index, const Tuple& dims) {
  std::int64_t l = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) l = l * dims[i] + index[i];
  return l;
}

Tuple delinear(std::int64_t l, const Tuple& dims) {
  Tuple index(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    index[i] = l % dims[i];
    l /= dims[i];
  }
  return index;
}

/// Physical order of an array's dimensions, major to minor: the reverse of
/// minor_to_major.
std::vector<std::size_t> physical_order(const Array& a) {
  const Tuple m2m = a.minor_to_major.empty() ? default_layout(a.dims.size()) : a.minor_to_major;
  std::vector<std::size_t> order;
  for (std::size_t j = m2m.size(); j-- > 0;) order.push_back(static_cast<std::size_t>(m2m[j]));
  return order;
}

std::int64_t physical_offset(const Tuple& index, const Array& a) {
  std::int64_t offset = 0;
  for (std::size_t p : physical_order(a)) offset = offset * a.dims[p] + index[p];
  return offset;
}

Tuple from_physical_offset(std::int64_t offset, const Array& a) {
  const auto order = physical_order(a);
  Tuple index(a.dims.size());
  for (std::size_t j = order.size(); j-- > 0;) {
    index[order[j]] = offset % a.dims[order[j]];
    offset /= a.dims[order[j]];
  }
  return index;
}

Tuple concat(const Tuple& a, const Tuple& b) {
  Tuple out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// ---------------------------------------------------------------------------
// The model of a computation.

std::int64_t Env::value(int node, const Tuple& index) const {
  const Node& n = comp->node(node);
  switch (n.kind) {
    case Kind::kParam: return values.at(node).at(static_cast<std::size_t>(linear(index, n.outputs[0].dims)));
    case Kind::kConstant: return n.data.at(static_cast<std::size_t>(linear(index, n.outputs[0].dims)));
    case Kind::kIota: return index.at(n.iota_dim);
    case Kind::kOp: break;
  }
  throw std::logic_error("an offset computed by an op");
}

std::int64_t Env::clamped(int node, const Tuple& index) const {
  return std::clamp<std::int64_t>(value(node, index), 0, comp->node(node).limit(index));
}

std::string literal_text(const Tuple& data, const Tuple& dims, std::size_t dim = 0, std::int64_t offset = 0) {
  if (dims.empty()) return std::to_string(data.at(0));
  std::int64_t stride = 1;
  for (std::size_t i = dim + 1; i < dims.size(); ++i) stride *= dims[i];
  std::string out = "{";
  for (std::int64_t i = 0; i < dims[dim]; ++i) {
    if (i) out += ", ";
    out += dim + 1 == dims.size() ? std::to_string(data.at(static_cast<std::size_t>(offset + i)))
                                  : literal_text(data, dims, dim + 1, offset + i * stride);
  }
  return out + "}";
}

std::string node_shape_text(const Node& n) {
  if (!n.tuple) return shape_text(n.outputs[0]);
  std::string out = "(";
  for (std::size_t i = 0; i < n.outputs.size(); ++i) out.append(i ? ", " : "").append(shape_text(n.outputs[i]));
  return out + ")";
}

std::string instruction_text(const Computation& c, int id) {
  const Node& n = c.node(id);
  std::string out = std::string("  ") + (id == c.root ? "ROOT " : "") + "%" + n.name + " = " + node_shape_text(n) + " ";
  switch (n.kind) {
    case Kind::kParam: return out + "parameter(" + std::to_string(n.parameter) + ")\n";
    case Kind::kConstant: return out + "constant(" + literal_text(n.data, n.outputs[0].dims) + ")\n";
    case Kind::kIota: return out + "iota(), iota_dimension=" + std::to_string(n.iota_dim) + "\n";
    case Kind::kOp: break;
  }
  out += n.opcode + "(";
  for (std::size_t k = 0; k < n.operands.size(); ++k) out.append(k ? ", %" : "%").append(c.node(n.operands[k]).name);
  return out + ")" + n.attributes + "\n";
}

const char* const k_reducers = R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%add_pair (a0: f32[], a1: f32[], b0: f32[], b1: f32[]) -> (f32[], f32[]) {
  %a0 = f32[] parameter(0)
  %a1 = f32[] parameter(1)
  %b0 = f32[] parameter(2)
  %b1 = f32[] parameter(3)
  %sum0 = f32[] add(%a0, %b0)
  %sum1 = f32[] add(%a1, %b1)
  ROOT %pair = (f32[], f32[]) tuple(%sum0, %sum1)
}

)";

/// The module text: the computation as ENTRY (a single op), or as the body of
/// a kLoop fusion that the ENTRY calls with one parameter per fused one.
std::string module_text(const Computation& c, bool fused) {
  std::string body;
  for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) body += instruction_text(c, id);
  std::string out = "HloModule bruteforce\n\n";
  out += k_reducers;
  if (!fused) return out + "ENTRY %main {\n" + body + "}\n";
  out += "%fused_computation {\n" + body + "}\n\nENTRY %main {\n";
  std::vector<const Node*> params(static_cast<std::size_t>(c.parameters));
  for (const Node& n : c.nodes) {
    if (n.kind == Kind::kParam) params[static_cast<std::size_t>(n.parameter)] = &n;
  }
  std::string operands;
  for (std::size_t p = 0; p < params.size(); ++p) {
    out += "  %e" + std::to_string(p) + " = " + node_shape_text(*params[p]) + " parameter(" + std::to_string(p) + ")\n";
    operands.append(p ? ", %e" : "%e").append(std::to_string(p));
  }
  out += "  ROOT %fusion = " + node_shape_text(c.node(c.root)) + " fusion(" + operands +
         "), kind=kLoop, calls=%fused_computation\n}\n";
  return out;
}

// ---------------------------------------------------------------------------
// Random ops (op_reference.hpp).

std::int64_t rank_of(const Array& a) { return static_cast<std::int64_t>(a.dims.size()); }

std::string list(const Tuple& v) { return "{" + join(v) + "}"; }

namespace {

// --- elementwise: unary, binary, select and clamp (scalar operands too) ---

int gen_elementwise(Gen& g, int x) {
  const Array a = g.array(x);
  const int kind = static_cast<int>(g.r.uniform(0, 3));
  std::vector<int> operands;
  std::string opcode;
  if (kind == 0) {
    static const std::vector<std::string> unary = {"negate", "exponential", "abs", "copy", "tanh"};
    opcode = unary[g.r.index(unary.size())];
    operands = {x};
  } else if (kind == 1) {
    static const std::vector<std::string> binary = {"add", "multiply", "subtract", "maximum"};
    opcode = binary[g.r.index(binary.size())];
    const int other = g.operand_like("f32", a.dims);
    operands = g.r.chance(50) ? std::vector<int>{x, other} : std::vector<int>{other, x};
  } else if (kind == 2) {
    opcode = "select";
    int predicate;
    if (g.r.chance(30)) {
      predicate = g.param(Array{"pred", {}, {}});
    } else if (g.r.chance(50)) {
      const int other = g.operand_like("f32", a.dims);
      Node cmp = g.op("compare", {x, other}, {g.with_layout(Array{"pred", a.dims, {}})}, ", direction=LT");
      cmp.reads = [](std::size_t, const Tuple& out, const Env&, Reads& reads) { reads = {{out}, {out}}; };
      predicate = g.add(std::move(cmp));
    } else {
      predicate = g.operand_like("pred", a.dims);
    }
    const int other = g.operand_like("f32", a.dims);
    operands = g.r.chance(50) ? std::vector<int>{predicate, x, other} : std::vector<int>{predicate, other, x};
  } else {
    opcode = "clamp";
    const int lo = g.r.chance(50) ? g.param(Array{"f32", {}, {}}) : g.operand_like("f32", a.dims);
    const int hi = g.r.chance(50) ? g.param(Array{"f32", {}, {}}) : g.operand_like("f32", a.dims);
    operands = {lo, x, hi};
  }
  std::vector<bool> scalar;
  scalar.reserve(operands.size());
  for (int o : operands) scalar.push_back(g.array(o).dims.empty());
  cover("select with a scalar predicate", opcode == "select" && scalar[0] && !a.dims.empty());
  cover("clamp with a scalar bound", opcode == "clamp" && (scalar[0] || scalar[2]) && !a.dims.empty());
  Node n = g.op(opcode, operands, {g.f32(a.dims)});
  n.reads = [scalar](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    for (std::size_t k = 0; k < scalar.size(); ++k) reads[k].push_back(scalar[k] ? Tuple{} : out);
  };
  return g.add(std::move(n));
}

// --- broadcast ---

int gen_broadcast(Gen& g, int x) {
  const Array a = g.array(x);
  const std::size_t rank = a.dims.size();
  const std::size_t added = static_cast<std::size_t>(g.r.uniform(1, rank < 2 ? 2 : 1));
  const std::size_t out_rank = rank + added;
  if (out_rank > 4) return -1;
  const Tuple positions = g.r.subset(out_rank, rank);
  Tuple dims(out_rank, 0);
  std::int64_t n = element_count(a.dims);
  for (std::size_t i = 0; i < rank; ++i) dims[static_cast<std::size_t>(positions[i])] = a.dims[i];
  for (std::int64_t& d : dims) {
    if (d != 0) continue;
    d = g.r.uniform(1, std::max<std::int64_t>(1, std::min<std::int64_t>(4, g.cap / n)));
    n *= d;
  }
  if (n > g.cap) return -1;
  cover("broadcast");
  Node node = g.op("broadcast", {x}, {g.f32(dims)}, ", dimensions=" + list(positions));
  node.reads = [positions](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    Tuple in;
    for (std::int64_t p : positions) in.push_back(out[static_cast<std::size_t>(p)]);
    reads[0].push_back(in);
  };
  return g.add(std::move(node));
}

// --- transpose, reverse, slice ---

int gen_transpose(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  const Tuple perm = g.r.permutation(a.dims.size());
  Tuple dims;
  for (std::int64_t p : perm) dims.push_back(a.dims[static_cast<std::size_t>(p)]);
  Node n = g.op("transpose", {x}, {g.f32(dims)}, ", dimensions=" + list(perm));
  n.reads = [perm](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    Tuple in(perm.size());
    for (std::size_t j = 0; j < perm.size(); ++j) in[static_cast<std::size_t>(perm[j])] = out[j];
    reads[0].push_back(in);
  };
  return g.add(std::move(n));
}

int gen_reverse(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  const Tuple reversed = g.r.subset(a.dims.size(), static_cast<std::size_t>(g.r.uniform(1, rank_of(a))));
  Node n = g.op("reverse", {x}, {g.f32(a.dims)}, ", dimensions=" + list(reversed));
  const Tuple dims = a.dims;
  n.reads = [reversed, dims](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    Tuple in = out;
    for (std::int64_t k : reversed)
      in[static_cast<std::size_t>(k)] = dims[static_cast<std::size_t>(k)] - 1 - out[static_cast<std::size_t>(k)];
    reads[0].push_back(in);
  };
  return g.add(std::move(n));
}

int gen_slice(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  Tuple starts, strides, dims;
  std::string text;
  for (std::size_t i = 0; i < a.dims.size(); ++i) {
    const std::int64_t start = g.r.uniform(0, a.dims[i] - 1);
    const std::int64_t limit = g.r.uniform(start + 1, a.dims[i]);
    const std::int64_t stride = g.r.uniform(1, 3);
    starts.push_back(start);
    strides.push_back(stride);
    dims.push_back((limit - start + stride - 1) / stride);
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::to_string(...) here.
    text.append(i ? ", " : "")
        .append("[")
        .append(std::to_string(start))
        .append(":")
        .append(std::to_string(limit))
        .append(":")
        .append(std::to_string(stride))
        .append("]");
  }
  cover("slice with a stride", std::any_of(strides.begin(), strides.end(), [](std::int64_t v) { return v > 1; }));
  Node n = g.op("slice", {x}, {g.f32(dims)}, ", slice={" + text + "}");
  n.reads = [starts, strides](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    Tuple in(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) in[i] = starts[i] + out[i] * strides[i];
    reads[0].push_back(in);
  };
  return g.add(std::move(n));
}

// --- reshape and bitcast ---

Tuple random_factorization(Rng& r, std::int64_t n) {
  const std::size_t rank = static_cast<std::size_t>(r.uniform(1, 4));
  Tuple dims;
  std::int64_t rest = n;
  for (std::size_t i = 0; i + 1 < rank; ++i) {
    Tuple divisors;
    for (std::int64_t d = 1; d <= rest; ++d) {
      if (rest % d == 0 && (d > 1 || r.chance(30))) divisors.push_back(d);
    }
    if (divisors.empty()) divisors.push_back(1);
    dims.push_back(divisors[r.index(divisors.size())]);
    rest /= dims.back();
  }
  dims.push_back(rest);
  return dims;
}

int gen_reshape(Gen& g, int x) {
  const Array a = g.array(x);
  const Tuple dims = random_factorization(g.r, element_count(a.dims));
  Node n = g.op("reshape", {x}, {g.f32(dims)});
  const Tuple from = a.dims;
  n.reads = [from, dims](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    reads[0].push_back(delinear(linear(out, dims), from));
  };
  return g.add(std::move(n));
}

// A bitcast keeps every element at its row-major physical offset.
int gen_bitcast(Gen& g, int x) {
  const Array a = g.array(x);
  const Array to = g.f32(random_factorization(g.r, element_count(a.dims)), 60);
  cover("bitcast between layouts", !to.minor_to_major.empty() || !a.minor_to_major.empty());
  Node n = g.op("bitcast", {x}, {to});
  n.reads = [a, to](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    reads[0].push_back(from_physical_offset(physical_offset(out, to), a));
  };
  return g.add(std::move(n));
}

// --- concatenate ---

int gen_concatenate(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  const std::size_t c = g.r.index(a.dims.size());
  const std::size_t count = static_cast<std::size_t>(g.r.uniform(2, 3));
  const std::size_t mine = g.r.index(count);
  std::vector<int> operands;
  Tuple sizes;
  std::int64_t total = 0;
  for (std::size_t k = 0; k < count; ++k) {
    int o = x;
    if (k != mine) {
      Tuple dims = a.dims;
      dims[c] = g.r.chance(30) ? a.dims[c] : g.r.uniform(1, 3);
      o = g.operand_like("f32", dims);
    }
    operands.push_back(o);
    sizes.push_back(g.array(o).dims[c]);
    total += sizes.back();
  }
  Tuple dims = a.dims;
  dims[c] = total;
  if (element_count(dims) > g.cap) return -1;
  Node n = g.op("concatenate", operands, {g.f32(dims)}, ", dimensions={" + std::to_string(c) + "}");
  n.reads = [c, sizes](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (out[c] < offset + sizes[k]) {
        Tuple in = out;
        in[c] -= offset;
        reads[k].push_back(in);
        return;
      }
      offset += sizes[k];
    }
  };
  return g.add(std::move(n));
}

// --- dot ---

int gen_dot(Gen& g, int x) {
  const Array a = g.array(x);
  const std::size_t rank = a.dims.size();
  if (rank == 0 || rank > 3) return -1;
  // Role of each dimension of x: 0 batch, 1 contracting, 2 free.
  std::vector<int> role(rank);
  for (int& ro : role) ro = static_cast<int>(g.r.uniform(0, 2));
  // The other operand's dimensions: (role, size, x dimension or -1).
  struct OtherDim {
    int role;
    std::int64_t size;
    std::int64_t x_dim;
  };
  std::vector<OtherDim> other;
  std::int64_t contraction = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    if (role[i] != 2) other.push_back({role[i], a.dims[i], static_cast<std::int64_t>(i)});
    if (role[i] == 1) contraction *= a.dims[i];
  }
  const std::int64_t free_count = g.r.uniform(0, 2);
  for (std::int64_t f = 0; f < free_count; ++f) other.push_back({2, g.r.uniform(1, 3), -1});
  if (other.size() > 4 || contraction > 16) return -1;
  const Tuple order = g.r.permutation(other.size());
  std::vector<OtherDim> shuffled;
  for (std::int64_t o : order) shuffled.push_back(other[static_cast<std::size_t>(o)]);
  Tuple other_dims;
  for (const OtherDim& d : shuffled) other_dims.push_back(d.size);
  // Pairs (x dimension, other dimension), in random order.
  std::vector<std::pair<std::int64_t, std::int64_t>> batch, contracting;
  for (std::size_t j = 0; j < shuffled.size(); ++j) {
    if (shuffled[j].role == 0) batch.emplace_back(shuffled[j].x_dim, static_cast<std::int64_t>(j));
    if (shuffled[j].role == 1) contracting.emplace_back(shuffled[j].x_dim, static_cast<std::int64_t>(j));
  }
  for (auto* pairs : {&batch, &contracting}) {
    const Tuple p = g.r.permutation(pairs->size());
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (std::int64_t i : p) out.push_back((*pairs)[static_cast<std::size_t>(i)]);
    *pairs = out;
  }
  const int y = g.operand_like("f32", other_dims);
  const bool x_is_lhs = g.r.chance(50);
  const Tuple lhs_dims = x_is_lhs ? a.dims : other_dims, rhs_dims = x_is_lhs ? other_dims : a.dims;
  Tuple lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
  for (const auto& [xd, od] : batch) {
    lhs_batch.push_back(x_is_lhs ? xd : od);
    rhs_batch.push_back(x_is_lhs ? od : xd);
  }
  for (const auto& [xd, od] : contracting) {
    lhs_contracting.push_back(x_is_lhs ? xd : od);
    rhs_contracting.push_back(x_is_lhs ? od : xd);
  }
  auto free_dims = [](const Tuple& dims, const Tuple& b, const Tuple& k) {
    Tuple out;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const auto ii = static_cast<std::int64_t>(i);
      if (std::find(b.begin(), b.end(), ii) == b.end() && std::find(k.begin(), k.end(), ii) == k.end())
        out.push_back(ii);
    }
    return out;
  };
  const Tuple lhs_free = free_dims(lhs_dims, lhs_batch, lhs_contracting);
  const Tuple rhs_free = free_dims(rhs_dims, rhs_batch, rhs_contracting);
  Tuple out_dims;
  for (std::int64_t b : lhs_batch) out_dims.push_back(lhs_dims[static_cast<std::size_t>(b)]);
  for (std::int64_t f : lhs_free) out_dims.push_back(lhs_dims[static_cast<std::size_t>(f)]);
  for (std::int64_t f : rhs_free) out_dims.push_back(rhs_dims[static_cast<std::size_t>(f)]);
  if (element_count(out_dims) > g.cap || out_dims.size() > 4) return -1;
  Tuple contracting_sizes;
  for (std::int64_t k : lhs_contracting) contracting_sizes.push_back(lhs_dims[static_cast<std::size_t>(k)]);
  std::string attributes;
  if (!lhs_batch.empty()) attributes += ", lhs_batch_dims=" + list(lhs_batch) + ", rhs_batch_dims=" + list(rhs_batch);
  if (!lhs_contracting.empty()) {
    attributes += ", lhs_contracting_dims=" + list(lhs_contracting) + ", rhs_contracting_dims=" + list(rhs_contracting);
  }
  Node n = g.op("dot", x_is_lhs ? std::vector<int>{x, y} : std::vector<int>{y, x}, {g.f32(out_dims)}, attributes);
  n.reads = [=](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    for_each_index(contracting_sizes, [&](const Tuple& k) {
      Tuple lhs(lhs_dims.size()), rhs(rhs_dims.size());
      std::size_t at = 0;
      for (std::size_t i = 0; i < lhs_batch.size(); ++i, ++at) {
        lhs[static_cast<std::size_t>(lhs_batch[i])] = out[at];
        rhs[static_cast<std::size_t>(rhs_batch[i])] = out[at];
      }
      for (std::int64_t f : lhs_free) lhs[static_cast<std::size_t>(f)] = out[at++];
      for (std::int64_t f : rhs_free) rhs[static_cast<std::size_t>(f)] = out[at++];
      for (std::size_t i = 0; i < k.size(); ++i) {
        lhs[static_cast<std::size_t>(lhs_contracting[i])] = k[i];
        rhs[static_cast<std::size_t>(rhs_contracting[i])] = k[i];
      }
      reads[0].push_back(lhs);
      reads[1].push_back(rhs);
    });
  };
  return g.add(std::move(n));
}

// --- get-tuple-element, to continue a chain after a tuple-shaped op ---

int add_gte(Gen& g, int tuple, std::int64_t index) {
  Node n = g.op("get-tuple-element", {tuple}, {g.c.node(tuple).outputs[static_cast<std::size_t>(index)]},
                ", index=" + std::to_string(index));
  n.gte_index = index;
  n.reads = [](std::size_t, const Tuple& out, const Env&, Reads& reads) { reads[0].push_back(out); };
  return g.add(std::move(n));
}

/// In a fusion, a tuple-shaped op is followed by a get-tuple-element (the
/// chain continues from an array); alone, it stays the root.
int continue_from(Gen& g, int id) {
  if (g.fused && g.c.node(id).tuple)
    return add_gte(g, id, static_cast<std::int64_t>(g.r.index(g.c.node(id).outputs.size())));
  return id;
}

// --- reduce (variadic) ---

int gen_reduce(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  const Tuple reduced = g.r.subset(a.dims.size(), static_cast<std::size_t>(g.r.uniform(1, rank_of(a))));
  Tuple kept_dims, reduced_sizes;
  for (std::size_t i = 0; i < a.dims.size(); ++i) {
    if (std::binary_search(reduced.begin(), reduced.end(), static_cast<std::int64_t>(i))) {
      reduced_sizes.push_back(a.dims[i]);
    } else {
      kept_dims.push_back(a.dims[i]);
    }
  }
  const std::size_t inputs = g.r.chance(30) ? 2 : 1;
  std::vector<int> operands = {x};
  if (inputs == 2) operands.push_back(g.operand_like("f32", a.dims));
  for (std::size_t k = 0; k < inputs; ++k) operands.push_back(g.scalar_value());
  std::vector<Array> outputs;
  for (std::size_t k = 0; k < inputs; ++k) outputs.push_back(g.f32(kept_dims));
  cover("variadic reduce", inputs == 2);
  Node n = g.op("reduce", operands, outputs,
                ", dimensions=" + list(reduced) + ", to_apply=" + (inputs == 2 ? "%add_pair" : "%add"));
  const Tuple dims = a.dims;
  n.reads = [=](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    for_each_index(reduced_sizes, [&](const Tuple& s) {
      Tuple in(dims.size());
      std::size_t ko = 0, ks = 0;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        in[i] = std::binary_search(reduced.begin(), reduced.end(), static_cast<std::int64_t>(i)) ? s[ks++] : out[ko++];
      }
      for (std::size_t k = 0; k < inputs; ++k) reads[k].push_back(in);
    });
    for (std::size_t k = 0; k < inputs; ++k) reads[inputs + k].push_back({});
  };
  return continue_from(g, g.add(std::move(n)));
}

// --- pad (low/high/interior, negative) ---

int gen_pad(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  Tuple low, high, interior, dims;
  std::string text;
  for (std::size_t i = 0; i < a.dims.size(); ++i) {
    std::int64_t lo = 0, hi = 0, in = 0, size = 0;
    for (int attempt = 0; attempt < 20; ++attempt) {
      lo = g.r.uniform(-2, 3);
      hi = g.r.uniform(-2, 3);
      in = g.r.uniform(0, 2);
      size = lo + hi + a.dims[i] + (a.dims[i] - 1) * in;
      if (size >= 1) break;
    }
    if (size < 1) {
      lo = hi = in = 0;
      size = a.dims[i];
    }
    low.push_back(lo);
    high.push_back(hi);
    interior.push_back(in);
    dims.push_back(size);
    text.append(i ? "x" : "").append(std::to_string(lo) + "_" + std::to_string(hi) + "_" + std::to_string(in));
  }
  if (element_count(dims) > g.cap) return -1;
  cover("negative padding", std::any_of(low.begin(), low.end(), [](std::int64_t v) { return v < 0; }) ||
                                std::any_of(high.begin(), high.end(), [](std::int64_t v) { return v < 0; }));
  cover("interior padding", std::any_of(interior.begin(), interior.end(), [](std::int64_t v) { return v > 0; }));
  const int value = g.scalar_value();
  Node n = g.op("pad", {x, value}, {g.f32(dims)}, ", padding=" + text);
  const Tuple operand = a.dims;
  n.reads = [=](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    Tuple in(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::int64_t q = out[i] - low[i];
      if (q < 0 || q % (interior[i] + 1) != 0 || q / (interior[i] + 1) >= operand[i]) {
        reads[1].push_back({});
        return;
      }
      in[i] = q / (interior[i] + 1);
    }
    reads[0].push_back(in);
  };
  return g.add(std::move(n));
}

// --- reduce-window (stride, padding, base and window dilation; variadic) ---

using test::random_window;
using test::window_input;
using test::window_text;
using test::WindowDim;

int gen_reduce_window(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  std::vector<WindowDim> window(a.dims.size());
  Tuple dims, sizes;
  for (std::size_t i = 0; i < a.dims.size(); ++i) {
    const std::int64_t out = random_window(g.r, a.dims[i], -1, window[i]);
    if (out == 0) return -1;
    dims.push_back(out);
    sizes.push_back(window[i].size);
  }
  if (element_count(dims) > g.cap) return -1;
  const std::size_t inputs = g.r.chance(25) ? 2 : 1;
  std::vector<int> operands = {x};
  if (inputs == 2) operands.push_back(g.operand_like("f32", a.dims));
  for (std::size_t k = 0; k < inputs; ++k) operands.push_back(g.scalar_value());
  std::vector<Array> outputs;
  for (std::size_t k = 0; k < inputs; ++k) outputs.push_back(g.f32(dims));
  for (const WindowDim& w : window) {
    cover("reduce-window stride", w.stride > 1);
    cover("reduce-window padding", w.low != 0 || w.high != 0);
    cover("reduce-window base dilation", w.base > 1);
    cover("reduce-window window dilation", w.dilation > 1);
  }
  cover("variadic reduce-window", inputs == 2);
  Node n = g.op("reduce-window", operands, outputs,
                ", window=" + window_text(window) + ", to_apply=" + (inputs == 2 ? "%add_pair" : "%add"));
  const Tuple operand = a.dims;
  n.reads = [=](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    for_each_index(sizes, [&](const Tuple& s) {
      Tuple in(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        auto p = window_input(window[i], operand[i], out[i], s[i]);
        if (!p) return;
        in[i] = *p;
      }
      for (std::size_t k = 0; k < inputs; ++k) reads[k].push_back(in);
    });
    for (std::size_t k = 0; k < inputs; ++k) reads[inputs + k].push_back({});
  };
  return continue_from(g, g.add(std::move(n)));
}

// --- convolution (dim_labels, window, feature and batch groups) ---

int gen_convolution(Gen& g, int x) {
  const auto conv = test::random_convolution(g.r, g.array(x).dims, g.cap);
  if (!conv) return -1;
  cover("convolution feature groups", conv->feature_groups > 1);
  cover("convolution batch groups", conv->batch_groups > 1);
  cover("convolution with two spatial dimensions", conv->spatial == 2);
  for (const WindowDim& w : conv->window) {
    cover("convolution stride", w.stride > 1);
    cover("convolution negative padding", w.low < 0 || w.high < 0);
    cover("convolution lhs dilation", w.base > 1);
    cover("convolution rhs dilation", w.dilation > 1);
    cover("convolution window reversal", w.reversal && w.size > 1);
    cover("convolution window over padding or a hole", w.low > 0 || w.base > 1);
  }
  const int kernel = g.operand_like("f32", conv->kernel);
  Node n = g.op("convolution", {x, kernel}, {g.f32(conv->output)}, conv->attributes());
  n.reads = [c = *conv](std::size_t, const Tuple& out, const Env&, Reads& reads) {
    test::for_each_term(c, out, [&](const Tuple& in, const Tuple& k) {
      reads[0].push_back(in);
      reads[1].push_back(k);
    });
  };
  return g.add(std::move(n));
}

// --- dynamic-slice and dynamic-update-slice ---

int gen_dynamic_slice(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  Tuple sizes;
  std::vector<int> operands = {x};
  for (std::int64_t n : a.dims) {
    sizes.push_back(g.r.uniform(1, n));
    operands.push_back(g.scalar_offset(n - sizes.back()));
  }
  for (std::size_t i = 1; i < operands.size(); ++i) {
    cover(g.c.node(operands[i]).kind == Kind::kConstant ? "dynamic-slice constant offset"
                                                        : "dynamic-slice parameter offset");
  }
  Node n = g.op("dynamic-slice", operands, {g.f32(sizes)}, ", dynamic_slice_sizes=" + list(sizes));
  n.reads = [operands, a, sizes](std::size_t, const Tuple& out, const Env& env, Reads& reads) {
    Tuple in = out;
    for (std::size_t i = 0; i < out.size(); ++i) in[i] += env.clamped(operands[1 + i], {}, a.dims[i] - sizes[i]);
    reads[0].push_back(in);
    for (std::size_t i = 0; i < out.size(); ++i) reads[1 + i].push_back({});
  };
  return g.add(std::move(n));
}

int gen_dynamic_update_slice(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  int operand = x, update = x;
  Tuple dims, update_dims;
  if (g.r.chance(50)) {
    dims = a.dims;
    for (std::int64_t n : dims) update_dims.push_back(g.r.uniform(1, n));
    update = g.operand_like("f32", update_dims);
  } else {
    update_dims = a.dims;
    for (std::int64_t n : update_dims) dims.push_back(n + g.r.uniform(0, 2));
    if (element_count(dims) > g.cap) return -1;
    operand = g.operand_like("f32", dims);
  }
  std::vector<int> operands = {operand, update};
  for (std::size_t i = 0; i < dims.size(); ++i) operands.push_back(g.scalar_offset(dims[i] - update_dims[i]));
  for (std::size_t i = 2; i < operands.size(); ++i) {
    cover(g.c.node(operands[i]).kind == Kind::kConstant ? "dynamic-update-slice constant offset"
                                                        : "dynamic-update-slice parameter offset");
  }
  Node n = g.op("dynamic-update-slice", operands, {g.f32(dims)});
  n.reads = [operands, dims, update_dims](std::size_t, const Tuple& out, const Env& env, Reads& reads) {
    Tuple in = out;
    bool inside = true;
    for (std::size_t i = 0; i < out.size(); ++i) {
      in[i] -= env.clamped(operands[2 + i], {}, dims[i] - update_dims[i]);
      inside = inside && in[i] >= 0 && in[i] < update_dims[i];
    }
    if (inside) {
      reads[1].push_back(in);
    } else {
      reads[0].push_back(out);
    }
    for (std::size_t i = 0; i < out.size(); ++i) reads[2 + i].push_back({});
  };
  return g.add(std::move(n));
}

// --- gather (general form) ---

int gen_gather(Gen& g, int x) {
  const Array a = g.array(x);
  const std::size_t rank = a.dims.size();
  if (rank == 0) return -1;
  const std::size_t vector_size = static_cast<std::size_t>(g.r.uniform(1, static_cast<std::int64_t>(rank)));
  Tuple start_index_map = g.r.permutation(rank);
  start_index_map.resize(vector_size);
  const Tuple collapsed = g.r.subset(rank, static_cast<std::size_t>(g.r.uniform(0, static_cast<std::int64_t>(rank))));
  // Operand batching dimensions (at most two): neither collapsed nor in start_index_map.
  Tuple batching;
  if (g.r.chance(35)) {
    for (std::size_t k = 0; k < rank && batching.size() < 2; ++k) {
      const auto kk = static_cast<std::int64_t>(k);
      const bool free = !std::binary_search(collapsed.begin(), collapsed.end(), kk) &&
                        std::find(start_index_map.begin(), start_index_map.end(), kk) == start_index_map.end();
      if (free && g.r.chance(60)) batching.push_back(kk);
    }
  }
  auto is_batching = [&](std::size_t k) {
    return std::find(batching.begin(), batching.end(), static_cast<std::int64_t>(k)) != batching.end();
  };
  Tuple slice_sizes(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const bool is_collapsed = std::binary_search(collapsed.begin(), collapsed.end(), static_cast<std::int64_t>(k));
    slice_sizes[k] = is_collapsed || is_batching(k) ? 1 : g.r.uniform(1, a.dims[k]);
  }
  Tuple window_dims;  // operand dimensions neither collapsed nor batching
  for (std::size_t k = 0; k < rank; ++k) {
    if (!std::binary_search(collapsed.begin(), collapsed.end(), static_cast<std::int64_t>(k)) && !is_batching(k)) {
      window_dims.push_back(static_cast<std::int64_t>(k));
    }
  }
  const std::size_t batch_rank = static_cast<std::size_t>(g.r.uniform(static_cast<std::int64_t>(batching.size()), 2));
  Tuple batch_sizes;
  for (std::size_t b = 0; b < batch_rank; ++b) batch_sizes.push_back(g.r.uniform(1, 3));
  // Batch position of each operand batching dimension (distinct), sized as the operand dimension.
  Tuple batching_position = g.r.permutation(batch_rank);
  batching_position.resize(batching.size());
  for (std::size_t i = 0; i < batching.size(); ++i)
    batch_sizes[static_cast<std::size_t>(batching_position[i])] = a.dims[static_cast<std::size_t>(batching[i])];
  const bool implicit = vector_size == 1 && g.r.chance(30);
  const std::size_t index_vector_dim = implicit ? batch_rank : g.r.index(batch_rank + 1);
  Tuple indices_batching;  // the indices dimension of each batching position
  for (std::int64_t p : batching_position)
    indices_batching.push_back(p + (!implicit && static_cast<std::size_t>(p) >= index_vector_dim ? 1 : 0));
  Tuple indices_dims = batch_sizes;
  if (!implicit)
    indices_dims.insert(indices_dims.begin() + static_cast<std::ptrdiff_t>(index_vector_dim),
                        static_cast<std::int64_t>(vector_size));
  const std::size_t out_rank = batch_rank + window_dims.size();
  const Tuple offset_dims = g.r.subset(out_rank, window_dims.size());
  Tuple out_dims(out_rank);
  {
    std::size_t w = 0, b = 0;
    for (std::size_t i = 0; i < out_rank; ++i) {
      if (std::binary_search(offset_dims.begin(), offset_dims.end(), static_cast<std::int64_t>(i))) {
        out_dims[i] = slice_sizes[static_cast<std::size_t>(window_dims[w++])];
      } else {
        out_dims[i] = batch_sizes[b++];
      }
    }
  }
  if (element_count(out_dims) > g.cap || out_rank > 4) return -1;
  const Tuple operand_dims = a.dims;
  // The clamp limit of an element of the indices: by its entry j of the vector.
  auto entry_of = [implicit, index_vector_dim](const Tuple& index) {
    return implicit ? std::size_t{0} : static_cast<std::size_t>(index[index_vector_dim]);
  };
  auto limit = [=](const Tuple& index) {
    const auto k = static_cast<std::size_t>(start_index_map[entry_of(index)]);
    return operand_dims[k] - slice_sizes[k];
  };
  // The indices: a parameter, a constant or an iota.
  OffsetSource source = g.offsets;
  if (source == OffsetSource::kRandom) {
    const int pick = static_cast<int>(g.r.uniform(0, 3));
    source = pick <= 1 ? OffsetSource::kParameter : pick == 2 ? OffsetSource::kConstant : OffsetSource::kIota;
  }
  if (source == OffsetSource::kIota && indices_dims.empty()) source = OffsetSource::kConstant;
  Node indices;
  indices.outputs = {g.with_layout(Array{"s32", indices_dims, {}})};
  indices.limit = limit;
  if (source == OffsetSource::kParameter) {
    indices.kind = Kind::kParam;
    indices.parameter = g.c.parameters++;
  } else if (source == OffsetSource::kConstant) {
    indices.kind = Kind::kConstant;
    for_each_index(indices_dims,
                   [&](const Tuple& index) { indices.data.push_back(g.r.uniform(-2, limit(index) + 2)); });
  } else {
    indices.kind = Kind::kIota;
    indices.iota_dim = g.r.index(indices_dims.size());
  }
  cover(source == OffsetSource::kParameter  ? "gather parameter indices"
        : source == OffsetSource::kConstant ? "gather constant indices"
                                            : "gather iota indices");
  cover("gather implicit index vector", implicit);
  cover("gather collapsed dimensions", !collapsed.empty());
  cover("gather two batch dimensions", batch_rank == 2);
  cover("gather start vector of two or more", vector_size > 1);
  cover("gather operand batching dimensions", !batching.empty());
  const int indices_id = g.add(std::move(indices));
  const std::string batching_attributes =
      batching.empty()
          ? std::string()
          : ", operand_batching_dims=" + list(batching) + ", start_indices_batching_dims=" + list(indices_batching);
  Node n = g.op("gather", {x, indices_id}, {g.f32(out_dims)},
                ", offset_dims=" + list(offset_dims) + ", collapsed_slice_dims=" + list(collapsed) +
                    batching_attributes + ", start_index_map=" + list(start_index_map) +
                    ", index_vector_dim=" + std::to_string(index_vector_dim) + ", slice_sizes=" + list(slice_sizes));
  n.reads = [=](std::size_t, const Tuple& out, const Env& env, Reads& reads) {
    Tuple batch, offsets;
    for (std::size_t i = 0; i < out.size(); ++i) {
      (std::binary_search(offset_dims.begin(), offset_dims.end(), static_cast<std::int64_t>(i)) ? offsets : batch)
          .push_back(out[i]);
    }
    Tuple in(operand_dims.size(), 0);
    for (std::size_t w = 0; w < window_dims.size(); ++w) in[static_cast<std::size_t>(window_dims[w])] = offsets[w];
    // A batching dimension is read at its paired batch index (not an offset from the indices).
    for (std::size_t i = 0; i < batching.size(); ++i)
      in[static_cast<std::size_t>(batching[i])] = batch[static_cast<std::size_t>(batching_position[i])];
    for (std::size_t j = 0; j < vector_size; ++j) {
      Tuple index = batch;
      if (!implicit)
        index.insert(index.begin() + static_cast<std::ptrdiff_t>(index_vector_dim), static_cast<std::int64_t>(j));
      in[static_cast<std::size_t>(start_index_map[j])] += env.clamped(indices_id, index);
      reads[1].push_back(index);
    }
    reads[0].push_back(in);
  };
  return g.add(std::move(n));
}

// --- all-gather (variadic alone) ---

int gen_all_gather(Gen& g, int x) {
  const Array a = g.array(x);
  if (a.dims.empty()) return -1;
  const std::size_t dim = g.r.index(a.dims.size());
  const std::int64_t replicas = g.r.uniform(2, 3);
  std::vector<int> operands = {x};
  if (!g.fused && g.r.chance(30)) {
    Tuple dims = a.dims;
    dims[dim] = g.r.uniform(1, 3);
    operands.push_back(g.param(g.f32(dims)));
  }
  std::vector<Array> outputs;
  Tuple sizes;
  for (int o : operands) {
    Tuple dims = g.array(o).dims;
    sizes.push_back(dims[dim]);
    dims[dim] *= replicas;
    if (element_count(dims) > g.cap) return -1;
    outputs.push_back(g.f32(dims));
  }
  Tuple group(static_cast<std::size_t>(replicas));
  std::iota(group.begin(), group.end(), 0);
  cover("variadic all-gather", operands.size() > 1);
  Node n = g.op("all-gather", operands, outputs,
                ", dimensions={" + std::to_string(dim) + "}, replica_groups={" + list(group) + "}");
  n.reads = [dim, sizes](std::size_t k, const Tuple& out, const Env&, Reads& reads) {
    Tuple in = out;
    in[dim] %= sizes[k];
    reads[k].push_back(in);
  };
  return g.add(std::move(n));
}

// --- tuple and get-tuple-element ---

int gen_tuple(Gen& g, int x) {
  const Array a = g.array(x);
  std::vector<int> operands = {x};
  const std::size_t more = static_cast<std::size_t>(g.r.uniform(1, 2));
  for (std::size_t k = 0; k < more; ++k) {
    const int o = g.r.chance(30) ? g.operand_like("f32", a.dims)
                                 : g.param(g.f32(g.random_dims(static_cast<std::size_t>(g.r.uniform(0, 2)), 4, 20)));
    operands.insert(operands.begin() + static_cast<std::ptrdiff_t>(g.r.index(operands.size() + 1)), o);
  }
  std::vector<Array> outputs;
  outputs.reserve(operands.size());
  for (int o : operands) outputs.push_back(g.array(o));
  Node n = g.op("tuple", operands, outputs);
  n.tuple = true;
  n.reads = [](std::size_t k, const Tuple& out, const Env&, Reads& reads) { reads[k].push_back(out); };
  return continue_from(g, g.add(std::move(n)));
}

/// get-tuple-element of a tuple-shaped parameter (alone only: in fusions,
/// get-tuple-element follows tuple-shaped ops).
int gen_gte_of_parameter(Gen& g, int x) {
  if (g.fused) return -1;
  Node p;
  p.kind = Kind::kParam;
  p.parameter = g.c.parameters++;
  p.tuple = true;
  const std::size_t count = static_cast<std::size_t>(g.r.uniform(2, 3));
  for (std::size_t k = 0; k < count; ++k)
    p.outputs.push_back(g.f32(g.random_dims(static_cast<std::size_t>(g.r.uniform(0, 3)), 4, 40)));
  const std::size_t index = g.r.index(count);
  p.outputs[index] = g.array(x);
  const int tuple = g.add(std::move(p));
  cover("get-tuple-element of a tuple parameter");
  return add_gte(g, tuple, static_cast<std::int64_t>(index));
}

}  // namespace

// --- the catalogue ---

const char* op_name(Op op) {
  static const char* const names[k_op_count] = {"elementwise",      "broadcast",     "transpose",
                                                "reverse",          "slice",         "reshape",
                                                "bitcast",          "concatenate",   "dot",
                                                "reduce",           "pad",           "reduce-window",
                                                "convolution",      "dynamic-slice", "dynamic-update-slice",
                                                "gather",           "all-gather",    "tuple",
                                                "get-tuple-element"};
  return names[static_cast<int>(op)];
}

int generate(Gen& g, Op op, int x) {
  switch (op) {
    case Op::kElementwise: return gen_elementwise(g, x);
    case Op::kBroadcast: return gen_broadcast(g, x);
    case Op::kTranspose: return gen_transpose(g, x);
    case Op::kReverse: return gen_reverse(g, x);
    case Op::kSlice: return gen_slice(g, x);
    case Op::kReshape: return gen_reshape(g, x);
    case Op::kBitcast: return gen_bitcast(g, x);
    case Op::kConcatenate: return gen_concatenate(g, x);
    case Op::kDot: return gen_dot(g, x);
    case Op::kReduce: return gen_reduce(g, x);
    case Op::kPad: return gen_pad(g, x);
    case Op::kReduceWindow: return gen_reduce_window(g, x);
    case Op::kConvolution: return gen_convolution(g, x);
    case Op::kDynamicSlice: return gen_dynamic_slice(g, x);
    case Op::kDynamicUpdateSlice: return gen_dynamic_update_slice(g, x);
    case Op::kGather: return gen_gather(g, x);
    case Op::kAllGather: return gen_all_gather(g, x);
    case Op::kTuple: return gen_tuple(g, x);
    case Op::kGetTupleElement: return gen_gte_of_parameter(g, x);
  }
  return -1;
}

// ---------------------------------------------------------------------------
// Reference relations: tuples (output index..., operand index...).

/// Single op: [output][operand position].
std::vector<std::vector<TupleSet>> reference_single(const Computation& c, const Env& env) {
  const Node& n = c.node(c.root);
  std::vector<std::vector<TupleSet>> out(n.outputs.size(), std::vector<TupleSet>(n.operands.size()));
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    for_each_index(n.outputs[k].dims, [&](const Tuple& index) {
      Reads reads(n.operands.size());
      n.reads(k, index, env, reads);
      for (std::size_t p = 0; p < reads.size(); ++p) {
        for (const Tuple& in : reads[p]) out[k][p].insert(concat(index, in));
      }
    });
  }
  return out;
}

/// (a..., b...) -> (b..., a...) where a has `first` columns.
TupleSet inverse(const TupleSet& relation, std::size_t first) {
  TupleSet out;
  for (const Tuple& t : relation) {
    Tuple r(t.begin() + static_cast<std::ptrdiff_t>(first), t.end());
    r.insert(r.end(), t.begin(), t.begin() + static_cast<std::ptrdiff_t>(first));
    out.insert(std::move(r));
  }
  return out;
}
/// Random values for the integer parameters (offsets and indices): in and
/// out of range, negative too.
Env random_env(const Computation& c, Rng& r) {
  Env env;
  env.comp = &c;
  for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) {
    const Node& n = c.node(id);
    if (n.kind != Kind::kParam || !n.limit) continue;
    Tuple values;
    for_each_index(n.outputs[0].dims, [&](const Tuple& index) {
      const std::int64_t limit = n.limit(index);
      const int pick = static_cast<int>(r.uniform(0, 9));
      cover("offset below 0", pick == 2);
      cover("offset above its limit", pick == 3);
      values.push_back(pick == 0   ? 0
                       : pick == 1 ? limit
                       : pick == 2 ? r.uniform(-4, -1)
                       : pick == 3 ? r.uniform(limit + 1, limit + 4)
                                   : r.uniform(0, limit));
    });
    env.values[id] = std::move(values);
  }
  return env;
}

bool has_runtime_parameters(const Computation& c) {
  return std::any_of(c.nodes.begin(), c.nodes.end(), [](const Node& n) { return n.kind == Kind::kParam && n.limit; });
}

std::string env_text(const Computation& c, const Env& env) {
  std::string out;
  for (const auto& [id, values] : env.values) out += "  %" + c.node(id).name + " = {" + join(values, ", ") + "}\n";
  return out.empty() ? "  (none)\n" : out;
}
/// A random array shape for the main operand of a single op.
Array random_operand(Gen& g, std::size_t min_rank, std::size_t max_rank, std::int64_t max_elements) {
  const auto rank =
      static_cast<std::size_t>(g.r.uniform(static_cast<std::int64_t>(min_rank), static_cast<std::int64_t>(max_rank)));
  return g.f32(g.random_dims(rank, 5, max_elements));
}

/// One op alone in the entry, on parameters (and constants, iotas).
Computation single_op(Op op, std::uint64_t seed, OffsetSource offsets) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    Computation c;
    Rng r(seed * 1000 + static_cast<std::uint64_t>(attempt));
    Gen g(c, r, false);
    g.offsets = offsets;
    const bool scalar_ok = op == Op::kElementwise || op == Op::kReshape || op == Op::kBitcast || op == Op::kTuple ||
                           op == Op::kGetTupleElement;
    const std::size_t min_rank = op == Op::kConvolution ? 3 : scalar_ok ? 0 : 1;
    const std::size_t max_rank = op == Op::kConvolution ? 4 : 3;
    const int x = g.param(random_operand(g, min_rank, max_rank, op == Op::kBroadcast ? 40 : 100));
    const int id = generate(g, op, x);
    if (id < 0) continue;
    c.root = id;
    return c;
  }
  FAIL("no " << op_name(op) << " fits after 200 attempts, seed " << seed);
  return {};
}

bool has_runtime_offsets(Op op) {
  return op == Op::kDynamicSlice || op == Op::kDynamicUpdateSlice || op == Op::kGather;
}

const Op k_fusion_ops[] = {Op::kElementwise,  Op::kElementwise, Op::kBroadcast,    Op::kTranspose,
                           Op::kReverse,      Op::kSlice,       Op::kReshape,      Op::kBitcast,
                           Op::kConcatenate,  Op::kDot,         Op::kReduce,       Op::kPad,
                           Op::kReduceWindow, Op::kConvolution, Op::kDynamicSlice, Op::kDynamicUpdateSlice,
                           Op::kGather,       Op::kAllGather,   Op::kTuple};

/// A fused computation of 2-5 random ops (a chain with side operands that
/// may be earlier nodes); sometimes a tuple root (multi-output fusion).
/// `runtime`: at least one op with runtime offsets (dynamic-slice,
/// dynamic-update-slice, gather); otherwise none.
Computation random_fusion(std::uint64_t seed, bool runtime, std::string& ops) {
  Computation c;
  Rng r(seed);
  Gen g(c, r, true);
  g.cap = 120;
  int x = g.param(random_operand(g, 1, 3, 60));
  const int count = static_cast<int>(r.uniform(2, 5));
  const int dynamic_at = static_cast<int>(r.uniform(0, count - 1));
  std::vector<int> values = {x};
  for (int i = 0; i < count; ++i) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      const Op op = k_fusion_ops[r.index(std::size(k_fusion_ops))];
      if (has_runtime_offsets(op) ? !runtime : (runtime && i == dynamic_at)) continue;
      const int next = generate(g, op, x);
      if (next < 0) continue;
      ops.append(ops.empty() ? "" : ", ").append(op_name(op));
      x = next;
      values.push_back(x);
      break;
    }
  }
  if (r.chance(15) && values.size() > 2) {
    const int other = values[r.index(values.size() - 1)];
    Node n = g.op("tuple", {x, other}, {c.array(x), c.array(other)});
    n.tuple = true;
    n.reads = [](std::size_t k, const Tuple& out, const Env&, Reads& reads) { reads[k].push_back(out); };
    x = g.add(std::move(n));
    ops += ", tuple root";
    cover("multi-output fusion");
  }
  c.root = x;
  return c;
}

}  // namespace hlo_index::test::ops
