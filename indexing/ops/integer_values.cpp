#include "indexing/ops/integer_values.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <functional>
#include <limits>
#include <unordered_map>

#include "indexing/ops/op_maps.hpp"
#include "parser/attributes.hpp"
#include "simplify/domain.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

using hlo::ElementType;
using hlo::Opcode;
using simplify::Expr;
using simplify::Interval;
using Values = std::vector<std::int64_t>;

// Chains longer than this (and expressions larger than k_max_nodes) are not followed.
constexpr int k_max_depth = 32;
constexpr std::size_t k_max_nodes = 64;
// Expressions whose values (or dimension sizes) exceed this in magnitude are
// not followed: their intervals stay far from overflowing 64 bits.
constexpr std::int64_t k_max_magnitude = std::int64_t{1} << 40;

// The element count, saturated (a shape too large to tabulate need not be counted exactly).
std::int64_t product(const Values& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d == 0) return 0;
  }
  for (std::int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
  }
  return n;
}

// Row-major position of `index` in `dims`.
std::int64_t linear(const Values& index, const Values& dims) {
  std::int64_t at = 0;
  for (std::size_t k = 0; k < dims.size(); ++k) at = at * dims[k] + index[k];
  return at;
}

// Calls fn(index, position) for every index of `dims` in row-major order.
void for_each_index(const Values& dims, const std::function<void(const Values&, std::size_t)>& fn) {
  if (product(dims) == 0) return;
  Values index(dims.size(), 0);
  for (std::size_t position = 0;; ++position) {
    fn(index, position);
    std::size_t k = dims.size();
    while (k > 0 && ++index[k - 1] == dims[k - 1]) index[--k] = 0;
    if (k == 0) return;
  }
}

// The integers of a literal such as `{ {1, 2}, {3, 4} }`, in order; none
// for anything else (an elided `{...}`, booleans, floats).
std::optional<Values> literal_integers(std::string_view text) {
  Values out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' || c == '}' || c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    std::size_t start = i;
    if (c == '+') start = ++i;
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data() + start, text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data() + start) return std::nullopt;
    out.push_back(value);
    i = static_cast<std::size_t>(end - text.data());
  }
  return out;
}

// A layout that keeps the row-major order (none written, or major to minor
// without tiles): a bitcast between two of them is a reshape.
bool row_major(const hlo::Shape& s) {
  if (!s.layout) return true;
  const auto& m2m = s.layout->minor_to_major;
  for (std::size_t k = 0; k < m2m.size(); ++k) {
    if (m2m[k] != static_cast<std::int64_t>(m2m.size() - 1 - k)) return false;
  }
  return s.layout->tiles.empty();
}

class Evaluator {
public:
  Evaluator(const hlo::Module& module, const hlo::Computation& computation) : m_module(module), m_c(computation) {}

  std::optional<Values> dims(std::uint32_t i) const {
    const hlo::Shape& s = shape(i);
    if (s.is_tuple || !is_integer_type(s.type)) return std::nullopt;
    for (std::int64_t d : s.dims) {
      if (d < 0) return std::nullopt;
    }
    for (hlo::DimKind k : s.dim_kinds) {
      if (k != hlo::DimKind::kStatic) return std::nullopt;
    }
    return s.dims;
  }

  // Each instruction is evaluated once (a chain of ops using one value twice
  // would otherwise take time exponential in its length).
  std::optional<Values> table(std::uint32_t i, int depth) const {
    if (auto it = m_tables.find(i); it != m_tables.end()) return it->second;
    auto values = compute_table(i, depth);
    if (depth <= k_max_depth) m_tables.emplace(i, values);
    return values;
  }

  std::optional<Expr> expression(std::uint32_t i, int depth) const {
    if (auto it = m_expressions.find(i); it != m_expressions.end()) return it->second;
    auto e = compute_expression(i, depth);
    if (depth <= k_max_depth) m_expressions.emplace(i, e);
    return e;
  }

private:
  std::optional<Values> compute_table(std::uint32_t i, int depth) const {
    const auto out_dims = dims(i);
    if (!out_dims || depth > k_max_depth || product(*out_dims) > k_max_tabulated_elements) return std::nullopt;
    auto values = table_of(i, *out_dims, depth);
    if (!values || values->size() != static_cast<std::size_t>(product(*out_dims))) return std::nullopt;
    const Interval range = integer_type_range(shape(i).type);
    for (std::int64_t v : *values) {
      if (!range.contains(v)) return std::nullopt;
    }
    return values;
  }

  std::optional<Expr> compute_expression(std::uint32_t i, int depth) const {
    const auto out_dims = dims(i);
    if (!out_dims || depth > k_max_depth) return std::nullopt;
    for (std::int64_t d : *out_dims) {
      if (d == 0 || d > k_max_magnitude) return std::nullopt;
    }
    auto e = expression_of(i, *out_dims, depth);
    if (!e || e->node_count() > k_max_nodes) return std::nullopt;
    // The values must fit the element type (no wrap-around to account for).
    const Interval range = range_over(*e, i);
    if (!integer_type_range(shape(i).type).contains(range) ||
        !Interval{-k_max_magnitude, k_max_magnitude}.contains(range))
      return std::nullopt;
    return e;
  }

  // The values of an expression over the index space of instruction i.
  Interval range_over(const Expr& e, std::uint32_t i) const {
    std::vector<simplify::Variable> box;
    for (std::int64_t d : shape(i).dims) box.push_back({Interval{0, d - 1}, {}});
    const simplify::Domain domain(std::move(box), {}, {});
    return simplify::RangeEvaluator(domain, false)(e);
  }

  // e * factor when its values stay within k_max_magnitude (checked before multiplying).
  std::optional<Expr> scaled(const Expr& e, std::int64_t factor, std::uint32_t i) const {
    const Interval r = range_over(e, i);
    const std::int64_t largest = std::max(std::abs(r.lo), std::abs(r.hi));
    std::int64_t product = 0;
    if (__builtin_mul_overflow(largest, std::abs(factor), &product) || product > k_max_magnitude) return std::nullopt;
    return e * factor;
  }

  const hlo::Shape& shape(std::uint32_t i) const { return m_module.shape_of(m_c.instructions[i]); }
  std::uint32_t operand(std::uint32_t i, std::size_t k) const { return m_c.operands_of(m_c.instructions[i])[k]; }
  std::size_t operand_count(std::uint32_t i) const { return m_c.instructions[i].operand_count; }
  std::optional<std::int64_t> int_attribute(std::uint32_t i, std::string_view name) const {
    return parser::int_attribute(m_c, m_c.instructions[i], name);
  }
  std::optional<Values> int_list(std::uint32_t i, std::string_view name) const {
    return parser::int_list_attribute(m_c, m_c.instructions[i], name);
  }

  std::optional<Values> table_of(std::uint32_t i, const Values& out, int depth) const {
    const hlo::Instruction& instr = m_c.instructions[i];
    switch (instr.opcode) {
      case Opcode::kConstant: return literal_integers(instr.literal);
      case Opcode::kIota: {
        const auto dimension = int_attribute(i, "iota_dimension");
        if (!dimension || *dimension < 0 || static_cast<std::size_t>(*dimension) >= out.size()) return std::nullopt;
        Values values;
        for_each_index(
            out, [&](const Values& p, std::size_t) { values.push_back(p[static_cast<std::size_t>(*dimension)]); });
        return values;
      }
      case Opcode::kConvert:
      case Opcode::kCopy:
      case Opcode::kReshape: return operand_count(i) == 1 ? table(operand(i, 0), depth + 1) : std::nullopt;
      case Opcode::kBitcast:
        if (operand_count(i) != 1 || shape(operand(i, 0)).type != shape(i).type || !row_major(shape(i)) ||
            !row_major(shape(operand(i, 0))))
          return std::nullopt;
        return table(operand(i, 0), depth + 1);
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kSlice: return moved(i, out, depth);
      case Opcode::kConcatenate: return concatenated(i, out, depth);
      case Opcode::kNegate:
      case Opcode::kAbs: {
        if (operand_count(i) != 1) return std::nullopt;
        auto a = table(operand(i, 0), depth + 1);
        if (!a) return std::nullopt;
        for (std::int64_t& v : *a) {
          if (v == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
          v = instr.opcode == Opcode::kNegate ? -v : std::abs(v);
        }
        return a;
      }
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kMultiply:
      case Opcode::kMinimum:
      case Opcode::kMaximum: return binary(i, depth);
      default: return std::nullopt;
    }
  }

  // broadcast, transpose, slice: output index p reads operand index q(p).
  std::optional<Values> moved(std::uint32_t i, const Values& out, int depth) const {
    if (operand_count(i) != 1) return std::nullopt;
    const auto in_dims = dims(operand(i, 0));
    auto in = table(operand(i, 0), depth + 1);
    if (!in_dims || !in) return std::nullopt;
    std::function<bool(const Values&, Values&)> source;
    const Opcode op = m_c.instructions[i].opcode;
    if (op == Opcode::kSlice) {
      const auto slice = parser::slice_attribute(m_c, m_c.instructions[i]);
      if (!slice || slice->size() != in_dims->size()) return std::nullopt;
      source = [slice](const Values& p, Values& q) {
        for (std::size_t k = 0; k < p.size(); ++k) q[k] = (*slice)[k].start + p[k] * (*slice)[k].stride;
        return true;
      };
    } else {
      const auto dimensions = int_list(i, "dimensions");
      if (!dimensions) return std::nullopt;
      for (std::int64_t d : *dimensions) {
        if (d < 0 || static_cast<std::size_t>(d) >= out.size()) return std::nullopt;
      }
      if (op == Opcode::kBroadcast) {
        if (dimensions->size() != in_dims->size()) return std::nullopt;
        source = [dimensions](const Values& p, Values& q) {
          for (std::size_t k = 0; k < q.size(); ++k) q[k] = p[static_cast<std::size_t>((*dimensions)[k])];
          return true;
        };
      } else {
        if (dimensions->size() != out.size() || in_dims->size() != out.size()) return std::nullopt;
        source = [dimensions](const Values& p, Values& q) {
          for (std::size_t k = 0; k < p.size(); ++k) q[static_cast<std::size_t>((*dimensions)[k])] = p[k];
          return true;
        };
      }
    }
    Values values;
    Values q(in_dims->size(), 0);
    bool inside = true;
    for_each_index(out, [&](const Values& p, std::size_t) {
      source(p, q);
      for (std::size_t k = 0; k < q.size(); ++k) inside = inside && q[k] >= 0 && q[k] < (*in_dims)[k];
      values.push_back(inside ? (*in)[static_cast<std::size_t>(linear(q, *in_dims))] : 0);
    });
    if (!inside) return std::nullopt;
    return values;
  }

  std::optional<Values> concatenated(std::uint32_t i, const Values& out, int depth) const {
    const auto dimensions = int_list(i, "dimensions");
    if (!dimensions || dimensions->size() != 1 || (*dimensions)[0] < 0 ||
        static_cast<std::size_t>((*dimensions)[0]) >= out.size())
      return std::nullopt;
    const auto k = static_cast<std::size_t>((*dimensions)[0]);
    std::vector<Values> parts, part_dims;
    for (std::size_t j = 0; j < operand_count(i); ++j) {
      auto d = dims(operand(i, j));
      auto t = table(operand(i, j), depth + 1);
      if (!d || !t || d->size() != out.size()) return std::nullopt;
      part_dims.push_back(std::move(*d));
      parts.push_back(std::move(*t));
    }
    Values values;
    bool inside = true;
    for_each_index(out, [&](const Values& p, std::size_t) {
      Values q = p;
      std::size_t j = 0;
      while (j < parts.size() && q[k] >= part_dims[j][k]) q[k] -= part_dims[j++][k];
      inside = inside && j < parts.size();
      values.push_back(inside ? parts[j][static_cast<std::size_t>(linear(q, part_dims[j]))] : 0);
    });
    if (!inside) return std::nullopt;
    return values;
  }

  std::optional<Values> binary(std::uint32_t i, int depth) const {
    if (operand_count(i) != 2) return std::nullopt;
    auto a = table(operand(i, 0), depth + 1);
    auto b = table(operand(i, 1), depth + 1);
    if (!a || !b || a->size() != b->size()) return std::nullopt;
    const Opcode op = m_c.instructions[i].opcode;
    for (std::size_t k = 0; k < a->size(); ++k) {
      std::int64_t& x = (*a)[k];
      const std::int64_t y = (*b)[k];
      bool overflow = false;
      switch (op) {
        case Opcode::kAdd: overflow = __builtin_add_overflow(x, y, &x); break;
        case Opcode::kSubtract: overflow = __builtin_sub_overflow(x, y, &x); break;
        case Opcode::kMultiply: overflow = __builtin_mul_overflow(x, y, &x); break;
        case Opcode::kMinimum: x = std::min(x, y); break;
        default: x = std::max(x, y); break;
      }
      if (overflow) return std::nullopt;
    }
    return a;
  }

  std::optional<Expr> expression_of(std::uint32_t i, const Values& out, int depth) const {
    const hlo::Instruction& instr = m_c.instructions[i];
    switch (instr.opcode) {
      case Opcode::kConstant: {
        // A constant is an expression when all its values are equal.
        auto t = table(i, depth);
        if (!t || t->empty() || std::adjacent_find(t->begin(), t->end(), std::not_equal_to<>()) != t->end())
          return std::nullopt;
        return Expr::constant(t->front());
      }
      case Opcode::kIota: {
        const auto dimension = int_attribute(i, "iota_dimension");
        if (!dimension || *dimension < 0 || static_cast<std::size_t>(*dimension) >= out.size()) return std::nullopt;
        return Expr::dim(static_cast<std::uint32_t>(*dimension));
      }
      case Opcode::kConvert:
      case Opcode::kCopy: return operand_count(i) == 1 ? expression(operand(i, 0), depth + 1) : std::nullopt;
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kSlice: return through_indexing(i, depth);
      case Opcode::kNegate: {
        if (operand_count(i) != 1) return std::nullopt;
        auto a = expression(operand(i, 0), depth + 1);
        if (!a) return std::nullopt;
        return *a * std::int64_t{-1};
      }
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kMultiply: {
        if (operand_count(i) != 2) return std::nullopt;
        auto a = expression(operand(i, 0), depth + 1);
        auto b = expression(operand(i, 1), depth + 1);
        if (!a || !b) return std::nullopt;
        if (instr.opcode == Opcode::kAdd) return *a + *b;
        if (instr.opcode == Opcode::kSubtract) return *a + *b * std::int64_t{-1};
        // Quasi-affine only: one factor must be a constant.
        if (b->kind() == Expr::Kind::kConstant) return scaled(*a, b->constant_value(), i);
        if (a->kind() == Expr::Kind::kConstant) return scaled(*b, a->constant_value(), i);
        return std::nullopt;
      }
      default: return std::nullopt;
    }
  }

  // An op that only moves elements: the operand's expression read at the
  // operand index the op's own (exact, single) indexing map gives.
  std::optional<Expr> through_indexing(std::uint32_t i, int depth) const {
    // A bitcast between element types of other widths reinterprets bits, not values.
    if (operand_count(i) != 1 || shape(operand(i, 0)).type != shape(i).type) return std::nullopt;
    auto inner = expression(operand(i, 0), depth + 1);
    if (!inner) return std::nullopt;
    std::vector<MapSet> sets;
    try {
      sets = output_to_input(OpContext{m_module, m_c, i}, 0, MapStyle::kExact);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (sets.empty() || sets[0].size() != 1) return std::nullopt;
    const IndexingMap& m = sets[0][0];
    if (!m.is_defined() || m.approximate() || m.range_count() != 0 || m.runtime_count() != 0 ||
        !m.domain().constraints().empty() || m.has_replica_id())
      return std::nullopt;
    return simplify::substitute(*inner, [&](simplify::Var v) { return m.results().at(v.index); });
  }

  const hlo::Module& m_module;
  const hlo::Computation& m_c;
  mutable std::unordered_map<std::uint32_t, std::optional<Values>> m_tables;
  mutable std::unordered_map<std::uint32_t, std::optional<Expr>> m_expressions;
};

}  // namespace

bool is_integer_type(ElementType t) { return t >= ElementType::kS1 && t <= ElementType::kU64; }

Interval integer_type_range(ElementType t) {
  const int bits = hlo::element_type_bits(t);
  const bool is_signed = t >= ElementType::kS1 && t <= ElementType::kS64;
  if (bits >= 64) {
    return is_signed ? Interval{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}
                     : Interval{0, std::numeric_limits<std::int64_t>::max()};
  }
  if (is_signed) return Interval{-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
  return Interval{0, (std::int64_t{1} << bits) - 1};
}

std::optional<KnownIntegerValues> known_integer_values(const hlo::Module& module, const hlo::Computation& computation,
                                                       std::uint32_t instruction) {
  const Evaluator evaluate(module, computation);
  auto dims = evaluate.dims(instruction);
  if (!dims) return std::nullopt;
  KnownIntegerValues out;
  out.dims = std::move(*dims);
  out.expression = evaluate.expression(instruction, 0);
  out.table = evaluate.table(instruction, 0);
  if (!out.expression && !out.table) return std::nullopt;
  return out;
}

}  // namespace hlo_index::indexing
