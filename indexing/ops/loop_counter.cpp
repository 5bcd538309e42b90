#include "indexing/ops/loop_counter.hpp"

#include <algorithm>
#include <limits>
#include <string_view>
#include <tuple>
#include <vector>

#include "indexing/ops/backend_config.hpp"
#include "indexing/ops/integer_values.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

namespace {

using hlo::Opcode;
using simplify::Interval;

constexpr int k_max_loop_depth = 32;

bool is_integer_scalar(const hlo::Shape& shape) {
  return !shape.is_tuple && shape.dims.empty() && is_integer_type(shape.type);
}

std::string_view unquoted_name(std::string_view text) {
  while (!text.empty() && (text.front() == '%' || text.front() == ' ')) text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::uint32_t called(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& instr,
                     std::string_view key) {
  const auto name = c.attribute(instr, key);
  return name ? module.find_computation(unquoted_name(*name)) : hlo::k_none;
}

// The value of a scalar integer constant (or an expression of constants).
std::optional<std::int64_t> constant_scalar(const hlo::Module& module, const hlo::Computation& c, std::uint32_t i) {
  if (!is_integer_scalar(module.shape_of(c.instructions[i]))) return std::nullopt;
  const auto known = known_integer_values(module, c, i);
  if (!known || !known->table || known->table->size() != 1) return std::nullopt;
  return known->table->front();
}

// The state leaf `i` of `c` holds, when it is (through tuple and
// get-tuple-element) a leaf of parameter 0.
std::optional<std::size_t> state_leaf(const hlo::Module& module, const hlo::Computation& c, std::uint32_t i) {
  const ValueLeaf origin = leaf_origin(module, c, {i, 0});
  const hlo::Instruction& from = c.instructions[origin.first];
  if (from.opcode != Opcode::kParameter || from.parameter_number != 0) return std::nullopt;
  return origin.second;
}

enum class Direction { kEq, kNe, kLt, kLe, kGt, kGe };

std::optional<Direction> direction_of(std::string_view text) {
  if (text == "EQ") return Direction::kEq;
  if (text == "NE") return Direction::kNe;
  if (text == "LT") return Direction::kLt;
  if (text == "LE") return Direction::kLe;
  if (text == "GT") return Direction::kGt;
  if (text == "GE") return Direction::kGe;
  return std::nullopt;
}

// `a dir b` as `b dir' a`.
Direction swapped(Direction d) {
  switch (d) {
    case Direction::kLt: return Direction::kGt;
    case Direction::kLe: return Direction::kGe;
    case Direction::kGt: return Direction::kLt;
    case Direction::kGe: return Direction::kLe;
    default: return d;
  }
}

bool holds(std::int64_t a, Direction d, std::int64_t b) {
  switch (d) {
    case Direction::kEq: return a == b;
    case Direction::kNe: return a != b;
    case Direction::kLt: return a < b;
    case Direction::kLe: return a <= b;
    case Direction::kGt: return a > b;
    case Direction::kGe: return a >= b;
  }
  return false;
}

// Iterations of `for (v = start; v dir bound; v += step)`; none when it does
// not end (or ends only by overflow).
std::optional<std::int64_t> iterations(std::int64_t start, std::int64_t step, Direction dir, std::int64_t bound) {
  if (!holds(start, dir, bound)) return 0;
  std::int64_t distance = 0;
  if (__builtin_sub_overflow(bound, start, &distance)) return std::nullopt;
  switch (dir) {
    case Direction::kLt: return step > 0 ? std::optional(simplify::ceil_div(distance, step)) : std::nullopt;
    case Direction::kLe: return step > 0 ? std::optional(simplify::floor_div(distance, step) + 1) : std::nullopt;
    case Direction::kGt: return step < 0 ? std::optional(simplify::ceil_div(distance, step)) : std::nullopt;
    case Direction::kGe: return step < 0 ? std::optional(simplify::floor_div(distance, step) + 1) : std::nullopt;
    case Direction::kNe:
      if (distance % step != 0 || distance / step <= 0) return std::nullopt;
      return distance / step;
    case Direction::kEq: return 1;  // start == bound, and start + step differs
  }
  return std::nullopt;
}

// The counter form: the condition's root compares a state leaf with a
// constant, the body adds a constant to that leaf, and it starts at a constant.
std::optional<TripCount> counted_loop(const hlo::Module& module, const hlo::Computation& c,
                                      const hlo::Instruction& loop, const hlo::Computation& body,
                                      const hlo::Computation& condition) {
  if (condition.root == hlo::k_none || body.root == hlo::k_none) return std::nullopt;
  const hlo::Instruction& compare = condition.instructions[condition.root];
  if (compare.opcode != Opcode::kCompare || compare.operand_count != 2) return std::nullopt;
  auto dir = direction_of(condition.attribute(compare, "direction").value_or(""));
  if (!dir) return std::nullopt;
  const auto sides = condition.operands_of(compare);
  std::optional<std::size_t> leaf;
  std::optional<std::int64_t> bound;
  for (std::size_t side = 0; side < 2 && !leaf; ++side) {
    leaf = state_leaf(module, condition, sides[side]);
    bound = constant_scalar(module, condition, sides[1 - side]);
    if (!leaf || !bound) {
      leaf.reset();
      continue;
    }
    if (side == 1) dir = swapped(*dir);
  }
  if (!leaf) return std::nullopt;
  const hlo::Shape& state = module.shape_of(loop);
  const hlo::Shape* counter_shape = find_leaf_shape(state, *leaf);
  if (counter_shape == nullptr || !is_integer_scalar(*counter_shape)) return std::nullopt;

  // The body: leaf `leaf` of its root is counter + k, k + counter or counter - k.
  const ValueLeaf next = leaf_origin(module, body, {body.root, *leaf});
  const hlo::Instruction& step_op = body.instructions[next.first];
  if (step_op.operand_count != 2 || (step_op.opcode != Opcode::kAdd && step_op.opcode != Opcode::kSubtract))
    return std::nullopt;
  const auto terms = body.operands_of(step_op);
  std::optional<std::int64_t> step;
  for (std::size_t side = 0; side < 2 && !step; ++side) {
    if (side == 1 && step_op.opcode == Opcode::kSubtract) break;
    if (state_leaf(module, body, terms[side]) != leaf) continue;
    step = constant_scalar(module, body, terms[1 - side]);
  }
  if (!step || *step == 0 || *step == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
  if (step_op.opcode == Opcode::kSubtract) step = -*step;

  // The start: leaf `leaf` of the while's operand.
  const ValueLeaf init = leaf_origin(module, c, {c.operands_of(loop)[0], *leaf});
  if (init.second != 0) return std::nullopt;
  const auto start = constant_scalar(module, c, init.first);
  if (!start) return std::nullopt;

  const auto trips = iterations(*start, *step, *dir, *bound);
  if (!trips || *trips > k_max_trip_count) return std::nullopt;
  // Every value the counter takes, the last one (which ends the loop) included, fits its type.
  std::int64_t last = 0;
  if (__builtin_mul_overflow(*trips, *step, &last) || __builtin_add_overflow(last, *start, &last)) return std::nullopt;
  const Interval range = integer_type_range(counter_shape->type);
  if (!range.contains(*start) || !range.contains(last)) return std::nullopt;
  return TripCount{*trips, LoopCounter{*leaf, *start, *step}};
}

// Piecewise affine values of the counter over an interval of its values.
using Pieces = std::vector<CounterPiece>;

// The values of `a` over `values` (throws ArithmeticOverflow).
Interval range(const CounterAffine& a, Interval values) {
  const std::int64_t x = simplify::checked_add(simplify::checked_mul(a.scale, values.lo), a.offset);
  const std::int64_t y = simplify::checked_add(simplify::checked_mul(a.scale, values.hi), a.offset);
  return {std::min(x, y), std::max(x, y)};
}

CounterAffine difference(const CounterAffine& a, const CounterAffine& b) {
  return {simplify::checked_add(a.scale, simplify::checked_neg(b.scale)),
          simplify::checked_add(a.offset, simplify::checked_neg(b.offset))};
}

// The sub-intervals of `values` where scale * v + offset is negative, zero and
// positive (those that are not empty), with that sign.
std::vector<std::pair<Interval, int>> by_sign(const CounterAffine& d, Interval values) {
  std::vector<std::pair<Interval, int>> out;
  auto add = [&](Interval i, int sign) {
    i = i.intersect(values);
    if (!i.empty()) out.emplace_back(i, sign);
  };
  if (d.scale == 0) {
    add(values, d.offset < 0 ? -1 : (d.offset > 0 ? 1 : 0));
    return out;
  }
  // scale * v + offset <= -1, == 0, >= 1, solved for v; a negative scale flips the order.
  const std::int64_t k = d.scale, c = d.offset;
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min(),
                         highest = std::numeric_limits<std::int64_t>::max();
  const std::int64_t minus_c = simplify::checked_neg(c);
  const std::int64_t below = k > 0 ? simplify::floor_div(minus_c - 1, k) : simplify::ceil_div(minus_c - 1, k);
  const std::int64_t above = k > 0 ? simplify::ceil_div(minus_c + 1, k) : simplify::floor_div(minus_c + 1, k);
  const std::optional<std::int64_t> zero = minus_c % k == 0 ? std::optional(minus_c / k) : std::nullopt;
  if (k > 0) {
    add({lowest, below}, -1);
    if (zero) add(Interval::point(*zero), 0);
    add({above, highest}, 1);
  } else {
    add({lowest, above}, 1);
    if (zero) add(Interval::point(*zero), 0);
    add({below, highest}, -1);
  }
  return out;
}

// Both piece lists over the union of their break points.
std::vector<std::tuple<Interval, CounterAffine, CounterAffine>> refine(const Pieces& a, const Pieces& b) {
  std::vector<std::tuple<Interval, CounterAffine, CounterAffine>> out;
  for (const CounterPiece& x : a) {
    for (const CounterPiece& y : b) {
      const Interval both = x.values.intersect(y.values);
      if (!both.empty()) out.emplace_back(both, x.value, y.value);
    }
  }
  return out;
}

class CounterValues {
public:
  CounterValues(const hlo::Module& module, const hlo::Computation& body, const LoopCounter& counter, Interval values)
      : m_module(module), m_body(body), m_counter(counter), m_values(values) {}

  std::optional<Pieces> value(std::uint32_t i, int depth) const {
    if (depth > k_max_loop_depth) return std::nullopt;
    const hlo::Shape& shape = m_module.shape_of(m_body.instructions[i]);
    if (!is_integer_scalar(shape)) return std::nullopt;
    std::optional<Pieces> out;
    try {
      out = derive(i, depth);
      if (!out || out->size() > k_max_counter_pieces) return std::nullopt;
      for (const CounterPiece& p : *out) {
        if (!integer_type_range(shape.type).contains(range(p.value, p.values))) return std::nullopt;
      }
    } catch (const simplify::ArithmeticOverflow&) {
      return std::nullopt;
    }
    return out;
  }

private:
  // Whether compare `i` holds, piece by piece.
  std::optional<std::vector<std::pair<Interval, bool>>> condition(std::uint32_t i, int depth) const {
    const hlo::Instruction& cmp = m_body.instructions[i];
    if (cmp.opcode != Opcode::kCompare || cmp.operand_count != 2) return std::nullopt;
    const auto dir = direction_of(m_body.attribute(cmp, "direction").value_or(""));
    const auto sides = m_body.operands_of(cmp);
    const auto a = value(sides[0], depth + 1);
    const auto b = value(sides[1], depth + 1);
    if (!dir || !a || !b) return std::nullopt;
    std::vector<std::pair<Interval, bool>> out;
    for (const auto& [values, x, y] : refine(*a, *b)) {
      for (const auto& [part, sign] : by_sign(difference(x, y), values)) out.emplace_back(part, holds(sign, *dir, 0));
    }
    return out;
  }

  std::optional<Pieces> derive(std::uint32_t i, int depth) const {
    if (auto leaf = state_leaf(m_module, m_body, i); leaf && *leaf == m_counter.leaf)
      return Pieces{{m_values, CounterAffine{1, 0}}};
    if (auto k = constant_scalar(m_module, m_body, i)) return Pieces{{m_values, CounterAffine{0, *k}}};
    const hlo::Instruction& instr = m_body.instructions[i];
    const auto operands = m_body.operands_of(instr);
    auto operand = [&](std::size_t k) { return k < operands.size() ? value(operands[k], depth + 1) : std::nullopt; };
    auto each = [](const Pieces& in, auto&& f) {
      Pieces out;
      for (const CounterPiece& p : in) out.push_back({p.values, f(p.value)});
      return out;
    };
    switch (instr.opcode) {
      case Opcode::kConvert:
      case Opcode::kCopy:
      case Opcode::kBitcast:
      case Opcode::kReshape:
        if (operands.size() != 1) return std::nullopt;
        // A bitcast between widths reinterprets bits: only the same type keeps the value.
        if (instr.opcode == Opcode::kBitcast &&
            m_module.shape_of(m_body.instructions[operands[0]]).type != m_module.shape_of(instr).type)
          return std::nullopt;
        return operand(0);  // value() checks it fits the result's type
      case Opcode::kNegate: {
        const auto a = operand(0);
        if (!a) return std::nullopt;
        return each(*a, [](const CounterAffine& x) {
          return CounterAffine{simplify::checked_neg(x.scale), simplify::checked_neg(x.offset)};
        });
      }
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kMultiply: {
        const auto a = operand(0), b = operand(1);
        if (!a || !b) return std::nullopt;
        Pieces out;
        for (const auto& [values, x, y] : refine(*a, *b)) {
          CounterAffine r;
          if (instr.opcode == Opcode::kMultiply) {
            if (x.scale != 0 && y.scale != 0) return std::nullopt;  // not affine
            const CounterAffine& k = x.scale == 0 ? x : y;
            const CounterAffine& v = x.scale == 0 ? y : x;
            r = {simplify::checked_mul(v.scale, k.offset), simplify::checked_mul(v.offset, k.offset)};
          } else {
            const std::int64_t sign = instr.opcode == Opcode::kAdd ? 1 : -1;
            r = {simplify::checked_add(x.scale, simplify::checked_mul(sign, y.scale)),
                 simplify::checked_add(x.offset, simplify::checked_mul(sign, y.offset))};
          }
          out.push_back({values, r});
        }
        return out;
      }
      case Opcode::kSelect: {
        const auto choice = operands.size() == 3 ? condition(operands[0], depth + 1) : std::nullopt;
        const auto a = operand(1), b = operand(2);
        if (!choice || !a || !b) return std::nullopt;
        Pieces out;
        for (const auto& [values, x, y] : refine(*a, *b)) {
          for (const auto& [part, take_first] : *choice) {
            const Interval both = values.intersect(part);
            if (!both.empty()) out.push_back({both, take_first ? x : y});
          }
        }
        std::sort(out.begin(), out.end(),
                  [](const CounterPiece& p, const CounterPiece& q) { return p.values.lo < q.values.lo; });
        return out;
      }
      case Opcode::kMaximum:
      case Opcode::kMinimum: {
        const auto a = operand(0), b = operand(1);
        if (!a || !b) return std::nullopt;
        return extreme(*a, *b, instr.opcode == Opcode::kMaximum);
      }
      case Opcode::kClamp: {  // clamp(lo, x, hi) = min(max(x, lo), hi)
        const auto lo = operand(0), x = operand(1), hi = operand(2);
        if (!lo || !x || !hi) return std::nullopt;
        return extreme(extreme(*x, *lo, true), *hi, false);
      }
      default: return std::nullopt;
    }
  }

  // max (or min) of two piecewise values, split where the larger one changes.
  static Pieces extreme(const Pieces& a, const Pieces& b, bool maximum) {
    Pieces out;
    for (const auto& [values, x, y] : refine(a, b)) {
      for (const auto& [part, sign] : by_sign(difference(x, y), values))
        out.push_back({part, (maximum ? sign >= 0 : sign <= 0) ? x : y});
    }
    return out;
  }

  const hlo::Module& m_module;
  const hlo::Computation& m_body;
  const LoopCounter& m_counter;
  Interval m_values;
};

}  // namespace

simplify::Interval TripCount::counter_values() const {
  if (!counter || trips == 0) return {};
  const std::int64_t last = counter->start + (trips - 1) * counter->step;  // fits: checked when counted
  return {std::min(counter->start, last), std::max(counter->start, last)};
}

std::optional<LoopComputations> loop_computations(const hlo::Module& module, const hlo::Computation& computation,
                                                  const hlo::Instruction& loop) {
  const std::uint32_t body = called(module, computation, loop, "body");
  const std::uint32_t condition = called(module, computation, loop, "condition");
  if (body == hlo::k_none || condition == hlo::k_none) return std::nullopt;
  return LoopComputations{body, condition};
}

std::optional<TripCount> loop_trip_count(const hlo::Module& module, const hlo::Computation& computation,
                                         std::uint32_t instruction) {
  const hlo::Instruction& loop = computation.instructions[instruction];
  if (loop.opcode != Opcode::kWhile || loop.operand_count != 1) return std::nullopt;
  const auto called = loop_computations(module, computation, loop);
  if (!called) return std::nullopt;
  const auto counted = counted_loop(module, computation, loop, module.computations[called->body],
                                    module.computations[called->condition]);
  detail::WhileLoopConfig config;  // every field empty when there is none
  try {
    if (auto found = detail::while_loop_config(OpContext{module, computation, instruction})) config = *found;
  } catch (const Unsupported&) {
    // a backend_config that is not XLA's WhileLoopBackendConfig says nothing of the count
  }
  std::optional<std::int64_t> known;
  if (config.trip_count && *config.trip_count >= 0 && *config.trip_count <= k_max_trip_count) known = config.trip_count;
  if (counted && known && counted->trips != *known) return std::nullopt;
  if (counted) return counted;
  if (!known) return std::nullopt;
  TripCount out{*known, std::nullopt};
  // XLA's while-loop analysis may also name the counter: its tuple element, start and step.
  const hlo::Shape& state = module.shape_of(loop);
  if (config.induction_element && config.init && config.step && *config.step != 0 && state.is_tuple &&
      *config.induction_element >= 0 && static_cast<std::size_t>(*config.induction_element) < state.elements.size()) {
    const auto element = static_cast<std::size_t>(*config.induction_element);
    const hlo::Shape& counter = state.elements[element];
    std::int64_t last = 0;
    if (is_integer_scalar(counter) && !__builtin_mul_overflow(*known, *config.step, &last) &&
        !__builtin_add_overflow(last, *config.init, &last) && integer_type_range(counter.type).contains(*config.init) &&
        integer_type_range(counter.type).contains(last))
      out.counter = LoopCounter{leaf_offset(state, element), *config.init, *config.step};
  }
  return out;
}

std::optional<std::vector<CounterPiece>> counter_pieces(const hlo::Module& module, const hlo::Computation& body,
                                                        std::uint32_t instruction, const LoopCounter& counter,
                                                        simplify::Interval counter_values) {
  if (counter_values.empty()) return std::nullopt;
  return CounterValues(module, body, counter, counter_values).value(instruction, 0);
}

}  // namespace hlo_index::indexing
