#include "parser/call_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parser/op_traits.hpp"

namespace hlo_index::parser {
namespace {

using hlo::ElementType;
using hlo::Opcode;
using hlo::Shape;

std::string shape_text(const Shape& s) { return hlo::to_string_without_layout(s); }

bool is_scalar(const Shape& s) { return !s.is_tuple && s.rank() == 0; }

// What a scalar function returns: its root, or the one element of a 1-tuple root, which
// XLA's importers flatten (xla/hlo/translate's tests return one for every kind of
// function, and the corpus holds them).
const Shape& returned(const Shape& root) {
  return root.is_tuple && root.elements.size() == 1 ? root.elements[0] : root;
}

// Equal element types, or two floating-point types of any widths (XLA's mixed precision).
bool same_type_ignoring_fp_precision(ElementType a, ElementType b) {
  return a == b || (hlo::is_floating_point(a) && hlo::is_floating_point(b));
}

// "1 operand", "2 operands"; "2 branches" with `plural`.
std::string counted(std::size_t n, std::string_view noun, std::string_view plural = {}) {
  if (n == 1) return fmt::format("1 {}", noun);
  return plural.empty() ? fmt::format("{} {}s", n, noun) : fmt::format("{} {}", n, plural);
}

// The rank-0 array of `type`: what reducers, comparators and mapped functions take.
Shape scalar(ElementType type) {
  Shape s;
  s.type = type;
  return s;
}

using Called = NamedCallee;

// The checks of one call site at a time; buffers are reused from one to the next.
class SiteChecker {
public:
  SiteChecker(const hlo::Module& module, std::span<const NamedCallee> callees, const ParameterTable& parameters,
              DiagnosticEngine& diagnostics, std::uint32_t incomplete)
      : m_module(module),
        m_callees(callees),
        m_parameters(parameters),
        m_diagnostics(diagnostics),
        m_incomplete(incomplete) {}

  void check(const CallSite& site) {
    m_c = &m_module.computations[site.computation];
    m_i = &m_c->instructions[site.instruction];
    m_where = site.where;
    m_called = m_callees.subspan(site.first_callee, m_i->callee_count);
    (this->*rule(hlo::op_traits(m_i->opcode).callees))();
  }

private:
  //===--- Access ---===//

  void error(const char* where, std::string message) {
    m_diagnostics.error_at(*m_module.source, where, std::move(message));
  }
  // An error about a computation the instruction calls, at its name in the attribute.
  void error(const Called& called, std::string message) { error(called.name.data(), std::move(message)); }

  std::string_view name() const { return m_i->name; }
  std::string_view opcode() const { return hlo::opcode_name(m_i->opcode); }
  // Shapes by interned id: equal ids are equal shapes, which compatible_ids() need not compare.
  hlo::ShapeId operand_id(std::size_t k) const { return m_c->instructions[m_c->operands_of(*m_i)[k]].shape; }
  hlo::ShapeId parameter_id(const Called& f, std::size_t k) const {
    return m_module.computations[f.callee].instructions[parameters(f)[k]].shape;
  }
  hlo::ShapeId root_id(const Called& f) const {
    const hlo::Computation& body = m_module.computations[f.callee];
    return body.instructions[body.root].shape;
  }
  bool compatible_ids(hlo::ShapeId a, hlo::ShapeId b) const {
    return a == b || hlo::compatible(m_module.shape(a), m_module.shape(b));
  }

  const Shape& result() const { return m_module.shape_of(*m_i); }
  std::size_t operand_count() const { return m_i->operand_count; }
  const Shape& operand(std::size_t k) const { return m_module.shape(operand_id(k)); }
  std::string_view computation_name(const Called& f) const { return m_module.computations[f.callee].name; }
  std::span<const std::uint32_t> parameters(const Called& f) const { return m_parameters.of(f.callee); }
  const Shape& parameter(const Called& f, std::size_t k) const { return m_module.shape(parameter_id(f, k)); }
  const Shape& root(const Called& f) const { return m_module.shape(root_id(f)); }

  // Whether `called` names a computation whose parameters and root are known: the rules
  // skip the others (computations a truncated input lacks or cuts off; a warning says so).
  bool resolved(const Called* called) const {
    return called && called->callee != hlo::k_none && called->callee != m_incomplete;
  }

  bool has(std::string_view attribute) const {
    return std::any_of(m_called.begin(), m_called.end(), [&](const Called& c) { return c.attribute == attribute; });
  }

  // The one computation `attribute` names; nullptr, after an error, when the
  // instruction has no such attribute or it names several.
  const Called* named(std::string_view attribute) {
    const Called* found = nullptr;
    std::size_t count = 0;
    for (const Called& c : m_called) {
      if (c.attribute != attribute) continue;
      if (!found) found = &c;
      ++count;
    }
    if (count == 1) return found;
    if (count == 0)
      error(m_where, fmt::format("{} '{}' has no {}= naming the computation it calls", opcode(), name(), attribute));
    else
      error(found->name.data(),
            fmt::format("{}= of {} '{}' names {} computations; it takes one", attribute, opcode(), name(), count));
    return nullptr;
  }

  //===--- Operands bound to parameters: fusion, call, async-start ---===//

  // Operand k is parameter(k) of `f`: as many, of the same shapes.
  bool check_bound_operands(const Called& f, std::string_view verb) {
    const std::size_t params = parameters(f).size();
    if (params != operand_count()) {
      error(m_where,
            fmt::format("'{}' has {} but the computation it {}, '{}', has {}", name(),
                        counted(operand_count(), "operand"), verb, computation_name(f), counted(params, "parameter")));
      return false;
    }
    for (std::size_t k = 0; k < params; ++k) {
      if (compatible_ids(operand_id(k), parameter_id(f, k))) continue;
      error(m_where, fmt::format("operand {} of '{}' is {} but parameter({}) of '{}' is {}", k, name(),
                                 shape_text(operand(k)), k, computation_name(f), shape_text(parameter(f, k))));
      return false;
    }
    return true;
  }

  // fusion (calls=), call (to_apply=): the result is the root's shape (XLA's HandleFusion, HandleCall).
  void check_bound() {
    const Called* f = named(m_i->opcode == Opcode::kFusion ? "calls" : "to_apply");
    if (!resolved(f) || !check_bound_operands(*f, "calls")) return;
    if (compatible_ids(m_i->shape, root_id(*f))) return;
    error(m_where, fmt::format("'{}' is {} but the computation it calls, '{}', returns {}", name(),
                               shape_text(result()), computation_name(*f), shape_text(root(*f))));
  }

  // ((operands...), result, context...): element {0} holds the wrapped computation's parameters,
  // element {1} its root (XLA's CheckAsyncOpComputationShapes).
  void check_async_start() {
    const Called* f = named("calls");
    if (!resolved(f) || !check_bound_operands(*f, "wraps")) return;
    const Shape& out = result();
    if (!out.is_tuple || out.elements.size() < 2) {
      error(m_where, fmt::format("'{}' is {} but an async-start is a tuple of at least two elements "
                                 "((operands...), result, ...)",
                                 name(), shape_text(out)));
      return;
    }
    const Shape& params = out.elements[0];
    bool same = params.is_tuple && params.elements.size() == parameters(*f).size();
    for (std::size_t k = 0; same && k < params.elements.size(); ++k)
      same = hlo::compatible(params.elements[k], parameter(*f, k));
    if (!same) {
      std::string wanted;
      for (std::size_t k = 0; k < parameters(*f).size(); ++k) wanted += (k ? ", " : "") + shape_text(parameter(*f, k));
      error(m_where, fmt::format("element {{0}} of '{}' is {} but the parameters of '{}' are ({})", name(),
                                 shape_text(params), computation_name(*f), wanted));
      return;
    }
    if (hlo::compatible(out.elements[1], root(*f))) return;
    error(m_where, fmt::format("element {{1}} of '{}' is {} but the computation it wraps, '{}', returns {}", name(),
                               shape_text(out.elements[1]), computation_name(*f), shape_text(root(*f))));
  }

  //===--- Control flow ---===//

  // condition: state -> pred[]; body: state -> state; the loop's result is the state
  // (XLA's HandleWhile and InstructionVerifier::HandleWhile).
  void check_while() {
    const Called* condition = named("condition");
    const Called* body = named("body");
    if (!resolved(condition) || !resolved(body)) return;
    const Shape& state = operand(0);
    for (const auto& [role, f] : {std::pair{"condition", condition}, {"body", body}}) {
      if (parameters(*f).size() != 1) {
        error(*f, fmt::format("the {} '{}' of '{}' has {} but must have 1 (the loop state)", role, computation_name(*f),
                              name(), counted(parameters(*f).size(), "parameter")));
        return;
      }
      if (!hlo::compatible(parameter(*f, 0), state)) {
        error(*f, fmt::format("parameter(0) of the {} '{}' is {} but the loop state of '{}' (operand 0) is {}", role,
                              computation_name(*f), shape_text(parameter(*f, 0)), name(), shape_text(state)));
        return;
      }
    }
    if (!hlo::compatible(root(*condition), scalar(ElementType::kPred))) {
      error(*condition, fmt::format("the condition '{}' of '{}' returns {} but must return pred[]",
                                    computation_name(*condition), name(), shape_text(root(*condition))));
      return;
    }
    if (!hlo::compatible(root(*body), state)) {
      error(*body, fmt::format("the body '{}' of '{}' returns {} but the loop state is {}", computation_name(*body),
                               name(), shape_text(root(*body)), shape_text(state)));
      return;
    }
    if (!hlo::compatible(result(), state))
      error(m_where, fmt::format("'{}' is {} but its loop state (operand 0) is {}", name(), shape_text(result()),
                                 shape_text(state)));
  }

  // The branches, in order: branch_computations={...}, or true_computation= then
  // false_computation=; empty, after an error, when neither form is there.
  bool collect_branches() {
    m_branches.clear();
    if (has("branch_computations")) {
      for (const Called& c : m_called)
        if (c.attribute == "branch_computations") m_branches.push_back(&c);
      return true;
    }
    if (!has("true_computation") && !has("false_computation")) {
      error(m_where, fmt::format("conditional '{}' has no branch_computations= (nor true_computation= and "
                                 "false_computation=) naming its branches",
                                 name()));
      return false;
    }
    const Called* on_true = named("true_computation");
    const Called* on_false = named("false_computation");
    if (!on_true || !on_false) return false;
    m_branches = {on_true, on_false};
    return true;
  }

  // Branch j takes operand j+1 and returns the conditional's shape; a pred[] index
  // selects one of two branches, an s32[] one of any number (XLA's HandleConditional).
  void check_conditional() {
    if (!collect_branches()) return;
    if (!std::all_of(m_branches.begin(), m_branches.end(), [&](const Called* b) { return resolved(b); })) return;
    const Shape& index = operand(0);
    const bool is_pred = is_scalar(index) && index.type == ElementType::kPred;
    if (!is_pred && !(is_scalar(index) && index.type == ElementType::kS32)) {
      error(m_where, fmt::format("the branch index of '{}' (operand 0) is {} but must be pred[] or s32[]", name(),
                                 shape_text(index)));
      return;
    }
    const std::size_t n = m_branches.size();
    if (is_pred ? n != 2 : n == 0) {
      error(m_where, fmt::format("'{}' has {} but {}", name(), counted(n, "branch", "branches"),
                                 is_pred ? "a pred[] branch index selects one of 2" : "needs at least one"));
      return;
    }
    if (operand_count() != n + 1) {
      error(m_where, fmt::format("'{}' has {} for {}: a conditional takes the branch index and one operand per branch",
                                 name(), counted(operand_count(), "operand"), counted(n, "branch", "branches")));
      return;
    }
    for (std::size_t j = 0; j < n; ++j) {
      const Called& b = *m_branches[j];
      if (parameters(b).size() != 1) {
        error(b, fmt::format("branch {} of '{}', '{}', has {} but must have 1", j, name(), computation_name(b),
                             counted(parameters(b).size(), "parameter")));
        return;
      }
      if (!hlo::compatible(parameter(b, 0), operand(j + 1))) {
        error(b, fmt::format("parameter(0) of branch {} of '{}', '{}', is {} but operand {} is {}", j, name(),
                             computation_name(b), shape_text(parameter(b, 0)), j + 1, shape_text(operand(j + 1))));
        return;
      }
      if (!hlo::compatible(root(b), result())) {
        error(b, fmt::format("branch {} of '{}', '{}', returns {} but '{}' is {}", j, name(), computation_name(b),
                             shape_text(root(b)), name(), shape_text(result())));
        return;
      }
    }
  }

  //===--- Scalar functions: map, reducers, comparators ---===//

  // `f` takes one scalar per operand, of the operand's element type; returns a scalar; the
  // result has the operands' dimensions and the scalar's type (XLA's InferMapShape).
  void check_map() {
    const Called* f = named("to_apply");
    if (!resolved(f)) return;
    for (std::size_t k = 1; k < operand_count(); ++k) {
      if (operand(k).is_tuple == operand(0).is_tuple && operand(k).dims == operand(0).dims) continue;
      error(m_where, fmt::format("map operands 0 and {} have different dimensions: {} and {}", k,
                                 shape_text(operand(0)), shape_text(operand(k))));
      return;
    }
    if (parameters(*f).size() != operand_count()) {
      error(*f, fmt::format("the function '{}' of map '{}' has {} but '{}' has {}", computation_name(*f), name(),
                            counted(parameters(*f).size(), "parameter"), name(), counted(operand_count(), "operand")));
      return;
    }
    for (std::size_t k = 0; k < operand_count(); ++k) {
      const Shape wanted = scalar(operand(k).type);
      if (!operand(k).is_tuple && hlo::compatible_ignoring_fp_precision(parameter(*f, k), wanted)) continue;
      error(*f, fmt::format("parameter({}) of the function '{}' of map '{}' is {} but must be {} (an element of "
                            "operand {})",
                            k, computation_name(*f), name(), shape_text(parameter(*f, k)), shape_text(wanted), k));
      return;
    }
    if (!is_scalar(returned(root(*f)))) {
      error(*f, fmt::format("the function '{}' of map '{}' returns {} but must return a scalar", computation_name(*f),
                            name(), shape_text(root(*f))));
      return;
    }
    Shape mapped = operand(0);
    mapped.layout.reset();
    mapped.type = returned(root(*f)).type;
    if (!hlo::compatible_ignoring_fp_precision(result(), mapped))
      error(m_where, fmt::format("'{}' is {} but mapping its operands with '{}' gives {}", name(), shape_text(result()),
                                 computation_name(*f), shape_text(mapped)));
  }

  // A reducer of `n` values at a time (XLA's VerifyReducerShape): parameters 0..n-1 are the
  // accumulators, n..2n-1 the elements combined into them, all scalars; it returns the n new
  // accumulators: a tuple of n scalars, or for n = 1 a scalar (or a 1-tuple, see returned()).
  // With `typed`, accumulator k has the type of operand `accumulators_at + k` (an initial
  // value, or the operand scattered into) and element k that of operand `elements_at + k`.
  struct Reducer {
    std::string_view role;  // "reducer", "combiner"
    std::size_t n = 1;
    std::size_t accumulators_at = 0;
    std::size_t elements_at = 0;
    bool typed = true;
  };

  bool check_reducer(const Called& f, const Reducer& r) {
    const std::string_view fname = computation_name(f);
    if (parameters(f).size() != 2 * r.n) {
      error(f, fmt::format("the {} '{}' of '{}' has {} but must have {} (an accumulator and an element for each of "
                           "{})",
                           r.role, fname, name(), counted(parameters(f).size(), "parameter"), 2 * r.n,
                           counted(r.n, "input")));
      return false;
    }
    for (std::size_t k = 0; k < 2 * r.n; ++k) {
      if (is_scalar(parameter(f, k))) continue;
      error(f, fmt::format("parameter({}) of the {} '{}' is {} but must be a scalar", k, r.role, fname,
                           shape_text(parameter(f, k))));
      return false;
    }
    const Shape& out = root(f);
    m_accumulators.clear();
    if (!out.is_tuple && r.n == 1)
      m_accumulators.push_back(&out);
    else if (out.is_tuple && out.elements.size() == r.n)
      for (const Shape& e : out.elements) m_accumulators.push_back(&e);
    if (m_accumulators.size() != r.n ||
        !std::all_of(m_accumulators.begin(), m_accumulators.end(), [](const Shape* s) { return is_scalar(*s); })) {
      error(f, fmt::format("the {} '{}' of '{}' returns {} but must return {}", r.role, fname, name(), shape_text(out),
                           r.n == 1 ? std::string("a scalar") : fmt::format("a tuple of {} scalars", r.n)));
      return false;
    }
    if (!r.typed) return true;
    for (std::size_t k = 0; k < r.n; ++k) {
      const ElementType accumulated = m_accumulators[k]->type;
      if (parameter(f, k).type != accumulated) {
        const std::string what = r.n == 1 ? "it returns" : fmt::format("element {} of its result is", k);
        error(f, fmt::format("parameter({}) of the {} '{}' is {} but {} {}", k, r.role, fname,
                             shape_text(parameter(f, k)), what, shape_text(*m_accumulators[k])));
        return false;
      }
      const Shape& start = operand(r.accumulators_at + k);
      if (!start.is_tuple && !same_type_ignoring_fp_precision(start.type, accumulated)) {
        error(m_where, fmt::format("operand {} of '{}' has elements of type {} but its {} '{}' accumulates {}",
                                   r.accumulators_at + k, name(), hlo::element_type_name(start.type), r.role, fname,
                                   shape_text(*m_accumulators[k])));
        return false;
      }
      const Shape& input = operand(r.elements_at + k);
      if (!input.is_tuple && !same_type_ignoring_fp_precision(input.type, parameter(f, r.n + k).type)) {
        error(f, fmt::format("parameter({}) of the {} '{}' is {} but operand {} of '{}' has elements of type {}",
                             r.n + k, r.role, fname, shape_text(parameter(f, r.n + k)), r.elements_at + k, name(),
                             hlo::element_type_name(input.type)));
        return false;
      }
    }
    return true;
  }

  // reduce, reduce-window: inputs 0..n-1 into the initial values n..2n-1. An initial value that
  // is not a scalar (XLA's shape inference rejects it; its parser does not, and the corpus holds
  // one, with a reducer of arrays: docs/parser-coverage.md) leaves the reducer unchecked.
  void check_reduce() {
    const Called* f = named("to_apply");
    const std::size_t n = operand_count() / 2;
    for (std::size_t k = n; k < 2 * n; ++k)
      if (!is_scalar(operand(k))) return;
    if (resolved(f)) check_reducer(*f, {.role = "reducer", .n = n, .accumulators_at = n, .elements_at = 0});
  }

  // scatter(inputs..., indices, updates...): the updates combined into the inputs.
  void check_scatter() {
    const Called* f = named("to_apply");
    const std::size_t n = (operand_count() - 1) / 2;
    if (resolved(f)) check_reducer(*f, {.role = "combiner", .n = n, .accumulators_at = 0, .elements_at = n + 1});
  }

  // all-reduce, reduce-scatter: two scalars into one; the operands (any number, of any
  // types when combined) are not typed against it, as XLA's verifier does not.
  void check_collective() {
    const Called* f = named("to_apply");
    if (resolved(f)) check_reducer(*f, {.role = "reducer", .typed = false});
  }

  // A function of two elements of each of `operands` operands that returns pred[]:
  // sort's comparator and select-and-scatter's select.
  bool check_predicate(const Called& f, std::string_view role, std::size_t operands) {
    const std::string_view fname = computation_name(f);
    if (parameters(f).size() != 2 * operands) {
      error(f, fmt::format("the {} '{}' of '{}' has {} but must have {} (two for each of {})", role, fname, name(),
                           counted(parameters(f).size(), "parameter"), 2 * operands, counted(operands, "operand")));
      return false;
    }
    for (std::size_t k = 0; k < 2 * operands; ++k) {
      const Shape wanted = scalar(operand(k / 2).type);
      if (!operand(k / 2).is_tuple && hlo::compatible_ignoring_fp_precision(parameter(f, k), wanted)) continue;
      error(f, fmt::format("parameter({}) of the {} '{}' is {} but must be {} (an element of operand {})", k, role,
                           fname, shape_text(parameter(f, k)), shape_text(wanted), k / 2));
      return false;
    }
    if (hlo::compatible(returned(root(f)), scalar(ElementType::kPred))) return true;
    error(f, fmt::format("the {} '{}' of '{}' returns {} but must return pred[]", role, fname, name(),
                         shape_text(root(f))));
    return false;
  }

  // select(operand, source, init): select picks among two elements of the operand, the
  // scatter combiner adds the source into the initial value (XLA's InferSelectAndScatterShape).
  void check_select_and_scatter() {
    const Called* select = named("select");
    const Called* scatter = named("scatter");
    if (!resolved(select) || !resolved(scatter) || !check_predicate(*select, "select computation", 1)) return;
    check_reducer(*scatter, {.role = "combiner", .n = 1, .accumulators_at = 2, .elements_at = 1});
  }

  // The comparator takes two scalars per operand and returns pred[]; the operands have
  // equal dimensions (XLA's HandleSort). A sort without to_apply= is the form before
  // comparators (2018), which XLA's parser then accepted.
  void check_sort() {
    for (std::size_t k = 1; k < operand_count(); ++k) {
      if (operand(k).is_tuple == operand(0).is_tuple && operand(k).dims == operand(0).dims) continue;
      error(m_where, fmt::format("sort operands 0 and {} have different dimensions: {} and {}", k,
                                 shape_text(operand(0)), shape_text(operand(k))));
      return;
    }
    if (!has("to_apply")) return;
    const Called* f = named("to_apply");
    if (resolved(f)) check_predicate(*f, "comparator", operand_count());
  }

  void no_rule() {}

  //===--- Dispatch ---===//

  using Rule = void (SiteChecker::*)();

  // The rule of each hlo::CalleeRule (op_traits.hpp says which op has which).
  static Rule rule(hlo::CalleeRule r) {
    using R = hlo::CalleeRule;
    struct Row {
      R name;
      Rule rule;
    };
    static constexpr Row k_rules[] = {
        {R::kNone, &SiteChecker::no_rule},
        {R::kBound, &SiteChecker::check_bound},
        {R::kAsyncStart, &SiteChecker::check_async_start},
        {R::kWhile, &SiteChecker::check_while},
        {R::kConditional, &SiteChecker::check_conditional},
        {R::kMap, &SiteChecker::check_map},
        {R::kReduce, &SiteChecker::check_reduce},
        {R::kScatter, &SiteChecker::check_scatter},
        {R::kSelectAndScatter, &SiteChecker::check_select_and_scatter},
        {R::kSort, &SiteChecker::check_sort},
        {R::kCollective, &SiteChecker::check_collective},
    };
    static_assert(std::size(k_rules) == static_cast<std::size_t>(R::kCount), "one rule per hlo::CalleeRule");
    static_assert([] {
      for (std::size_t k = 0; k < std::size(k_rules); ++k)
        if (static_cast<std::size_t>(k_rules[k].name) != k) return false;
      return true;
    }());
    return k_rules[static_cast<std::size_t>(r)].rule;
  }

  const hlo::Module& m_module;
  std::span<const NamedCallee> m_callees;  // every instruction's, in order
  const ParameterTable& m_parameters;
  DiagnosticEngine& m_diagnostics;
  std::uint32_t m_incomplete;             // a computation the input cuts off, or hlo::k_none
  const hlo::Computation* m_c = nullptr;  // the call site's computation
  const hlo::Instruction* m_i = nullptr;  // and instruction
  const char* m_where = nullptr;
  std::span<const Called> m_called;          // the call site's callees, in the order of its attributes
  std::vector<const Called*> m_branches;     // reused by check_conditional
  std::vector<const Shape*> m_accumulators;  // reused by check_reducer
};

// The error for the call `edge` that closes a cycle: `open` is the path of calls the walk
// is in, from the first computation to edge.caller; edge.callee is on it.
std::string cycle_message(const hlo::Module& module, std::span<const std::uint32_t> open, const NamedCallee& edge) {
  auto name = [&](std::uint32_t c) { return module.computations[c].name; };
  if (edge.caller == edge.callee)
    return fmt::format("computation '{}' calls itself: HLO computations cannot be recursive", name(edge.caller));
  std::string path;
  const auto from = std::find(open.begin(), open.end(), edge.callee);
  for (auto c = from; c != open.end(); ++c) path += fmt::format("{} -> ", name(*c));
  path += name(edge.callee);
  return fmt::format("computation '{}' calls '{}', which leads back to '{}' ({}): HLO computations cannot be recursive",
                     name(edge.caller), name(edge.callee), name(edge.caller), path);
}

}  // namespace

bool check_call_graph(const hlo::Module& module, std::span<const NamedCallee> callees, DiagnosticEngine& diagnostics) {
  const SourceFile& source = *module.source;
  bool ok = true;
  for (const NamedCallee& e : callees) {
    if (e.callee != module.entry) continue;
    diagnostics.error_at(source, e.name.data(),
                         fmt::format("computation '{}' calls the entry computation '{}'",
                                     module.computations[e.caller].name, module.computations[e.callee].name));
    ok = false;
  }
  if (!ok) return false;
  // The calls by caller (a counting sort), then a depth-first walk that finds an edge back
  // into the path it is on.
  const std::size_t n = module.computations.size();
  std::vector<std::uint32_t> begin(n + 1, 0);
  for (const NamedCallee& e : callees)
    if (e.callee != hlo::k_none) ++begin[e.caller + 1];
  for (std::size_t c = 0; c < n; ++c) begin[c + 1] += begin[c];
  std::vector<std::uint32_t> by_caller(begin.back());
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (std::uint32_t k = 0; k < callees.size(); ++k)
    if (callees[k].callee != hlo::k_none) by_caller[fill[callees[k].caller]++] = k;

  enum : std::uint8_t { kUnseen, kOnPath, kDone };
  std::vector<std::uint8_t> state(n, kUnseen);
  std::vector<std::uint32_t> path;  // computations on the walk's path
  std::vector<std::uint32_t> next;  // for each, its next edge to follow
  for (std::uint32_t start = 0; start < n; ++start) {
    if (state[start] != kUnseen) continue;
    state[start] = kOnPath;
    path.assign(1, start);
    next.assign(1, begin[start]);
    while (!path.empty()) {
      const std::uint32_t c = path.back();
      if (next.back() == begin[c + 1]) {
        state[c] = kDone;
        path.pop_back();
        next.pop_back();
        continue;
      }
      const NamedCallee& e = callees[by_caller[next.back()++]];
      if (state[e.callee] == kDone) continue;
      if (state[e.callee] == kOnPath) {
        diagnostics.error_at(source, e.name.data(), cycle_message(module, path, e));
        return false;
      }
      state[e.callee] = kOnPath;
      path.push_back(e.callee);
      next.push_back(begin[e.callee]);
    }
  }
  return true;
}

void check_call_sites(const hlo::Module& module, std::span<const CallSite> sites, std::span<const NamedCallee> callees,
                      const ParameterTable& parameters, DiagnosticEngine& diagnostics, std::uint32_t incomplete) {
  SiteChecker checker(module, callees, parameters, diagnostics, incomplete);
  for (const CallSite& site : sites) {
    checker.check(site);
    if (diagnostics.too_many_errors()) return;
  }
}

}  // namespace hlo_index::parser
