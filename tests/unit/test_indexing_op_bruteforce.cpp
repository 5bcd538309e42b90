// Brute-force checks of per-op and fusion indexing maps against a direct
// evaluation of the op semantics.
//
// Random small HLO modules (fixed seeds; generated and evaluated by
// op_reference.hpp, shared with test_cost_bruteforce) are written as text,
// parsed, and analysed with IndexingAnalysis (exact style, simplified).
// Independently of indexing/, every op has a reference: for each output element, the
// operand elements it reads, evaluated from XLA's operation semantics (with
// concrete values for dynamic offsets and gather indices, clamped as XLA
// clamps them). Fusions compose these relations through the fused
// computation. The maps, after a print_map/parse_map round trip, are
// enumerated point by point with every runtime variable replaced by the
// clamped value of the element its RuntimeSource names, and their union must
// be exactly the reference relation (a superset where a map is marked
// approximate); the input -> output maps must be exactly its inverse.
//
// Semantics checked against: a map is the relation
//   { (d, rt) -> r(d, s, rt) : (d, s, rt) in the box and every constraint }
// with range variables s existential; a set of maps denotes the union.
//
// Ops: elementwise (select and clamp with scalar operands), broadcast,
// transpose, reverse, strided slice, reshape, bitcast between layouts,
// concatenate, dot, variadic reduce, pad (negative, interior), variadic
// reduce-window (stride, padding, base and window dilation), convolution
// (dim_labels, stride, padding, lhs/rhs dilation, window reversal, feature and
// batch groups; the kernel is read only where the window meets the input),
// dynamic-slice, dynamic-update-slice, gather (general form; parameter,
// constant and iota indices), all-gather, tuple, get-tuple-element; random
// kLoop fusions of 2-5 of them (chains with shared operands, multi-output,
// scalar offsets shared by two ops, clamped alike or not: a runtime source
// is evaluated clamped to its own clamp range).
// Every test case checks that the features it is about were generated.
//
// Conventions of the evaluation where the documented semantics say nothing:
//  - a runtime source whose map depends on range variables (a gather read
//    by a reduction over its batch) is evaluated with those variables
//    existential, jointly for all sources of the map, and only a superset
//    is required;
//  - a runtime source whose map has runtime variables of its own (a gather
//    read through another runtime offset) is evaluated from the analysed
//    map, whose sources keep the nested sources the text form drops;
//  - a source element outside its operand is accepted only where the map
//    has no point for the runtime values that are known.
//
// Regression cases at the end: a runtime variable narrowed to fewer values
// than its clamp range stays in the map (it is a condition on the runtime
// value) even where the results no longer use it; maps whose runtime sources
// depend on range or runtime variables of their own are marked approximate.
// The simplified maps of dynamic-update-slice and of fusions with runtime
// offsets are exact; they are also checked unsimplified and simplified with
// runtime variables kept.
// kept. Set HLO_INDEX_BRUTEFORCE_STATS=1 for counts of what was checked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/indexing_map.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "op_reference.hpp"
#include "parser/diagnostics.hpp"
#include "parser/parse.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_op_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;
using simplify::Domain;
using simplify::Expr;
using simplify::Interval;
using simplify::Var;
using simplify::VarKind;
using test::Rng;  // portable: the seeds reproduce everywhere

namespace {

// The random computations and their reference reads (op_reference.hpp).
using namespace test::ops;

// ---------------------------------------------------------------------------
// Evaluating the maps.

constexpr std::int64_t k_max_points = 2'000'000;

/// The value of runtime variable sources: operand (of the analysed
/// instruction) and element -> the clamped offset.
/// `nested`: the source of a source map's own runtime variable.
/// nullopt: the element is outside the source tensor (the source map was
/// evaluated at a point with no element to read).
using SourceValue = std::function<std::optional<std::int64_t>(const indexing::RuntimeSource& source, bool nested,
                                                              const Tuple& element)>;

struct Evaluation {
  TupleSet exact;                           // from maps that claim to be exact
  TupleSet superset;                        // from approximate maps
  std::size_t range_dependent_sources = 0;  // maps whose runtime sources depend on range variables
  std::size_t nested_sources = 0;           // runtime sources whose maps have runtime variables
  std::string error;
};

bool satisfies(const Domain& d, const simplify::VarValues& values) {
  for (const simplify::Constraint& c : d.constraints()) {
    if (!c.interval.contains(simplify::evaluate(c.expr, values))) return false;
  }
  return true;
}

/// Calls fn for every point of the box of `bounds` (once when empty).
template <typename Fn>
void for_each_point(const std::vector<Interval>& bounds, Fn&& fn) {
  for (const Interval& b : bounds) {
    if (b.lo > b.hi) return;
  }
  Tuple point;
  for (const Interval& b : bounds) point.push_back(b.lo);
  while (true) {
    fn(static_cast<const Tuple&>(point));
    std::size_t i = point.size();
    for (;;) {
      if (i == 0) return;
      --i;
      if (point[i] < bounds[i].hi) {
        ++point[i];
        break;
      }
      point[i] = bounds[i].lo;
    }
  }
}

std::vector<Interval> bounds_of(const Domain& d, VarKind kind) {
  std::vector<Interval> out;
  for (const simplify::Variable& v : d.variables(kind)) out.push_back(v.bounds);
  return out;
}

std::int64_t box_size(const std::vector<Interval>& bounds) {
  std::int64_t n = 1;
  for (const Interval& b : bounds) n *= std::max<std::int64_t>(0, b.hi - b.lo + 1);
  return n;
}

/// The element a runtime source names at (dims, ranges): the results of its
/// map, with the map's own runtime variables (a source read through another
/// runtime offset, e.g. gather of gather) bound through its own sources.
/// nullopt when the point is outside the source map's domain (for range
/// variables) or a nested value is outside its variable's interval.
std::optional<Tuple> source_element(const IndexingMap& sm, const Tuple& dims, const Tuple& ranges,
                                    const SourceValue& value, bool check_domain) {
  // Runtime variables the results (and, when checked, the constraints) do
  // not use stay 0 (the text form gives them no sources).
  Tuple runtimes(sm.runtime_count(), 0);
  for (std::size_t j = 0; j < runtimes.size(); ++j) {
    const Var v{VarKind::kRuntime, static_cast<std::uint32_t>(j)};
    const bool in_results = std::any_of(sm.results().begin(), sm.results().end(),
                                        [&](const Expr& r) { return simplify::uses_variable(r, v); });
    const bool in_constraints =
        check_domain && std::any_of(sm.domain().constraints().begin(), sm.domain().constraints().end(),
                                    [&](const simplify::Constraint& c) { return simplify::uses_variable(c.expr, v); });
    if (!in_results && !in_constraints) continue;
    if (sm.runtime_sources().size() != runtimes.size())
      throw std::logic_error("nested runtime variables without sources");
    const indexing::RuntimeSource& nested = sm.runtime_sources()[j];
    if (!nested.map) throw std::logic_error("a nested runtime source without a map");
    auto element = source_element(*nested.map, dims, ranges, value, false);
    if (!element) return std::nullopt;
    const auto v_value = value(nested, true, *element);
    if (!v_value) return std::nullopt;
    runtimes[j] = *v_value;
    if (!sm.domain().bounds(v).contains(runtimes[j])) return std::nullopt;
  }
  Tuple padded = ranges;
  padded.resize(sm.range_count(), 0);
  const simplify::VarValues at{dims, padded, runtimes};
  if (check_domain && !satisfies(sm.domain(), at)) return std::nullopt;
  Tuple element;
  for (const Expr& r : sm.results()) element.push_back(simplify::evaluate(r, at));
  return element;
}

/// True if the map has a point with dimensions `dims` for some values of
/// its range variables and of the runtime variables not `known`.
bool has_point_at(const IndexingMap& m, const Tuple& dims, const std::vector<std::optional<std::int64_t>>& known) {
  std::vector<Interval> symbols = bounds_of(m.domain(), VarKind::kRange);
  const auto runtime_bounds = bounds_of(m.domain(), VarKind::kRuntime);
  for (std::size_t i = 0; i < runtime_bounds.size(); ++i) {
    if (!known[i]) {
      symbols.push_back(runtime_bounds[i]);
    } else if (runtime_bounds[i].contains(*known[i])) {
      symbols.push_back(Interval::point(*known[i]));
    } else {
      return false;
    }
  }
  if (box_size(symbols) > k_max_points) return true;
  const std::size_t ranges = m.range_count();
  bool found = false;
  for_each_point(symbols, [&](const Tuple& point) {
    if (found) return;
    const Tuple r(point.begin(), point.begin() + static_cast<std::ptrdiff_t>(ranges));
    const Tuple rt(point.begin() + static_cast<std::ptrdiff_t>(ranges), point.end());
    found = satisfies(m.domain(), simplify::VarValues{dims, r, rt});
  });
  return found;
}

/// The relation of one map, (d..., results...), with every runtime variable
/// bound to the clamped value its source names. `parsed` is the map after
/// the text round trip; `original` the map as analysed, whose sources keep
/// what the text does not: the operand of each source, and the sources of a
/// source map's own runtime variables (the text form has one level; such
/// sources are evaluated from memory and counted in nested_sources).
///
/// A source that depends on range variables (not only on d) is evaluated
/// with those range variables existential, jointly for all such sources:
/// counted in range_dependent_sources, and only a superset is required of
/// such a map (the documented semantics have one value per (d, rt)).
void evaluate_map(const IndexingMap& parsed, const IndexingMap& original, const SourceValue& value, Evaluation& e) {
  const IndexingMap& m = parsed;
  if (m.is_undefined()) {
    e.error += "UNDEFINED map (" + m.undefined_reason() + "); ";
    return;
  }
  if (m.is_known_empty()) return;
  const Domain& d = m.domain();
  const auto dim_bounds = bounds_of(d, VarKind::kDim), range_bounds = bounds_of(d, VarKind::kRange);
  const auto runtime_bounds = bounds_of(d, VarKind::kRuntime);
  if (m.runtime_sources().size() != m.runtime_count() || original.runtime_sources().size() != m.runtime_count()) {
    e.error += "runtime variables without sources; ";
    return;
  }
  // Per runtime variable: the source map to evaluate and the operand.
  std::vector<const IndexingMap*> source_maps;
  std::vector<bool> source_uses_range;
  std::vector<Interval> source_ranges;
  bool range_dependent = false;
  for (std::size_t i = 0; i < m.runtime_count(); ++i) {
    const indexing::RuntimeSource& s = m.runtime_sources()[i];
    if (!s.map || !s.map->is_defined() || s.map->dim_count() != m.dim_count()) {
      e.error += "a runtime source without a map over the map's dimensions; ";
      return;
    }
    bool uses_runtime = false, uses_range = false;
    for (const Expr& r : s.map->results()) {
      uses_runtime = uses_runtime || simplify::uses_kind(r, VarKind::kRuntime);
      uses_range = uses_range || simplify::uses_kind(r, VarKind::kRange);
    }
    const IndexingMap* sm = s.map.get();
    const bool constrained_by_runtime =
        uses_range &&
        std::any_of(sm->domain().constraints().begin(), sm->domain().constraints().end(),
                    [](const simplify::Constraint& c) { return simplify::uses_kind(c.expr, VarKind::kRuntime); });
    if (uses_runtime || constrained_by_runtime) {
      ++e.nested_sources;
      sm = original.runtime_sources()[i].map.get();
    }
    source_maps.push_back(sm);
    source_uses_range.push_back(uses_range);
    if (uses_range) {
      const auto b = bounds_of(sm->domain(), VarKind::kRange);
      if (range_dependent && b.size() != source_ranges.size()) {
        e.error += "range-dependent runtime sources with different range variables; ";
        return;
      }
      source_ranges = b;
      range_dependent = true;
    }
  }
  if (range_dependent) ++e.range_dependent_sources;
  TupleSet& out = (m.approximate() || range_dependent) ? e.superset : e.exact;
  if (box_size(dim_bounds) * box_size(source_ranges) * box_size(range_bounds) > k_max_points) {
    e.error += "map box too large to enumerate; ";
    return;
  }
  Tuple runtimes(m.runtime_count()), tuple;
  for_each_point(dim_bounds, [&](const Tuple& dims) {
    for_each_point(source_ranges, [&](const Tuple& sranges) {
      std::vector<std::optional<std::int64_t>> known(runtimes.size());
      bool outside = false;
      for (std::size_t i = 0; i < runtimes.size(); ++i) {
        // Range values outside a range-dependent source's domain name no element.
        auto element = source_element(*source_maps[i], dims, sranges, value, source_uses_range[i]);
        if (!element) return;
        known[i] = value(original.runtime_sources()[i], false, *element);
        outside = outside || !known[i];
      }
      if (outside) {
        // Legitimate only where the map has no point at these dimensions
        // and the runtime values that are known.
        if (!range_dependent && has_point_at(m, dims, known)) {
          e.error += "a runtime source names an element outside its operand at " + to_string(dims) + "; ";
        }
        return;
      }
      for (std::size_t i = 0; i < runtimes.size(); ++i) {
        runtimes[i] = *known[i];
        if (!runtime_bounds[i].contains(runtimes[i])) return;
      }
      for_each_point(range_bounds, [&](const Tuple& ranges) {
        const simplify::VarValues at{dims, ranges, runtimes};
        if (!satisfies(d, at)) return;
        tuple = dims;
        for (const Expr& r : m.results()) tuple.push_back(simplify::evaluate(r, at));
        out.insert(tuple);
      });
    });
  });
}

std::string some_of(const TupleSet& a, const TupleSet& b) {
  std::string out;
  int shown = 0;
  for (const Tuple& t : a) {
    if (b.count(t) != 0) continue;
    if (shown++ == 4) return out + " ...";
    out.append(" ").append(to_string(t));
  }
  return out;
}

/// "" when the maps denote the reference (exactly, or as a superset where
/// they say they are approximate; only a superset with `superset_only`),
/// else what differs.
std::string compare(const TupleSet& expected, const Evaluation& e, bool superset_only = false) {
  if (!e.error.empty()) return e.error;
  if (superset_only) {
    TupleSet all = e.exact;
    all.insert(e.superset.begin(), e.superset.end());
    if (std::includes(all.begin(), all.end(), expected.begin(), expected.end())) return {};
    return "the maps miss reference tuples:" + some_of(expected, all);
  }
  if (e.superset.empty()) {
    if (expected == e.exact) return {};
    return "expected " + std::to_string(expected.size()) + " tuples, got " + std::to_string(e.exact.size()) +
           "; missing:" + some_of(expected, e.exact) + "; extra:" + some_of(e.exact, expected);
  }
  TupleSet all = e.exact;
  all.insert(e.superset.begin(), e.superset.end());
  std::string out;
  if (!std::includes(expected.begin(), expected.end(), e.exact.begin(), e.exact.end())) {
    out += "exact maps read more than the reference:" + some_of(e.exact, expected) + "; ";
  }
  if (!std::includes(all.begin(), all.end(), expected.begin(), expected.end())) {
    out += "approximate maps miss reference tuples:" + some_of(expected, all) + "; ";
  }
  return out;
}

// ---------------------------------------------------------------------------
// One test: a computation, its analysis, trials of runtime values.

struct Stats {
  std::size_t modules = 0, sets = 0, maps = 0, approximate = 0, runtime_maps = 0, range_dependent = 0, nested = 0;
  std::size_t source_out_of_bounds = 0;
};

Stats& stats() {
  static Stats s;
  return s;
}

/// Round trip through the text form; the copy the checks evaluate.
IndexingMap round_trip(const IndexingMap& m, int variant) {
  indexing::MapPrintOptions o;
  if (variant % 2 == 1) o.layout = indexing::MapLayout::kMultiLine;
  const std::string text = indexing::print_map(m, o);
  IndexingMap parsed = indexing::parse_map(text);
  INFO("printed: " << text);
  CHECK(indexing::print_map(parsed, o) == text);
  if (m.is_defined()) CHECK(parsed.runtime_sources().size() == m.runtime_sources().size());
  if (m.is_defined()) CHECK(parsed.approximate() == m.approximate());
  return parsed;
}

std::string print_set(const MapSet& set) {
  std::string out;
  for (const IndexingMap& m : set) out += "    " + indexing::print_map(m) + "\n";
  return out.empty() ? "    (no maps)\n" : out;
}

/// Evaluates every map of a set (after the round trip).
Evaluation evaluate_set(const MapSet& set, const SourceValue& value) {
  Evaluation e;
  int variant = 0;
  for (const IndexingMap& m : set) {
    ++stats().maps;
    if (m.approximate()) ++stats().approximate;
    if (m.runtime_count() > 0) ++stats().runtime_maps;
    const IndexingMap parsed = round_trip(m, variant++);
    evaluate_map(parsed, m, value, e);
  }
  stats().range_dependent += e.range_dependent_sources;
  stats().nested += e.nested_sources;
  return e;
}

/// evaluate_set, with an exception (a map that cannot be evaluated) as the
/// error of the evaluation.
Evaluation guarded_evaluation(const MapSet& set, const SourceValue& value) {
  try {
    return evaluate_set(set, value);
  } catch (const std::exception& ex) {
    Evaluation e;
    e.error = std::string("exception: ") + ex.what();
    return e;
  }
}

/// Analyses the root of the entry (fused: the fusion calling the
/// computation) and checks both directions against the reference, for
/// `trials` random values of the runtime parameters.
enum class Check { kExact, kSuperset };

/// kAnalysis: the analysis' own simplification (or none). kKeepRuntime: the
/// unsimplified maps simplified here with indexing::simplify, keeping
/// runtime variables (which the analysis drops when unused).
enum class Simplify { kNone, kAnalysis, kKeepRuntime };

void check_computation(const Computation& c, bool fused, std::uint64_t seed, Simplify simplify = Simplify::kAnalysis,
                       Check check = Check::kExact, int trials = 3) {
  const std::string text = module_text(c, fused);
  INFO("seed " << seed << ", HLO:\n" << text);
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(text, "bruteforce.hlo", diagnostics);
  INFO("diagnostics:\n" << parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  REQUIRE(!diagnostics.has_errors());
  const hlo::Module& module = modules[0];
  ++stats().modules;
  const std::uint32_t entry = module.entry;
  const std::uint32_t root = module.computations[entry].root;
  INFO("maps " << (simplify == Simplify::kAnalysis ? "simplified"
                   : simplify == Simplify::kNone   ? "unsimplified"
                                                   : "simplified with runtime variables kept")
               << (check == Check::kSuperset ? ", superset check" : ""));
  indexing::IndexingAnalysis analysis(
      module, indexing::AnalysisOptions{indexing::MapStyle::kExact, simplify == Simplify::kAnalysis});

  const Node& root_node = c.node(c.root);
  const std::size_t outputs = root_node.outputs.size();
  const std::size_t inputs = fused ? static_cast<std::size_t>(c.parameters) : root_node.operands.size();
  // The node behind each input (operand of the analysed instruction).
  std::vector<int> input_node(inputs, -1);
  for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) {
    if (fused && c.node(id).kind == Kind::kParam) input_node[static_cast<std::size_t>(c.node(id).parameter)] = id;
  }
  if (!fused) {
    for (std::size_t p = 0; p < inputs; ++p) input_node[p] = root_node.operands[p];
  }

  std::vector<std::vector<MapSet>> o2i(outputs), i2o(inputs);
  for (std::size_t k = 0; k < outputs; ++k) {
    o2i[k] = analysis.output_to_input(entry, root, k);
    o2i[k].resize(inputs);
  }
  for (std::size_t p = 0; p < inputs; ++p) {
    i2o[p] = analysis.input_to_output(entry, root, p);
    i2o[p].resize(outputs);
  }
  if (simplify == Simplify::kKeepRuntime) {
    indexing::MapSimplifyOptions options;
    options.remove_unused_runtime_variables = false;
    for (auto* sets : {&o2i, &i2o}) {
      for (std::vector<MapSet>& row : *sets) {
        for (MapSet& set : row) {
          for (IndexingMap& m : set) indexing::simplify(m, options);
        }
      }
    }
  }

  Rng r(seed * 7919 + 17);
  const int rounds = has_runtime_parameters(c) ? trials : 1;
  for (int trial = 0; trial < rounds; ++trial) {
    const Env env = random_env(c, r);
    INFO("runtime values (trial " << trial << "):\n" << env_text(c, env));
    const SourceValue value = [&](const indexing::RuntimeSource& source, bool nested,
                                  const Tuple& element) -> std::optional<std::int64_t> {
      int node = -1;
      if (nested && fused) {
        // Nested sources are not relabelled for the fusion: their operand is
        // the one of the op inside it, their instruction the body's (whose
        // instructions are the model's nodes, in order).
        if (source.instruction >= 0 && source.instruction < static_cast<std::int64_t>(c.nodes.size())) {
          node = static_cast<int>(source.instruction);
        }
      } else if (source.operand >= 0 && static_cast<std::size_t>(source.operand) < inputs) {
        node = input_node[static_cast<std::size_t>(source.operand)];
      } else if (fused && source.source.rfind("fused_computation/", 0) == 0) {
        // Computed inside the fusion: a constant or iota of the body, by name.
        const std::string name = source.source.substr(std::string("fused_computation/").size());
        for (int id = 0; id < static_cast<int>(c.nodes.size()); ++id) {
          if (c.node(id).name == name) node = id;
        }
      }
      if (node < 0) throw std::logic_error("a runtime source naming no operand: " + source.source);
      if (!c.node(node).limit) throw std::logic_error("a runtime source that is not an offset operand");
      const Tuple& dims = c.node(node).outputs[0].dims;
      if (element.size() != dims.size()) throw std::logic_error("a runtime source element of the wrong rank");
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (element[i] < 0 || element[i] >= dims[i]) {
          ++stats().source_out_of_bounds;
          return std::nullopt;
        }
      }
      // Clamped to the source's clamp range: a shared offset is clamped by each op to its own.
      return std::clamp(env.value(node, element), source.feasible.lo, source.feasible.hi);
    };
    const auto reference = fused ? FusionReference(c, env).relations() : reference_single(c, env);
    for (std::size_t k = 0; k < outputs; ++k) {
      for (std::size_t p = 0; p < inputs; ++p) {
        ++stats().sets;
        INFO("output " << k << " -> input " << p << ", maps:\n" << print_set(o2i[k][p]));
        const Evaluation e = guarded_evaluation(o2i[k][p], value);
        CHECK(compare(reference[k][p], e, check == Check::kSuperset) == "");
      }
    }
    for (std::size_t p = 0; p < inputs; ++p) {
      for (std::size_t k = 0; k < outputs; ++k) {
        ++stats().sets;
        INFO("input " << p << " -> output " << k << ", maps:\n" << print_set(i2o[p][k]));
        const Evaluation e = guarded_evaluation(i2o[p][k], value);
        CHECK(compare(inverse(reference[k][p], root_node.outputs[k].dims.size()), e, check == Check::kSuperset) == "");
      }
    }
  }
}

struct Run {
  Simplify simplify = Simplify::kAnalysis;
  Check check = Check::kExact;
  OffsetSource offsets = OffsetSource::kRandom;
  std::uint64_t base = 0;  // seed base
};

void run_single_ops(const std::vector<Op>& ops, int seeds, const Run& run) {
  for (Op op : ops) {
    for (int s = 0; s < seeds; ++s) {
      const std::uint64_t seed = run.base + 1000 * static_cast<std::uint64_t>(op) + static_cast<std::uint64_t>(s);
      INFO("op " << op_name(op));
      const Computation c = single_op(op, seed, run.offsets);
      check_computation(c, false, seed, run.simplify, run.check);
    }
  }
}

void run_fusions(int count, bool runtime, const Run& run) {
  for (int s = 0; s < count; ++s) {
    const std::uint64_t seed = run.base + static_cast<std::uint64_t>(s);
    std::string ops;
    const Computation c = random_fusion(seed, runtime, ops);
    INFO("fusion of " << ops);
    check_computation(c, true, seed, run.simplify, run.check);
  }
}

/// Every feature in `features` was generated since the last reset.
void check_coverage(const std::vector<std::string>& features) {
  for (const std::string& f : features) {
    INFO("feature: " << f);
    CHECK(coverage()[f] > 0);
  }
  coverage().clear();
}

void report_stats() {
  if (std::getenv("HLO_INDEX_BRUTEFORCE_STATS") == nullptr) return;
  const Stats& st = stats();
  WARN("op brute force so far: " << st.modules << " modules, " << st.sets << " map sets, " << st.maps << " maps ("
                                 << st.approximate << " approximate, " << st.runtime_maps << " with runtime variables, "
                                 << st.range_dependent << " with range-dependent runtime sources, " << st.nested
                                 << " runtime sources read through runtime offsets, " << st.source_out_of_bounds
                                 << " source elements out of bounds)");
}

const std::vector<Op> k_static_ops = {Op::kElementwise, Op::kBroadcast, Op::kTranspose, Op::kReverse,
                                      Op::kSlice,       Op::kReshape,   Op::kBitcast,   Op::kConcatenate,
                                      Op::kDot,         Op::kReduce,    Op::kPad,       Op::kReduceWindow,
                                      Op::kConvolution, Op::kAllGather, Op::kTuple,     Op::kGetTupleElement};

// --- hand-written reproductions ---

struct Analysed {
  std::vector<hlo::Module> modules;
  std::unique_ptr<indexing::IndexingAnalysis> analysis;
  std::uint32_t computation = 0, instruction = 0;
};

/// Parses `text` and analyses the ENTRY root (exact style, simplified).
Analysed analyse(const std::string& text) {
  Analysed a;
  parser::DiagnosticEngine diagnostics;
  a.modules = parser::parse_hlo_text(text, "repro.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(a.modules.size() == 1);
  a.computation = a.modules[0].entry;
  a.instruction = a.modules[0].computations[a.computation].root;
  a.analysis = std::make_unique<indexing::IndexingAnalysis>(a.modules[0], indexing::AnalysisOptions{});
  return a;
}

/// The relation of a set with every runtime variable bound to `offset`
/// (each source a scalar holding `offset` before clamping to [0, limit]).
TupleSet relation_with_offset(const MapSet& set, std::int64_t offset, std::int64_t limit) {
  const SourceValue value = [&](const indexing::RuntimeSource&, bool, const Tuple&) -> std::optional<std::int64_t> {
    return std::clamp<std::int64_t>(offset, 0, limit);
  };
  const Evaluation e = evaluate_set(set, value);
  INFO(e.error);
  CHECK(e.error.empty());
  return e.exact;
}

}  // namespace

TEST_CASE("single ops without runtime offsets: maps are exactly the reads of the op semantics", "[op-bruteforce]") {
  coverage().clear();
  run_single_ops(k_static_ops, 80, Run{});
  check_coverage({"select with a scalar predicate",
                  "clamp with a scalar bound",
                  "broadcast",
                  "slice with a stride",
                  "bitcast between layouts",
                  "variadic reduce",
                  "negative padding",
                  "interior padding",
                  "reduce-window stride",
                  "reduce-window padding",
                  "reduce-window base dilation",
                  "reduce-window window dilation",
                  "variadic reduce-window",
                  "convolution feature groups",
                  "convolution batch groups",
                  "convolution with two spatial dimensions",
                  "convolution stride",
                  "convolution negative padding",
                  "convolution lhs dilation",
                  "convolution rhs dilation",
                  "convolution window reversal",
                  "convolution window over padding or a hole",
                  "variadic all-gather",
                  "get-tuple-element of a tuple parameter"});
  report_stats();
}

TEST_CASE("single dynamic-slice and gather: parameter, constant and iota offsets", "[op-bruteforce]") {
  coverage().clear();
  run_single_ops({Op::kDynamicSlice, Op::kGather}, 100, Run{});
  run_single_ops({Op::kDynamicSlice, Op::kGather}, 25,
                 Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kParameter, 100});
  run_single_ops({Op::kDynamicSlice, Op::kGather}, 25,
                 Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kConstant, 200});
  run_single_ops({Op::kGather}, 40, Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kIota, 300});
  check_coverage({"dynamic-slice constant offset", "dynamic-slice parameter offset", "gather parameter indices",
                  "gather constant indices", "gather iota indices", "gather implicit index vector",
                  "gather collapsed dimensions", "gather two batch dimensions", "gather start vector of two or more",
                  "gather operand batching dimensions", "offset below 0", "offset above its limit"});
}

TEST_CASE("single dynamic-update-slice: exact unsimplified or with runtime variables kept, a superset otherwise",
          "[op-bruteforce]") {
  coverage().clear();
  for (auto [simplify, check] :
       {std::pair{Simplify::kNone, Check::kExact}, std::pair{Simplify::kKeepRuntime, Check::kExact},
        std::pair{Simplify::kAnalysis, Check::kSuperset}}) {
    run_single_ops({Op::kDynamicUpdateSlice}, 50, Run{simplify, check, OffsetSource::kRandom, 0});
    run_single_ops({Op::kDynamicUpdateSlice}, 15, Run{simplify, check, OffsetSource::kConstant, 200});
  }
  check_coverage({"dynamic-update-slice constant offset", "dynamic-update-slice parameter offset", "offset below 0",
                  "offset above its limit"});
}

// Fails: the simplified pieces of operand 0 lose their runtime variable (see
// "a runtime variable narrowed to one value is dropped" below).
TEST_CASE("single dynamic-update-slice, simplified maps are exact", "[op-bruteforce]") {
  run_single_ops({Op::kDynamicUpdateSlice}, 50, Run{});
  run_single_ops({Op::kDynamicUpdateSlice}, 15, Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kConstant, 200});
}

TEST_CASE("random fusions without runtime offsets: composed maps are exactly the composed reads", "[op-bruteforce]") {
  coverage().clear();
  run_fusions(700, false, Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kRandom, 90000});
  check_coverage({"fusion operand shared by two users", "multi-output fusion", "variadic reduce",
                  "bitcast between layouts", "convolution batch groups", "convolution feature groups",
                  "reduce-window base dilation", "negative padding"});
  report_stats();
}

// The analysis' simplified maps of fusions with runtime offsets are only
// checked to be supersets (see the [!mayfail] case below); unsimplified, and
// simplified with runtime variables kept, they must be exact.
TEST_CASE(
    "random fusions with runtime offsets: exact unsimplified or with runtime variables kept, a superset otherwise",
    "[op-bruteforce]") {
  coverage().clear();
  run_fusions(200, true, Run{Simplify::kNone, Check::kExact, OffsetSource::kRandom, 70000});
  run_fusions(200, true, Run{Simplify::kKeepRuntime, Check::kExact, OffsetSource::kRandom, 70000});
  run_fusions(200, true, Run{Simplify::kAnalysis, Check::kSuperset, OffsetSource::kRandom, 70000});
  check_coverage({"dynamic-slice constant offset", "dynamic-slice parameter offset",
                  "dynamic-update-slice constant offset", "dynamic-update-slice parameter offset",
                  "gather parameter indices", "gather constant indices", "gather iota indices", "offset below 0",
                  "offset above its limit", "offset shared by two users", "shared offset clamped alike"});
  report_stats();
}

// Fails for the same reason as the simplified dynamic-update-slice, wherever
// an op restricts the values an offset may have (concatenate, pad, windows,
// slices, dynamic-update-slice pieces).
TEST_CASE("random fusions with runtime offsets, simplified maps are exact", "[op-bruteforce]") {
  run_fusions(200, true, Run{Simplify::kAnalysis, Check::kExact, OffsetSource::kRandom, 70000});
}

// Reproduction: the exact-style simplification of the analysis
// (remove_unused_runtime_variables) drops a runtime variable that isl has
// narrowed to a single value ([1, 1]): the condition "only when the clamped
// offset is 1" disappears and the piece claims to hold for every offset.
// `hlo-index map simplify` on the unsimplified piece keeps rt0 in [1, 1];
// only the analysis drops it. For %p2 <= 0 the update covers [0, 1] and
// output 0 does not read %p0, but the simplified maps say it reads %p0[0]:
//   (d0) -> (0), domain: d0 in [0, 0]
//   (d0) -> (2), domain: d0 in [2, 2]
// instead of (d0){rt0} -> (0), domain: d0 in [0, 0], rt0 in [1, 1] and
// (d0){rt0} -> (2), domain: d0 in [2, 2], rt0 in [0, 0].
TEST_CASE("a runtime variable narrowed to one value stays (dynamic-update-slice)", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule dus
ENTRY %main {
  %p0 = f32[3]{0} parameter(0)
  %p1 = f32[2]{0} parameter(1)
  %p2 = s32[] parameter(2)
  ROOT %dus = f32[3]{0} dynamic-update-slice(%p0, %p1, %p2)
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
  INFO("maps:\n" << print_set(set));
  // Offset 0: the update covers [0, 1]; offset 1 (or more): it covers [1, 2].
  CHECK(relation_with_offset(set, 0, 1) == TupleSet{{2, 2}});
  CHECK(relation_with_offset(set, 5, 1) == TupleSet{{0, 0}});
}

// The same bug outside dynamic-update-slice: output 0 reads %e1[0] only when
// the clamped offset is 2; the simplified map (d0) -> (0), domain: d0 in
// [0, 0] says it always does (without simplification:
// (d0){rt0} -> (d0 + rt0 - 2), domain: d0 in [0, 0], rt0 in [0, 2],
// d0 + rt0 in [2, 2]).
TEST_CASE("a runtime variable narrowed to one value stays (concatenate then dynamic-slice)", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule dscat
%fused {
  %p0 = f32[2]{0} parameter(0)
  %p1 = f32[1]{0} parameter(1)
  %p2 = s32[] parameter(2)
  %cat = f32[3]{0} concatenate(%p0, %p1), dimensions={0}
  ROOT %ds = f32[1]{0} dynamic-slice(%cat, %p2), dynamic_slice_sizes={1}
}
ENTRY %main {
  %e0 = f32[2]{0} parameter(0)
  %e1 = f32[1]{0} parameter(1)
  %e2 = s32[] parameter(2)
  ROOT %f = f32[1]{0} fusion(%e0, %e1, %e2), kind=kLoop, calls=%fused
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(1);
  INFO("maps:\n" << print_set(set));
  CHECK(relation_with_offset(set, 0, 2) == TupleSet{});
  CHECK(relation_with_offset(set, 2, 2) == TupleSet{{0, 0}});
}

// A gather of a gather in a fusion: the inner gather's start is read at an
// index that depends on the outer gather's start, so the runtime source of
// the inner start has a runtime variable of its own. The text form prints
// source maps without their sources ("rt0: parameter(1); (d0){rt0} -> (0,
// rt0, 0), ..."): the rt0 inside the source map is not the map's rt0 (it is
// the outer start from parameter 2, which the map itself dropped as unused),
// and nothing in the text says so. In memory the nested source exists, but
// its operand is the inner gather's operand number (1), not the fusion's (2).
TEST_CASE("a runtime source read through another runtime offset marks the map approximate", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule gg
%fused {
  %p0 = f32[6]{0} parameter(0)
  %p1 = s32[3,3,1]{2,1,0} parameter(1)
  %g1 = f32[3,4,3]{2,1,0} gather(%p0, %p1), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=2, slice_sizes={4}
  %p2 = s32[2]{0} parameter(2)
  ROOT %g2 = f32[] gather(%g1, %p2), offset_dims={}, collapsed_slice_dims={0,1,2}, start_index_map={2,1}, index_vector_dim=0, slice_sizes={1,1,1}
}
ENTRY %main {
  %e0 = f32[6]{0} parameter(0)
  %e1 = s32[3,3,1]{2,1,0} parameter(1)
  %e2 = s32[2]{0} parameter(2)
  ROOT %f = f32[] fusion(%e0, %e1, %e2), kind=kLoop, calls=%fused
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
  INFO("maps:\n" << print_set(set));
  for (const IndexingMap& m : set) {
    bool nested_variables = false;
    for (const indexing::RuntimeSource& source : m.runtime_sources()) {
      nested_variables =
          nested_variables || (source.map && (source.map->runtime_count() != 0 || source.map->range_count() != 0));
    }
    INFO(indexing::print_map(m));
    // The text form cannot tie such a source to the map's variables: the map says it is a superset.
    if (nested_variables) CHECK(m.approximate());
  }
}

// A gather read by a reduce over its batch dimension: the start offsets
// depend on the reduced (range) variable, but a runtime variable is one
// value per (d, rt). The map (d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1) has
// sources (d0, d1)[s0] -> (s0, 0) and (s0, 1): s0 is not a variable of the
// map (it was dropped as unused) and must be shared by both sources for the
// relation to be right. The relation is only recoverable under a reading
// the documentation does not give; the map is not marked approximate.
TEST_CASE("runtime sources that depend on range variables the map does not have", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule gr
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused {
  %p0 = f32[4,5]{1,0} parameter(0)
  %p1 = s32[3,2]{1,0} parameter(1)
  %g = f32[3,2,2]{2,1,0} gather(%p0, %p1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}
  %z = f32[] constant(0)
  ROOT %r = f32[2,2]{1,0} reduce(%g, %z), dimensions={0}, to_apply=%add
}
ENTRY %main {
  %e0 = f32[4,5]{1,0} parameter(0)
  %e1 = s32[3,2]{1,0} parameter(1)
  ROOT %f = f32[2,2]{1,0} fusion(%e0, %e1), kind=kLoop, calls=%fused
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
  INFO("maps:\n" << print_set(set));
  for (const IndexingMap& m : set) {
    for (const indexing::RuntimeSource& s : m.runtime_sources()) {
      REQUIRE(s.map);
      INFO("source: " << indexing::print_map(*s.map));
      for (const Expr& r : s.map->results()) CHECK_FALSE((simplify::uses_kind(r, VarKind::kRange) && !m.approximate()));
    }
  }
}

// ---------------------------------------------------------------------------
// Exact where one runtime value is read twice, and where offsets are known.
//
// Hand-written modules, each with a direct evaluation of its reads for every
// value of its offsets (in and out of range): the maps with every runtime
// variable bound to its source's value (clamped to the source's clamp range)
// must be exactly the reads for that value, and the maps with their runtime
// variables free (what a reader of the maps learns without the values) must
// be exactly the union over all values where one value is one variable.

namespace {

/// The relation of a set with every runtime variable free within its
/// interval: (d..., results...) for every point of every map.
TupleSet projection(const MapSet& set) {
  TupleSet out;
  for (const IndexingMap& m : set) {
    INFO(indexing::print_map(m));
    REQUIRE(!m.is_undefined());
    if (m.is_known_empty()) continue;
    const Domain& d = m.domain();
    std::vector<Interval> box = bounds_of(d, VarKind::kDim);
    const auto ranges = bounds_of(d, VarKind::kRange), runtimes = bounds_of(d, VarKind::kRuntime);
    box.insert(box.end(), ranges.begin(), ranges.end());
    box.insert(box.end(), runtimes.begin(), runtimes.end());
    REQUIRE(box_size(box) <= k_max_points);
    const std::size_t nd = m.dim_count(), nr = m.range_count();
    for_each_point(box, [&](const Tuple& p) {
      const auto part = [&](std::size_t from, std::size_t n) {
        return Tuple(p.begin() + static_cast<std::ptrdiff_t>(from), p.begin() + static_cast<std::ptrdiff_t>(from + n));
      };
      const Tuple dims = part(0, nd), ranges_at = part(nd, nr), runtimes_at = part(nd + nr, p.size() - nd - nr);
      const simplify::VarValues at{dims, ranges_at, runtimes_at};
      if (!satisfies(d, at)) return;
      Tuple t = dims;
      for (const Expr& r : m.results()) t.push_back(simplify::evaluate(r, at));
      out.insert(std::move(t));
    });
  }
  return out;
}

/// "" when the set, with every runtime variable bound to `raw(source,
/// element)` clamped to the source's clamp range, is exactly `expected` (a
/// superset where its maps say they are approximate); else what differs.
std::string differs_with_values(const MapSet& set,
                                const std::function<std::int64_t(const indexing::RuntimeSource&, const Tuple&)>& raw,
                                const TupleSet& expected) {
  const SourceValue value = [&](const indexing::RuntimeSource& s, bool, const Tuple& element) {
    return std::optional<std::int64_t>(std::clamp(raw(s, element), s.feasible.lo, s.feasible.hi));
  };
  return compare(expected, guarded_evaluation(set, value));
}

// A KNOWN EMPTY map is exact whatever it was composed from.
bool any_approximate(const MapSet& set) {
  return std::any_of(set.begin(), set.end(), [](const IndexingMap& m) { return m.is_defined() && m.approximate(); });
}

std::size_t max_runtime_variables(const MapSet& set) {
  std::size_t n = 0;
  for (const IndexingMap& m : set) n = std::max(n, m.is_defined() ? m.runtime_count() : 0);
  return n;
}

std::int64_t clamp_to(std::int64_t v, std::int64_t limit) { return std::clamp<std::int64_t>(v, 0, limit); }

}  // namespace

// dynamic-update-slice(b, u, o) then dynamic-slice(., o) of the update's
// size: the slice is the update, b is never read. With a slice of another
// size the two clamps differ (clamp(o, 0, 6) is not clamp(o, 0, 4)): the
// variables stay apart, and the maps stay exact for each value of o.
TEST_CASE("one offset read by two ops of a fusion is one runtime variable", "[op-bruteforce]") {
  constexpr std::int64_t n = 8;
  for (auto [update, slice] : {std::pair{2, 2}, std::pair{3, 3}, std::pair{2, 4}, std::pair{3, 2}, std::pair{1, 8}}) {
    const std::string text =
        "HloModule dusds\n%fused {\n  %b = f32[8]{0} parameter(0)\n  %u = f32[" + std::to_string(update) +
        "]{0} parameter(1)\n  %o = s32[] parameter(2)\n"
        "  %dus = f32[8]{0} dynamic-update-slice(%b, %u, %o)\n"
        "  ROOT %ds = f32[" +
        std::to_string(slice) + "]{0} dynamic-slice(%dus, %o), dynamic_slice_sizes={" + std::to_string(slice) +
        "}\n}\nENTRY %main {\n  %e0 = f32[8]{0} parameter(0)\n  %e1 = f32[" + std::to_string(update) +
        "]{0} parameter(1)\n  %e2 = s32[] parameter(2)\n  ROOT %f = f32[" + std::to_string(slice) +
        "]{0} fusion(%e0, %e1, %e2), kind=kLoop, calls=%fused\n}\n";
    INFO(text);
    const Analysed a = analyse(text);
    const std::vector<MapSet> o2i = a.analysis->output_to_input(a.computation, a.instruction, 0);
    std::vector<MapSet> i2o;
    for (std::size_t p = 0; p < 2; ++p)
      i2o.push_back(a.analysis->input_to_output(a.computation, a.instruction, p).at(0));
    std::array<TupleSet, 2> all;
    for (std::int64_t o = -3; o <= n + 3; ++o) {
      INFO("o = " << o);
      const std::int64_t at_u = clamp_to(o, n - update), at_s = clamp_to(o, n - slice);
      std::array<TupleSet, 2> reads;
      for (std::int64_t d = 0; d < slice; ++d) {
        const std::int64_t x = d + at_s;
        if (x - at_u >= 0 && x - at_u < update) {
          reads[1].insert({d, x - at_u});
        } else {
          reads[0].insert({d, x});
        }
      }
      const auto raw = [o](const indexing::RuntimeSource&, const Tuple&) { return o; };
      for (std::size_t p = 0; p < 2; ++p) {
        INFO("operand " << p << ":\n" << print_set(o2i[p]) << "operand -> output:\n" << print_set(i2o[p]));
        CHECK(differs_with_values(o2i[p], raw, reads[p]) == "");
        CHECK(differs_with_values(i2o[p], raw, inverse(reads[p], 1)) == "");
        all[p].insert(reads[p].begin(), reads[p].end());
      }
    }
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("operand " << p << ":\n" << print_set(o2i[p]) << "operand -> output:\n" << print_set(i2o[p]));
      const TupleSet o2i_points = projection(o2i[p]), i2o_points = projection(i2o[p]);
      CHECK(std::includes(o2i_points.begin(), o2i_points.end(), all[p].begin(), all[p].end()));
      const TupleSet inverse_all = inverse(all[p], 1);
      CHECK(std::includes(i2o_points.begin(), i2o_points.end(), inverse_all.begin(), inverse_all.end()));
      if (update == slice) {
        // One clamp: one value, one variable; the maps are the reads over all values.
        CHECK(max_runtime_variables(o2i[p]) <= 1);
        CHECK_FALSE((any_approximate(o2i[p]) || any_approximate(i2o[p])));
        CHECK(o2i_points == all[p]);
        CHECK(i2o_points == inverse_all);
      } else if (update < n && slice < n) {
        // Two clamps of one offset: two values, kept apart.
        CHECK(max_runtime_variables(o2i[1]) == 2);
      }
    }
    if (update == slice) CHECK(all[0].empty());
  }
}

// dynamic-slice(x, i, i): one offset for both dimensions. Equal clamps
// (a square slice of a square operand) make one variable; a slice of
// another width clamps the second start to another range: two.
TEST_CASE("one offset read twice by one dynamic-slice is one runtime variable when clamped alike", "[op-bruteforce]") {
  for (auto [rows, columns] : {std::pair{2, 2}, std::pair{2, 3}, std::pair{6, 1}}) {
    const std::string sizes = std::to_string(rows) + "," + std::to_string(columns);
    std::string text =
        "HloModule dsii\nENTRY %main {\n  %x = f32[6,6]{1,0} parameter(0)\n"
        "  %i = s32[] parameter(1)\n  ROOT %ds = f32[";
    text.append(sizes).append("]{1,0} dynamic-slice(%x, %i, %i), dynamic_slice_sizes={").append(sizes).append("}\n}\n");
    const Analysed a = analyse(text);
    const MapSet o2i = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
    const MapSet i2o = a.analysis->input_to_output(a.computation, a.instruction, 0).at(0);
    INFO("maps:\n" << print_set(o2i) << "operand -> output:\n" << print_set(i2o));
    TupleSet all;
    for (std::int64_t i = -2; i <= 8; ++i) {
      INFO("i = " << i);
      TupleSet reads;
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < columns; ++c)
          reads.insert({r, c, r + clamp_to(i, 6 - rows), c + clamp_to(i, 6 - columns)});
      }
      const auto raw = [i](const indexing::RuntimeSource&, const Tuple&) { return i; };
      CHECK(differs_with_values(o2i, raw, reads) == "");
      CHECK(differs_with_values(i2o, raw, inverse(reads, 2)) == "");
      all.insert(reads.begin(), reads.end());
    }
    const TupleSet points = projection(o2i);
    CHECK(std::includes(points.begin(), points.end(), all.begin(), all.end()));
    if (6 - rows == 6 - columns) {
      CHECK(max_runtime_variables(o2i) == 1);
      CHECK_FALSE((any_approximate(o2i) || any_approximate(i2o)));
      CHECK(points == all);
      CHECK(projection(i2o) == inverse(all, 2));
    } else if (rows < 6 && columns < 6) {
      CHECK(max_runtime_variables(o2i) == 2);
    }
  }
}

// Two starts from two elements of one index vector are two values: a
// gather reading idx[0] and idx[1] keeps two variables, exact for each pair.
TEST_CASE("different elements of one index array stay different runtime variables", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule g2
%fused {
  %t = f32[5,5]{1,0} parameter(0)
  %idx = s32[2]{0} parameter(1)
  %g = f32[2,2]{1,0} gather(%t, %idx), offset_dims={0,1}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,2}
  %one = s32[1]{0} slice(%idx), slice={[1:2]}
  %j = s32[] reshape(%one)
  %zero = s32[] constant(0)
  ROOT %ds = f32[2,1]{1,0} dynamic-slice(%g, %zero, %j), dynamic_slice_sizes={2,1}
}
ENTRY %main {
  %e0 = f32[5,5]{1,0} parameter(0)
  %e1 = s32[2]{0} parameter(1)
  ROOT %f = f32[2,1]{1,0} fusion(%e0, %e1), kind=kLoop, calls=%fused
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
  INFO("maps:\n" << print_set(set));
  CHECK(max_runtime_variables(set) >= 2);
  for (std::int64_t i0 = -1; i0 <= 5; ++i0) {
    for (std::int64_t i1 = -1; i1 <= 5; ++i1) {
      INFO("idx = {" << i0 << ", " << i1 << "}");
      TupleSet reads;
      for (std::int64_t r = 0; r < 2; ++r) reads.insert({r, 0, r + clamp_to(i0, 3), clamp_to(i1, 1) + clamp_to(i1, 3)});
      const auto raw = [&](const indexing::RuntimeSource&, const Tuple& element) {
        // Sources read idx directly (an element of it) or through %j (a scalar: idx[1]).
        return element.empty() || element.at(0) == 1 ? i1 : i0;
      };
      CHECK(differs_with_values(set, raw, reads) == "");
    }
  }
}

// Gathers and dynamic-slices whose starts a fusion computes from constants
// and iotas: random modules of five kinds, each evaluated directly on the
// values (clamped as XLA clamps starts). The maps must read exactly those
// elements; without runtime variables where the values fold (an iota
// expression, or a table of at most 64 runs of equal clamped values), else
// with one narrowed to the clamped values' range. Operand -> output maps are
// exact where the starts fold, a superset otherwise.
namespace {

struct KnownStartsCase {
  std::string text;
  /// The reads of the fusion's operand 0: (output index..., operand index...).
  TupleSet reads;
  /// Integer arrays of the body by name: dims and row-major values.
  std::map<std::string, std::pair<Tuple, Tuple>> arrays;
  bool folds = true;  // no runtime variable expected
  std::size_t output_rank = 1;
};

std::string int_literal(const Tuple& values, std::int64_t row) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (row > 0 && i % static_cast<std::size_t>(row) == 0) out += (i == 0 ? "{" : "}, {");
    out += (row > 0 && i % static_cast<std::size_t>(row) != 0) || (row == 0 && i > 0) ? ", " : "";
    out += std::to_string(values[i]);
  }
  return out + (row > 0 ? "}}" : "}");
}

KnownStartsCase known_starts_case(std::uint64_t seed) {
  Rng r(seed * 31 + 5);
  KnownStartsCase k;
  const std::int64_t rows = r.uniform(3, 10);
  const std::string l = std::to_string(rows);
  std::string body, entry_operand = "f32[" + l + ",3]{1,0}";
  const int kind = static_cast<int>(seed % 5);
  std::string root;
  auto random_values = [&](std::int64_t count, std::int64_t hi) {
    Tuple v;
    for (std::int64_t i = 0; i < count; ++i) v.push_back(r.uniform(-3, hi + 3));
    return v;
  };
  if (kind == 0 || kind == 1) {
    // gather(t, reshape(values)): output (b, j) reads t[clamp(values[b]), j].
    const std::int64_t n = kind == 0 ? r.uniform(1, 90) : r.uniform(1, 200);
    const std::string ns = std::to_string(n);
    Tuple values;
    if (kind == 0) {
      values = random_values(n, rows - 1);
      body += "  %c = s32[" + ns + "]{0} constant(" + int_literal(values, 0) + ")\n";
      // Runs of equal clamped values decide whether the table folds.
      std::size_t runs = 0;
      for (std::int64_t b = 0; b < n; ++b) {
        runs += b == 0 || clamp_to(values[static_cast<std::size_t>(b)], rows - 1) !=
                              clamp_to(values[static_cast<std::size_t>(b - 1)], rows - 1);
      }
      k.folds = runs <= 64;
    } else {
      const std::int64_t m = r.uniform(-2, 3), c = r.uniform(-4, rows);
      for (std::int64_t b = 0; b < n; ++b) values.push_back(m * b + c);
      body += "  %i = s32[" + ns + "]{0} iota(), iota_dimension=0\n  %m = s32[] constant(" + std::to_string(m) +
              ")\n  %mb = s32[" + ns + "]{0} broadcast(%m), dimensions={}\n  %k = s32[] constant(" + std::to_string(c) +
              ")\n  %kb = s32[" + ns + "]{0} broadcast(%k), dimensions={}\n  %im = s32[" + ns +
              "]{0} multiply(%i, %mb)\n  %c = s32[" + ns + "]{0} add(%im, %kb)\n";
    }
    body += "  %r = s32[" + ns + ",1]{1,0} reshape(%c)\n";
    k.arrays["r"] = {{n, 1}, values};
    root = "  ROOT %g = f32[" + ns +
           ",3]{1,0} gather(%t, %r), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
           "index_vector_dim=1, slice_sizes={1,3}\n";
    for (std::int64_t b = 0; b < n; ++b) {
      for (std::int64_t j = 0; j < 3; ++j)
        k.reads.insert({b, j, clamp_to(values[static_cast<std::size_t>(b)], rows - 1), j});
    }
    k.text = "f32[" + ns + ",3]{1,0}";
    k.output_rank = 2;
  } else if (kind == 2) {
    // dynamic-slice(t, reshape(slice(values)), 0): a scalar start from one element.
    const std::int64_t n = r.uniform(1, 6), q = r.uniform(0, n - 1), size = r.uniform(1, rows);
    const Tuple values = random_values(n, rows - size);
    const std::string ns = std::to_string(n), ss = std::to_string(size);
    body += "  %c = s32[" + ns + "]{0} constant(" + int_literal(values, 0) +
            ")\n  %one = s32[1]{0} slice(%c), slice={[" + std::to_string(q) + ":" + std::to_string(q + 1) +
            "]}\n  %o = s32[] reshape(%one)\n  %z = s32[] constant(0)\n";
    k.arrays["o"] = {{}, {values[static_cast<std::size_t>(q)]}};
    root = "  ROOT %ds = f32[" + ss + ",3]{1,0} dynamic-slice(%t, %o, %z), dynamic_slice_sizes={" + ss + ",3}\n";
    const std::int64_t start = clamp_to(values[static_cast<std::size_t>(q)], rows - size);
    for (std::int64_t a = 0; a < size; ++a) {
      for (std::int64_t j = 0; j < 3; ++j) k.reads.insert({a, j, a + start, j});
    }
    k.text = "f32[" + ss + ",3]{1,0}";
    k.output_rank = 2;
  } else {
    // A two-entry index vector per batch position: a converted s64 table
    // (kind 3) or one value broadcast to both entries (kind 4).
    const std::int64_t n = r.uniform(1, kind == 3 ? 12 : 40), columns = r.uniform(2, 6);
    const std::string ns = std::to_string(n);
    entry_operand = "f32[" + l + "," + std::to_string(columns) + "]{1,0}";
    Tuple values;
    if (kind == 3) {
      values = random_values(2 * n, std::max(rows, columns) - 1);
      body += "  %c = s64[" + ns + ",2]{1,0} constant(" + int_literal(values, 2) + ")\n  %cv = s32[" + ns +
              ",2]{1,0} convert(%c)\n";
    } else {
      const Tuple one = random_values(n, std::min(rows, columns) - 1);
      for (std::int64_t v : one) values.insert(values.end(), {v, v});
      body += "  %c = s32[" + ns + "]{0} constant(" + int_literal(one, 0) + ")\n  %cv = s32[" + ns +
              ",2]{1,0} broadcast(%c), dimensions={0}\n";
    }
    k.arrays["cv"] = {{n, 2}, values};
    root = "  ROOT %g = f32[" + ns +
           "]{0} gather(%t, %cv), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, "
           "index_vector_dim=1, slice_sizes={1,1}\n";
    for (std::int64_t b = 0; b < n; ++b) {
      k.reads.insert({b, clamp_to(values[static_cast<std::size_t>(2 * b)], rows - 1),
                      clamp_to(values[static_cast<std::size_t>(2 * b + 1)], columns - 1)});
    }
    k.text = "f32[" + ns + "]{0}";
  }
  const std::string result = k.text;
  k.text = "HloModule known\n%fused {\n  %t = " + entry_operand + " parameter(0)\n" + body + root +
           "}\nENTRY %main {\n  %e0 = " + entry_operand + " parameter(0)\n  ROOT %f = " + result +
           " fusion(%e0), kind=kLoop, calls=%fused\n}\n";
  return k;
}

}  // namespace

TEST_CASE("gathers and dynamic-slices on starts computed from constants and iotas read what the values select",
          "[op-bruteforce]") {
  std::array<int, 5> folded{}, narrowed{};
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    const KnownStartsCase k = known_starts_case(seed);
    INFO("seed " << seed << ":\n" << k.text);
    const Analysed a = analyse(k.text);
    const MapSet o2i = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
    const MapSet i2o = a.analysis->input_to_output(a.computation, a.instruction, 0).at(0);
    INFO("maps:\n" << print_set(o2i) << "operand -> output:\n" << print_set(i2o));
    const auto raw = [&](const indexing::RuntimeSource& s, const Tuple& element) -> std::int64_t {
      const std::string name = s.source.substr(s.source.find('/') + 1);
      const auto& [dims, values] = k.arrays.at(name);
      return values.at(static_cast<std::size_t>(linear(element, dims)));
    };
    CHECK(differs_with_values(o2i, raw, k.reads) == "");
    CHECK_FALSE(any_approximate(o2i));
    const TupleSet points = projection(o2i), inverse_reads = inverse(k.reads, k.output_rank);
    const TupleSet i2o_points = projection(i2o);
    CHECK(std::includes(i2o_points.begin(), i2o_points.end(), inverse_reads.begin(), inverse_reads.end()));
    if (k.folds) {
      CHECK(max_runtime_variables(o2i) == 0);
      CHECK(points == k.reads);
      // Exact both ways (a gather's operand -> output maps are the inverses of its pieces).
      CHECK_FALSE(any_approximate(i2o));
      CHECK(i2o_points == inverse_reads);
      ++folded[seed % 5];
    } else {
      CHECK(std::includes(points.begin(), points.end(), k.reads.begin(), k.reads.end()));
      ++narrowed[seed % 5];
    }
  }
  for (int kind = 0; kind < 5; ++kind) CHECK(folded[static_cast<std::size_t>(kind)] > 0);
  CHECK(narrowed[0] > 0);
}

// A bitcast to an element type of another width reinterprets bits: s64
// {0, 1} read as s32[2,2] is {0, 0, 1, 0} (low word first), not the s64
// values at (d0). The starts are not folded; the runtime variable reads
// the bitcast's elements.
TEST_CASE("starts through a bitcast between element widths are not folded as values", "[op-bruteforce]") {
  const Analysed a = analyse(R"(HloModule bitcast_starts
%fused {
  %t = f32[64]{0} parameter(0)
  %i = s64[2]{0} iota(), iota_dimension=0
  %b = s32[2,2]{1,0} bitcast(%i)
  ROOT %g = f32[2,2]{1,0} gather(%t, %b), offset_dims={}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1}
}
ENTRY %main {
  %e0 = f32[64]{0} parameter(0)
  ROOT %f = f32[2,2]{1,0} fusion(%e0), kind=kLoop, calls=%fused
})");
  const MapSet set = a.analysis->output_to_input(a.computation, a.instruction, 0).at(0);
  INFO("maps:\n" << print_set(set));
  const Tuple words = {0, 0, 1, 0};
  const TupleSet reads = {{0, 0, 0}, {0, 1, 0}, {1, 0, 1}, {1, 1, 0}};
  const auto raw = [&](const indexing::RuntimeSource&, const Tuple& element) {
    return words.at(static_cast<std::size_t>(linear(element, {2, 2})));
  };
  CHECK(differs_with_values(set, raw, reads) == "");
}

}  // namespace test_indexing_op_bruteforce_cases
