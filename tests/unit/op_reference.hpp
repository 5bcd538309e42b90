// Random small HLO computations with a direct evaluation of every op's
// semantics, shared by the brute-force tests (test_indexing_op_bruteforce:
// maps; test_cost_bruteforce: bytes and FLOPs). Independently of indexing/,
// every op has a reference: for each output element, the operand elements it
// reads, evaluated from XLA's operation semantics (with concrete values for
// dynamic offsets and gather indices, clamped as XLA clamps them). Fusions
// compose these relations through the fused computation.
//
// Ops: elementwise (select and clamp with scalar operands), broadcast,
// transpose, reverse, strided slice, reshape, bitcast between layouts,
// concatenate, dot, variadic reduce, pad (negative, interior), variadic
// reduce-window (stride, padding, base and window dilation), convolution
// (dim_labels, stride, padding, lhs/rhs dilation, window reversal, feature and
// batch groups), dynamic-slice, dynamic-update-slice, gather (general form;
// parameter, constant and iota indices), all-gather, tuple,
// get-tuple-element; random kLoop fusions of 2-5 of them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "test_rng.hpp"

namespace hlo_index::test::ops {

using Tuple = std::vector<std::int64_t>;
using TupleSet = std::set<Tuple>;

/// How often the generators produced each feature (per test case): every
/// test case checks that the features it is about were exercised.
std::map<std::string, int>& coverage();
void cover(const std::string& feature, bool happened = true);

// ---------------------------------------------------------------------------
// Shapes and indices.

struct Array {
  Array() = default;
  Array(std::string t, Tuple d, Tuple m2m = {}, std::string suffix = {})
      : type(std::move(t)), dims(std::move(d)), minor_to_major(std::move(m2m)), layout_suffix(std::move(suffix)) {}
  std::string type = "f32";
  Tuple dims;
  Tuple minor_to_major;  // empty: the default (row-major) layout
  /// Printed after minor_to_major inside the braces (":T(8,128)(2,1)"); the
  /// ops' reads do not depend on it (bitcast aside, which assumes none).
  std::string layout_suffix;
};

std::int64_t element_count(const Tuple& dims);
std::string join(const Tuple& v, const char* separator = ",");
std::string to_string(const Tuple& t);
Tuple default_layout(std::size_t rank);
/// "f32[2,3]{1,0}" (no layout for a scalar).
std::string shape_text(const Array& a);
/// Row-major linear index and its inverse.
std::int64_t linear(const Tuple& index, const Tuple& dims);
Tuple delinear(std::int64_t l, const Tuple& dims);
/// Physical order of an array's dimensions, major to minor: the reverse of
/// minor_to_major.
std::vector<std::size_t> physical_order(const Array& a);
/// Offset in the untiled buffer, and its inverse.
std::int64_t physical_offset(const Tuple& index, const Array& a);
Tuple from_physical_offset(std::int64_t offset, const Array& a);
Tuple concat(const Tuple& a, const Tuple& b);
std::int64_t rank_of(const Array& a);
/// "{1,2}".
std::string list(const Tuple& v);

/// Calls fn for every index of `dims` in row-major order (once for a scalar).
template <typename Fn>
void for_each_index(const Tuple& dims, Fn&& fn) {
  for (std::int64_t d : dims) {
    if (d <= 0) return;
  }
  Tuple index(dims.size(), 0);
  while (true) {
    fn(static_cast<const Tuple&>(index));
    std::size_t i = dims.size();
    for (;;) {
      if (i == 0) return;
      --i;
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
}

// ---------------------------------------------------------------------------
// A small model of a computation: enough to print it as HLO text and to
// evaluate every op's reads directly.

enum class Kind { kParam, kConstant, kIota, kOp };

/// Per operand position, the operand elements an output element reads.
using Reads = std::vector<std::vector<Tuple>>;

struct Computation;

/// Concrete values of the integer leaves (offsets, indices) of one trial.
struct Env {
  const Computation* comp = nullptr;
  std::map<int, Tuple> values;  // parameter node -> row-major values
  std::int64_t value(int node, const Tuple& index) const;
  /// The value clamped as the consuming op clamps it.
  std::int64_t clamped(int node, const Tuple& index) const;
  /// The value clamped to [0, limit] (a scalar offset shared by ops that clamp it differently).
  std::int64_t clamped(int node, const Tuple& index, std::int64_t limit) const {
    return std::clamp<std::int64_t>(value(node, index), 0, limit);
  }
};

struct Node {
  Kind kind = Kind::kOp;
  std::string name;
  std::vector<Array> outputs;
  bool tuple = false;
  std::string opcode, attributes;  // attributes: ", name=value..." as printed
  std::vector<int> operands;
  std::int64_t parameter = -1;
  Tuple data;  // constants: row-major values
  std::size_t iota_dim = 0;
  std::int64_t gte_index = -1;  // get-tuple-element: which element of its operand
  /// The reads of output k at `index`; fills one list per operand position.
  std::function<void(std::size_t, const Tuple&, const Env&, Reads&)> reads;
  /// Integer leaves used as offsets: the clamp limit of each element.
  std::function<std::int64_t(const Tuple&)> limit;
};

struct Computation {
  std::vector<Node> nodes;
  std::int64_t parameters = 0;
  int root = -1;
  const Array& array(int id) const { return nodes[static_cast<std::size_t>(id)].outputs.at(0); }
  const Node& node(int id) const { return nodes[static_cast<std::size_t>(id)]; }
  Node& node(int id) { return nodes[static_cast<std::size_t>(id)]; }
};

std::string node_shape_text(const Node& n);
std::string instruction_text(const Computation& c, int id);
/// The module text: the computation as ENTRY (a single op), or as the body of
/// a kLoop fusion that the ENTRY calls with one parameter per fused one.
std::string module_text(const Computation& c, bool fused);

// ---------------------------------------------------------------------------
// Random ops. Each generator takes the node its main operand comes from and
// returns the new node, or -1 when that operand's shape does not suit it.
// Further operands are new parameters, or (in fusions, sometimes) existing
// nodes of the same shape, which turns chains into DAGs.

enum class OffsetSource { kRandom, kParameter, kConstant, kIota };

struct Gen {
  Gen(Computation& computation, Rng& rng, bool in_fusion) : c(computation), r(rng), fused(in_fusion) {}

  Computation& c;
  Rng& r;
  bool fused = false;
  std::int64_t cap = 160;  // elements of any array
  OffsetSource offsets = OffsetSource::kRandom;

  const Array& array(int id) const { return c.array(id); }

  int add(Node n) {
    n.name = (n.kind == Kind::kParam ? "p" + std::to_string(n.parameter) : "n" + std::to_string(c.nodes.size()));
    c.nodes.push_back(std::move(n));
    return static_cast<int>(c.nodes.size()) - 1;
  }

  Array with_layout(Array a, int percent = 25) {
    a.minor_to_major.clear();
    if (a.dims.size() > 1 && r.chance(percent)) a.minor_to_major = r.permutation(a.dims.size());
    return a;
  }

  Array f32(Tuple dims, int layout_percent = 25) {
    return with_layout(Array{"f32", std::move(dims), {}}, layout_percent);
  }

  int param(Array a) {
    Node n;
    n.kind = Kind::kParam;
    n.parameter = c.parameters++;
    n.outputs = {std::move(a)};
    return add(std::move(n));
  }

  /// An operand of the given type and dimensions.
  int operand_like(const std::string& type, const Tuple& dims) {
    if (fused && r.chance(40)) {
      std::vector<int> same;
      for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) {
        const Node& n = c.node(id);
        if (n.tuple || n.kind == Kind::kConstant || n.kind == Kind::kIota) continue;
        if (n.outputs[0].type == type && n.outputs[0].dims == dims && !n.limit) same.push_back(id);
      }
      if (!same.empty()) {
        cover("fusion operand shared by two users");
        return same[r.index(same.size())];
      }
    }
    return param(with_layout(Array{type, dims, {}}));
  }

  /// A scalar f32 operand (init or padding value): a parameter or a constant.
  int scalar_value() {
    if (r.chance(50)) return param(Array{"f32", {}, {}});
    Node n;
    n.kind = Kind::kConstant;
    n.outputs = {Array{"f32", {}, {}}};
    n.data = {r.uniform(-2, 2)};
    return add(std::move(n));
  }

  /// A scalar s32 offset clamped to [0, limit]. In a fusion, sometimes an
  /// offset parameter another op reads already (one runtime value read
  /// twice, perhaps clamped to another range).
  int scalar_offset(std::int64_t limit) {
    if (fused && offsets == OffsetSource::kRandom && r.chance(30)) {
      std::vector<int> offsets_so_far;
      for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) {
        const Node& n = c.node(id);
        if (n.kind == Kind::kParam && n.limit && n.outputs[0].dims.empty()) offsets_so_far.push_back(id);
      }
      if (!offsets_so_far.empty()) {
        const int shared = offsets_so_far[r.index(offsets_so_far.size())];
        cover("offset shared by two users");
        cover("shared offset clamped alike", c.node(shared).limit({}) == limit);
        return shared;
      }
    }
    const bool constant = offsets == OffsetSource::kConstant || (offsets == OffsetSource::kRandom && r.chance(35));
    Node n;
    n.outputs = {Array{"s32", {}, {}}};
    n.limit = [limit](const Tuple&) { return limit; };
    if (constant) {
      n.kind = Kind::kConstant;
      n.data = {r.uniform(-3, limit + 3)};
      return add(std::move(n));
    }
    n.kind = Kind::kParam;
    n.parameter = c.parameters++;
    return add(std::move(n));
  }

  Node op(const std::string& opcode, std::vector<int> operands, std::vector<Array> outputs,
          std::string attributes = {}) {
    Node n;
    n.opcode = opcode;
    n.operands = std::move(operands);
    n.tuple = outputs.size() > 1;
    n.outputs = std::move(outputs);
    n.attributes = std::move(attributes);
    return n;
  }

  /// Random dimensions with at most `max_elements` elements.
  Tuple random_dims(std::size_t rank, std::int64_t max_size, std::int64_t max_elements) {
    Tuple dims;
    std::int64_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int64_t most = std::max<std::int64_t>(1, std::min(max_size, max_elements / n));
      dims.push_back(r.uniform(1, most));
      n *= dims.back();
    }
    return dims;
  }
};

// --- the catalogue ---

enum class Op {
  kElementwise,
  kBroadcast,
  kTranspose,
  kReverse,
  kSlice,
  kReshape,
  kBitcast,
  kConcatenate,
  kDot,
  kReduce,
  kPad,
  kReduceWindow,
  kConvolution,
  kDynamicSlice,
  kDynamicUpdateSlice,
  kGather,
  kAllGather,
  kTuple,
  kGetTupleElement,
};
constexpr int k_op_count = 19;

const char* op_name(Op op);
/// A new node applying `op` to node `x` (-1: x does not suit it).
int generate(Gen& g, Op op, int x);
/// A random array shape for the main operand of a single op.
Array random_operand(Gen& g, std::size_t min_rank, std::size_t max_rank, std::int64_t max_elements);
/// One op alone in the entry, on parameters (and constants, iotas).
Computation single_op(Op op, std::uint64_t seed, OffsetSource offsets = OffsetSource::kRandom);
bool has_runtime_offsets(Op op);
/// A fused computation of 2-5 random ops (a chain with side operands that
/// may be earlier nodes); sometimes a tuple root (multi-output fusion).
/// `runtime`: at least one op with runtime offsets (dynamic-slice,
/// dynamic-update-slice, gather); otherwise none. `ops` names them.
Computation random_fusion(std::uint64_t seed, bool runtime, std::string& ops);

// ---------------------------------------------------------------------------
// Runtime values and reference relations: tuples (output index..., operand index...).

/// Random values for the integer parameters (offsets and indices): in and
/// out of range, negative too.
Env random_env(const Computation& c, Rng& r);
bool has_runtime_parameters(const Computation& c);
std::string env_text(const Computation& c, const Env& env);

/// Single op: [output][operand position].
std::vector<std::vector<TupleSet>> reference_single(const Computation& c, const Env& env);

/// Fusion: the reads composed through the computation, [output][parameter].
class FusionReference {
public:
  FusionReference(const Computation& c, const Env& env) : m_c(c), m_env(env) {}

  std::vector<std::vector<TupleSet>> relations() {
    const Node& root = m_c.node(m_c.root);
    std::vector<const Node*> params(static_cast<std::size_t>(m_c.parameters));
    for (const Node& n : m_c.nodes) {
      if (n.kind == Kind::kParam) params[static_cast<std::size_t>(n.parameter)] = &n;
    }
    std::vector<std::vector<TupleSet>> out(root.outputs.size(), std::vector<TupleSet>(params.size()));
    for (std::size_t k = 0; k < root.outputs.size(); ++k) {
      for_each_index(root.outputs[k].dims, [&](const Tuple& index) {
        for (const auto& [param, element] : reach(m_c.root, k, index)) {
          const Tuple& dims = params[static_cast<std::size_t>(param)]->outputs[0].dims;
          out[k][static_cast<std::size_t>(param)].insert(concat(index, delinear(element, dims)));
        }
      });
    }
    return out;
  }

private:
  using Elements = std::set<std::pair<std::int64_t, std::int64_t>>;  // (parameter, row-major element)

  const Elements& reach(int id, std::size_t k, const Tuple& index) {
    const Node& n = m_c.node(id);
    const auto key = std::make_tuple(id, k, linear(index, n.outputs[k].dims));
    if (auto it = m_memo.find(key); it != m_memo.end()) return it->second;
    Elements elements;
    if (n.kind == Kind::kParam) {
      elements.insert({n.parameter, linear(index, n.outputs[k].dims)});
    } else if (n.kind == Kind::kOp) {
      Reads reads(n.operands.size());
      n.reads(k, index, m_env, reads);
      for (std::size_t p = 0; p < reads.size(); ++p) {
        const std::size_t element = n.gte_index >= 0 ? static_cast<std::size_t>(n.gte_index) : 0;
        for (const Tuple& in : reads[p]) {
          const Elements& more = reach(n.operands[p], element, in);
          elements.insert(more.begin(), more.end());
        }
      }
    }
    return m_memo.emplace(key, std::move(elements)).first->second;
  }

  const Computation& m_c;
  const Env& m_env;
  std::map<std::tuple<int, std::size_t, std::int64_t>, Elements> m_memo;
};

/// (a..., b...) -> (b..., a...) where a has `first` columns.
TupleSet inverse(const TupleSet& relation, std::size_t first);

}  // namespace hlo_index::test::ops
