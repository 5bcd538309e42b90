#include "indexing/verdicts/linter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_set>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/dump_stage.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/cost/memory_traffic.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "layout/physical_layout.hpp"

namespace hlo_index::analysis {

namespace {

using indexing::IndexingMap;
using indexing::InstructionIndexing;
using indexing::MapSet;
using json = nlohmann::ordered_json;

std::int64_t array_bits(const hlo::Shape& shape) {
  return shape.layout && shape.layout->element_size_bits != 0 ? shape.layout->element_size_bits
                                                              : hlo::element_type_bits(shape.type);
}

std::int64_t packed_bytes(std::int64_t elements, std::int64_t bits) {
  std::int64_t total = 0;
  if (__builtin_mul_overflow(elements, bits, &total)) return std::numeric_limits<std::int64_t>::max();
  return total / 8 + (total % 8 != 0 ? 1 : 0);
}

// Leaves of a tuple shape (the outputs of a tuple-shaped instruction,
// tuple_leaves.hpp), or the shape itself.
std::vector<const hlo::Shape*> output_shapes(const hlo::Shape& shape) { return indexing::leaf_shapes(shape); }

// 12.5%, 0.39%, 0.0031%: three digits at most, two significant ones below 1%.
std::string percent(double fraction) {
  const double p = 100.0 * fraction;
  return p >= 1 || p == 0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.2g}%", p);
}

// The figures every finding stated in time ends with: the time a fix saves
// (over all runs), the runs, the module's estimated time and the device.
void put_saving(LintFinding& f, double saved, const cost::Executions& runs, double module, const std::string& device) {
  f.values["saved_seconds"] = saved;
  f.values["runs"] = runs.count;
  f.values["module_seconds"] = module;
  f.values["device"] = device;
}

// Where an instruction is written: its name, or for an inline operand
// instruction (whose made-up name is not in the text) the instruction using it.
const hlo::Instruction* located(const hlo::Module& module, const hlo::Computation& c, std::uint32_t index) {
  const std::string_view text = module.source ? module.source->text() : std::string_view();
  for (std::uint32_t i = index; i < c.instructions.size();) {
    const std::string_view name = c.instructions[i].name;
    if (!text.empty() && name.data() >= text.data() && name.data() + name.size() <= text.data() + text.size())
      return &c.instructions[i];
    std::uint32_t user = i;
    for (std::uint32_t j = i + 1; j < c.instructions.size() && user == i; ++j) {
      for (std::uint32_t operand : c.operands_of(c.instructions[j])) {
        if (operand == i) user = j;
      }
    }
    if (user == i) break;
    i = user;
  }
  return nullptr;
}

// A read along a reduced dimension that walks consecutive offsets: some range
// variable of every map moves the operand offset by exactly one element.
bool walks_consecutively(const MapSet& physical) {
  bool any = false;
  for (const IndexingMap& m : physical) {
    if (m.is_known_empty()) continue;
    if (!m.is_defined() || m.results().size() != 1 || m.dim_count() != 1 || m.range_count() == 0) return false;
    const simplify::Domain& d = m.domain();
    const std::int64_t dims[] = {d.bounds({simplify::VarKind::kDim, 0}).lo};
    std::vector<std::int64_t> ranges(m.range_count());
    for (std::size_t k = 0; k < ranges.size(); ++k)
      ranges[k] = d.bounds({simplify::VarKind::kRange, static_cast<std::uint32_t>(k)}).lo;
    // Runtime offsets (a gather's, a dynamic-slice's) at one of their values: the step between
    // consecutive range values is the same at every value of an offset that only shifts the read.
    std::vector<std::int64_t> runtime(m.runtime_count());
    for (std::size_t k = 0; k < runtime.size(); ++k)
      runtime[k] = d.bounds({simplify::VarKind::kRuntime, static_cast<std::uint32_t>(k)}).lo;
    bool found = false;
    for (std::size_t k = 0; k < ranges.size() && !found; ++k) {
      const simplify::Interval b = d.bounds({simplify::VarKind::kRange, static_cast<std::uint32_t>(k)});
      if (b.hi <= b.lo) continue;
      std::vector<std::int64_t> next = ranges;
      ++next[k];
      const std::int64_t a = simplify::evaluate(m.results()[0], {dims, ranges, runtime});
      const std::int64_t c = simplify::evaluate(m.results()[0], {dims, next, runtime});
      found = c - a == 1 || a - c == 1;
    }
    if (!found) return false;
    any = true;
  }
  return any;
}

// The maps of the judged operands only (counting is the expensive part): the
// others get empty sets, and rows stop after the last judged operand.
InstructionIndexing judged_maps(const InstructionIndexing& logical, const std::vector<bool>& judged) {
  InstructionIndexing counted;
  counted.output_to_input.resize(logical.output_to_input.size());
  for (std::size_t j = 0; j < judged.size(); ++j) {
    if (!judged[j]) continue;
    for (std::size_t k = 0; k < logical.output_to_input.size(); ++k) {
      const auto& row = logical.output_to_input[k];
      if (j >= row.size() || row[j].empty()) continue;
      counted.output_to_input[k].resize(j + 1);
      counted.output_to_input[k].set(j, row[j]);
    }
  }
  return counted;
}

}  // namespace

bool linted_instruction(const hlo::Instruction& instruction, bool all_instructions) {
  return all_instructions || instruction.opcode == hlo::Opcode::kFusion;
}

std::vector<WorkItem> linted_items(std::span<const hlo::Module> modules, const InstructionFilter& filter,
                                   bool all_instructions) {
  std::vector<WorkItem> items;
  for (std::size_t k = 0; k < modules.size(); ++k) {
    const hlo::Module& module = modules[k];
    if (!filter.accepts_module(module)) continue;
    for (std::uint32_t ci : analysed_computations(module)) {
      const hlo::Computation& c = module.computations[ci];
      if (!filter.accepts_computation(c)) continue;
      for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
        const hlo::Instruction& instruction = c.instructions[ii];
        if (linted_instruction(instruction, all_instructions) && filter.accepts_instruction(module, c, instruction))
          items.push_back({k, ci, ii});
      }
    }
  }
  set_affinities(modules, items);
  return items;
}

// What the operand rules need to know about one operand.
struct Linter::OperandFacts {
  std::string name;
  std::string shape_text;
  std::int64_t bytes = 0;                // the whole operand, packed
  std::int64_t bits = 0;                 // per element
  bool array = false;                    // not a tuple, and its size is known
  bool defined = true;                   // no UNDEFINED map
  bool approximate = false;              // some approximate map
  bool runtime = false;                  // some map has runtime variables
  std::vector<const IndexingMap*> maps;  // distinct maps over all outputs

  // "operand 1 %p.3 (f32[4096,4096]{1,0}, 64 MiB)"
  std::string describe(std::size_t index) const {
    return fmt::format("operand {} %{} ({}, {})", index, name, shape_text, human_bytes(bytes));
  }
};

Linter::Linter(const hlo::Module& module, LintRuleSet rules, const LintThresholds& thresholds)
    : m_module(module),
      m_rules(rules),
      m_thresholds(thresholds),
      m_owned_analysis(std::make_unique<ModuleAnalysis>(module, indexing::AnalysisOptions{})),
      m_analysis(*m_owned_analysis) {}

Linter::Linter(ModuleAnalysis& analysis, LintRuleSet rules, const LintThresholds& thresholds)
    : m_module(analysis.module()), m_rules(rules), m_thresholds(thresholds), m_analysis(analysis) {}

LintFinding Linter::finding(LintRule rule, const hlo::Computation& c, std::uint32_t instruction) const {
  LintFinding f;
  f.rule = rule;
  f.file = m_module.source ? m_module.source->name() : std::string();
  f.module = std::string(m_module.name);
  f.computation = std::string(c.name);
  f.instruction = std::string(c.instructions[instruction].name);
  const auto ci = static_cast<std::uint32_t>(&c - m_module.computations.data());
  if (!m_fingerprints) m_fingerprints = std::make_unique<ModuleFingerprints>(m_module);
  if (!m_sources) m_sources = std::make_unique<ModuleSources>(m_module);
  f.fingerprint = m_fingerprints->of(ci, instruction);
  const SourceInfo source = m_sources->of(ci, instruction);
  f.op_name = source.op_name;
  f.source = source.location();
  if (const hlo::Instruction* at = located(m_module, c, instruction)) {
    const parser::LineColumn lc = m_module.source->line_column(m_module.source->offset_of(at->name.data()));
    f.line = lc.line;
    f.column = lc.column;
  }
  return f;
}

std::vector<LintFinding> Linter::lint(std::uint32_t computation, std::uint32_t instruction) {
  return lint(computation, instruction, m_analysis.indexing(computation, instruction, true, false));
}

std::vector<LintFinding> Linter::lint(std::uint32_t computation, std::uint32_t instruction,
                                      const InstructionIndexing& logical) {
  const hlo::Computation& c = m_module.computations[computation];
  std::vector<LintFinding> out;
  whole_instruction_rules(c, instruction, logical, out);
  const std::vector<OperandFacts> facts = operand_facts(c, c.instructions[instruction], logical);
  // The rules about fusion decisions look inside the fused body.
  std::shared_ptr<const FusedBody> body;
  const bool undefined = std::any_of(facts.begin(), facts.end(), [](const OperandFacts& f) { return !f.defined; });
  if (c.instructions[instruction].opcode == hlo::Opcode::kFusion && !undefined)
    body = m_analysis.fused_uses(computation, instruction);
  const FusedBody* fused = body && body->defined() ? body.get() : nullptr;
  if (fused != nullptr) {
    duplicated_read_rule(c, instruction, *fused, facts, out);
    recomputation_rule(computation, instruction, facts, out);
  }
  missed_fusion_rule(computation, instruction, out);
  if (before_optimisation()) {
    // Layout assignment and fusion have not run: the reads judged are not the ones that will run.
    for (LintFinding& f : out) {
      if (rule_info(f.rule).level != LintLevel::kWarning) continue;
      f.message +=
          " (in a dump taken before optimisation: XLA's layout assignment and fusion would change these reads)";
      f.values["before_optimisation"] = true;
    }
  }
  count_rules(computation, instruction, logical, fused, facts, out);
  coalescing_rule(c, instruction, logical, facts, fused, out);
  return out;
}

std::vector<Linter::OperandFacts> Linter::operand_facts(const hlo::Computation& c, const hlo::Instruction& instr,
                                                        const InstructionIndexing& logical) const {
  const auto operands = c.operands_of(instr);
  std::vector<OperandFacts> facts(operands.size());
  for (std::size_t j = 0; j < operands.size(); ++j) {
    OperandFacts& f = facts[j];
    const hlo::Shape& shape = m_module.shape_of(c.instructions[operands[j]]);
    f.name = std::string(c.instructions[operands[j]].name);
    f.shape_text = hlo::to_string(shape);
    const auto elements = shape.element_count();
    f.array = !shape.is_tuple && elements.has_value();
    if (f.array) {
      f.bits = array_bits(shape);
      f.bytes = packed_bytes(*elements, f.bits);
    }
    std::unordered_set<const IndexingMap*, indexing::PointedMapHash, indexing::PointedMapEqual> seen;
    for (const auto& per_output : logical.output_to_input) {
      if (j >= per_output.size()) continue;
      for (const IndexingMap& m : per_output[j]) {
        f.defined = f.defined && !m.is_undefined();
        f.approximate = f.approximate || m.approximate();
        f.runtime = f.runtime || (m.is_defined() && m.runtime_count() > 0);
        if (m.is_known_empty()) continue;
        if (seen.insert(&m).second) f.maps.push_back(&m);  // in order of first reading
      }
    }
  }
  return facts;
}

std::string Linter::fused_name(const hlo::Computation& computation, std::uint32_t index) const {
  const hlo::Instruction& instr = computation.instructions[index];
  if (const hlo::Instruction* at = located(m_module, computation, index)) {
    const parser::LineColumn lc = m_module.source->line_column(m_module.source->offset_of(at->name.data()));
    return fmt::format("%{} ({}, line {})", instr.name, hlo::opcode_name(instr.opcode), lc.line);
  }
  return fmt::format("%{} ({})", instr.name, hlo::opcode_name(instr.opcode));
}

void Linter::name_fused(LintFinding& finding, std::string_view key, const hlo::Computation& computation,
                        std::uint32_t index) const {
  json named = json::object();
  named["name"] = std::string(computation.instructions[index].name);
  named["opcode"] = std::string(hlo::opcode_name(computation.instructions[index].opcode));
  if (const hlo::Instruction* at = located(m_module, computation, index))
    named["line"] = m_module.source->line_column(m_module.source->offset_of(at->name.data())).line;
  finding.values[std::string(key)] = std::move(named);
}

namespace {

// One way a fused instruction reads a parameter.
struct FusedRead {
  const FusedUse* use;
  const IndexingMap* map;
};

// Elements two reads of one execution have in common (with replica ids as
// part of the element); nullopt when a count is not exact.
std::optional<std::int64_t> overlap(const IndexingMap& a, const IndexingMap& b) {
  const MapSet both = with_replica_results({pinned_runtime(a), pinned_runtime(b)});
  const indexing::Count ia = indexing::count_image(both[0]);
  const indexing::Count ib = indexing::count_image(both[1]);
  const indexing::Count iu = indexing::count_union_image(both);
  if (!ia.exact || !ib.exact || !iu.exact) return std::nullopt;
  return ia.value + ib.value - iu.value;
}

}  // namespace

void Linter::duplicated_read_rule(const hlo::Computation& c, std::uint32_t instruction, const FusedBody& body,
                                  const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const {
  if (!m_rules[static_cast<std::size_t>(LintRule::kDuplicatedRead)]) return;
  const hlo::Computation& callee = m_module.computations[body.callee];
  for (std::size_t j = 0; j < facts.size() && j < body.parameter_uses.size(); ++j) {
    const OperandFacts& f = facts[j];
    if (!f.array || !f.defined || f.approximate || f.bytes < m_thresholds.duplicated_read_min_bytes) continue;
    // The distinct reads under the shared-loop model: one output's maps per use.
    std::vector<FusedRead> reads;
    for (const FusedUse& use : body.parameter_uses[j]) {
      for (std::size_t k = 0; k < use.maps.size(); ++k) {
        if (!body.one_loop_domain && k != loop_output(use)) continue;
        for (const IndexingMap& m : use.maps[k]) {
          if (!m.is_defined()) continue;
          const bool seen = std::any_of(reads.begin(), reads.end(), [&](const FusedRead& r) {
            return *r.map == m || indexing::are_equal(*r.map, m).value_or(false);
          });
          if (!seen) reads.push_back({&use, &m});
        }
      }
    }
    if (reads.size() < m_thresholds.duplicated_read_min_maps) continue;
    // The first two reads that fetch common elements.
    std::optional<std::pair<std::size_t, std::size_t>> pair;
    std::int64_t common = 0;
    for (std::size_t a = 0; a < reads.size() && !pair; ++a) {
      for (std::size_t b = a + 1; b < reads.size() && !pair; ++b) {
        const std::optional<std::int64_t> n = overlap(*reads[a].map, *reads[b].map);
        if (n && *n > 0) {
          pair = {a, b};
          common = *n;
        }
      }
    }
    if (!pair) continue;
    const FusedRead& first = reads[pair->first];
    const FusedRead& second = reads[pair->second];
    LintFinding d = finding(LintRule::kDuplicatedRead, c, instruction);
    d.operand = j;
    d.operand_name = f.name;
    const std::string who =
        first.use->user == second.use->user
            ? fmt::format("{} is evaluated through two maps that read", fused_name(callee, first.use->user))
            : fmt::format("{} and {} read", fused_name(callee, first.use->user), fused_name(callee, second.use->user));
    d.message = fmt::format(
        "%{} reads {} through {} distinct maps that overlap (threshold {} maps): {} {} elements in common; fix: {}",
        c.instructions[instruction].name, f.describe(j), reads.size(), m_thresholds.duplicated_read_min_maps, who,
        common, rule_fix(LintRule::kDuplicatedRead));
    d.values["maps"] = reads.size();
    json texts = json::array();
    for (const FusedRead& r : reads) texts.push_back(indexing::print_map(*r.map));
    d.values["map_texts"] = std::move(texts);
    d.values["common_elements"] = common;
    name_fused(d, "first_reader", callee, first.use->user);
    name_fused(d, "second_reader", callee, second.use->user);
    d.values["operand_bytes"] = f.bytes;
    d.values["min_maps"] = m_thresholds.duplicated_read_min_maps;
    d.values["min_bytes"] = m_thresholds.duplicated_read_min_bytes;
    out.push_back(std::move(d));
  }
}

cost::CostModel& Linter::costs() {
  if (m_shared_costs != nullptr) return *m_shared_costs;
  if (!m_costs) m_costs = std::make_unique<cost::CostModel>(m_analysis, cost::device_for(m_module, m_device));
  return *m_costs;
}

double Linter::module_seconds() {
  if (!m_module_seconds) m_module_seconds = cost::module_totals(costs()).seconds;
  return *m_module_seconds;
}

bool Linter::before_optimisation() {
  if (!m_before_optimisation) m_before_optimisation = dump_stage(m_module).before_optimisation;
  return *m_before_optimisation;
}

bool Linter::worth_reporting(std::uint32_t computation, double saved_seconds, double& over_runs) {
  over_runs = saved_seconds * costs().executions(computation).count;
  return over_runs >= m_thresholds.min_saved_seconds && over_runs >= m_thresholds.min_saved_share * module_seconds();
}

std::string Linter::instruction_name(const hlo::Computation& computation, std::uint32_t index) const {
  const hlo::Instruction& instr = computation.instructions[index];
  if (const hlo::Instruction* at = located(m_module, computation, index)) {
    const parser::LineColumn lc = m_module.source->line_column(m_module.source->offset_of(at->name.data()));
    return fmt::format("%{} (line {})", instr.name, lc.line);
  }
  return fmt::format("%{}", instr.name);
}

void Linter::recomputation_rule(std::uint32_t computation, std::uint32_t instruction,
                                const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) {
  if (!m_rules[static_cast<std::size_t>(LintRule::kCostlyRecompute)] || before_optimisation()) return;
  // Evaluations through approximate maps or at runtime offsets are not counts to judge by.
  if (std::any_of(facts.begin(), facts.end(), [](const OperandFacts& f) { return f.approximate || f.runtime; })) return;
  const std::optional<cost::RecomputeDecision> d = cost::best_recompute_decision(costs(), computation, instruction);
  if (!d || !(d->evaluations_per_element > m_thresholds.max_multiplicity)) return;
  double saved = 0;
  if (!worth_reporting(computation, d->saved_seconds(), saved)) return;
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Computation& callee = *m_module.callee(c, c.instructions[instruction]);
  const double module = module_seconds();
  const cost::Executions runs = costs().executions(computation);
  LintFinding f = finding(LintRule::kCostlyRecompute, c, instruction);
  const std::string by =
      d->consumer != d->producer ? fmt::format(" because {} re-reads it", fused_name(callee, d->consumer)) : "";
  f.message = fmt::format(
      "%{} evaluates {} {:.1f} times per element of its result{}: {} FLOP more than once each; computed in a "
      "fusion of its own (its {} result written once and read back) the two kernels would take an estimated {} "
      "instead of {} on {}, saving {}{} ({:.1f}% of the module's {}); fix: compute %{} in a fusion of its own",
      c.instructions[instruction].name, fused_name(callee, d->producer), d->evaluations_per_element, by,
      cost::human_count(static_cast<double>(d->recomputed_flops)), human_bytes(d->intermediate_bytes),
      cost::human_seconds(d->materialised_seconds), cost::human_seconds(d->fused_seconds), costs().device().name,
      cost::human_seconds(saved), runs.count != 1 ? fmt::format(" over {:g} runs", runs.count) : std::string(),
      module > 0 ? 100 * saved / module : 0.0, cost::human_seconds(module), callee.instructions[d->producer].name);
  name_fused(f, "producer", callee, d->producer);
  if (d->consumer != d->producer) name_fused(f, "consumer", callee, d->consumer);
  f.values["multiplicity"] = d->evaluations_per_element;
  f.values["recomputed_flops"] = d->recomputed_flops;
  f.values["intermediate_bytes"] = d->intermediate_bytes;
  f.values["fused_seconds"] = d->fused_seconds;
  f.values["materialised_seconds"] = d->materialised_seconds;
  put_saving(f, saved, runs, module, costs().device().name);
  out.push_back(std::move(f));
}

void Linter::missed_fusion_rule(std::uint32_t computation, std::uint32_t instruction, std::vector<LintFinding>& out) {
  if (!m_rules[static_cast<std::size_t>(LintRule::kMissedFusion)] || before_optimisation()) return;
  auto it = m_edges.find(computation);
  if (it == m_edges.end()) it = m_edges.emplace(computation, cost::fusion_edge_decisions(costs(), computation)).first;
  const auto d = std::find_if(it->second.begin(), it->second.end(),
                              [&](const cost::FusionEdgeDecision& e) { return e.producer == instruction; });
  if (d == it->second.end()) return;
  double saved = 0;
  if (!worth_reporting(computation, d->saved_seconds(), saved)) return;
  const hlo::Computation& c = m_module.computations[computation];
  const double module = module_seconds();
  const cost::Executions runs = costs().executions(computation);
  std::vector<std::string> consumers;
  for (std::uint32_t u : d->consumers) consumers.push_back(instruction_name(c, u));
  LintFinding f = finding(LintRule::kMissedFusion, c, instruction);
  f.message = fmt::format(
      "%{} writes an intermediate that {} read{} back; XLA's fusion rules allow fusing it into {}: an estimated {} "
      "instead of {} on {}, saving {}{} ({:.1f}% of the module's {}): {} of memory traffic and {} kernel launch, "
      "against {} FLOP recomputed; fix: fuse %{} into {}",
      c.instructions[instruction].name, fmt::join(consumers, ", "), consumers.size() == 1 ? "s" : "",
      consumers.size() == 1 ? "its consumer" : "its consumers", cost::human_seconds(d->fused_seconds),
      cost::human_seconds(d->unfused_seconds), costs().device().name, cost::human_seconds(saved),
      runs.count != 1 ? fmt::format(" over {:g} runs", runs.count) : std::string(),
      module > 0 ? 100 * saved / module : 0.0, cost::human_seconds(module), human_bytes(d->intermediate_bytes), "one",
      cost::human_count(static_cast<double>(d->recomputed_flops)), c.instructions[instruction].name,
      consumers.size() == 1 ? "it" : "them");
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::uint32_t u : d->consumers) list.push_back(std::string(c.instructions[u].name));
  f.values["consumers"] = list;
  f.values["intermediate_bytes"] = d->intermediate_bytes;
  f.values["recomputed_flops"] = d->recomputed_flops;
  f.values["unfused_seconds"] = d->unfused_seconds;
  f.values["fused_seconds"] = d->fused_seconds;
  put_saving(f, saved, runs, module, costs().device().name);
  out.push_back(std::move(f));
}

void Linter::whole_instruction_rules(const hlo::Computation& c, std::uint32_t instruction,
                                     const InstructionIndexing& logical, std::vector<LintFinding>& out) const {
  const bool unknown = m_rules[static_cast<std::size_t>(LintRule::kUnknownIndexing)];
  const bool approximate = m_rules[static_cast<std::size_t>(LintRule::kApproximateIndexing)];
  if (!unknown && !approximate) return;
  const hlo::Instruction& instr = c.instructions[instruction];
  const auto operands = c.operands_of(instr);
  // Per rule: the operands concerned (in order) and the first reason.
  std::set<std::size_t> undefined_operands, approximate_operands;
  std::string reason, approximation;
  for (const auto& per_output : logical.output_to_input) {
    for (const auto& [j, set] : per_output.stored()) {
      for (const IndexingMap& m : set) {
        if (m.is_undefined()) {
          if (undefined_operands.empty() || j < *undefined_operands.begin())
            reason = m.undefined_reason().empty() ? "unknown" : m.undefined_reason();
          undefined_operands.insert(j);
        }
        if (m.approximate()) {
          if (approximate_operands.empty() || j < *approximate_operands.begin() ||
              (j == *approximate_operands.begin() && approximation.empty()))
            approximation = m.approximation_reason();
          approximate_operands.insert(j);
        }
      }
    }
  }
  auto operand_list = [&](const std::set<std::size_t>& set) {
    json list = json::array();
    for (std::size_t j : set) list.push_back(j);
    return list;
  };
  auto name_of = [&](std::size_t j) { return std::string(c.instructions[operands[j]].name); };
  if (unknown && !undefined_operands.empty()) {
    const std::size_t first = *undefined_operands.begin();
    LintFinding f = finding(LintRule::kUnknownIndexing, c, instruction);
    f.message = fmt::format("hlo-index cannot analyse %{}: no maps for operand {} %{}: {}", instr.name, first,
                            name_of(first), reason);
    if (undefined_operands.size() > 1) {
      f.message += fmt::format(" ({} operands without maps)", undefined_operands.size());
    }
    f.values["operands"] = operand_list(undefined_operands);
    f.values["reason"] = reason;
    out.push_back(std::move(f));
  }
  if (approximate && !approximate_operands.empty()) {
    const std::size_t first = *approximate_operands.begin();
    LintFinding f = finding(LintRule::kApproximateIndexing, c, instruction);
    f.message = fmt::format("the maps of %{} for operand {} %{} are approximate (sound supersets of the elements read)",
                            instr.name, first, name_of(first));
    if (!approximation.empty()) f.message += ": " + approximation;
    if (approximate_operands.size() > 1) {
      f.message += fmt::format(" ({} operands with approximate maps)", approximate_operands.size());
    }
    f.values["operands"] = operand_list(approximate_operands);
    if (!approximation.empty()) f.values["reason"] = approximation;
    out.push_back(std::move(f));
  }
}

bool Linter::per_device_offsets(const hlo::Computation& c, std::uint32_t instruction, std::size_t operand,
                                const InstructionIndexing& maps) const {
  const hlo::Instruction& instr = c.instructions[instruction];
  const auto operands = c.operands_of(instr);
  bool any = false;
  for (const auto& per_output : maps.output_to_input) {
    if (operand >= per_output.size()) continue;
    for (const IndexingMap& m : per_output[operand]) {
      if (!m.is_defined()) continue;
      for (const indexing::RuntimeSource& source : m.runtime_sources()) {
        if (source.operand < 0 || static_cast<std::size_t>(source.operand) >= operands.size()) return false;
        // The offset is computed from the device's id and constants only.
        bool device = false;
        std::vector<std::uint32_t> stack{operands[static_cast<std::size_t>(source.operand)]};
        std::set<std::uint32_t> seen(stack.begin(), stack.end());
        while (!stack.empty()) {
          const hlo::Instruction& i = c.instructions[stack.back()];
          stack.pop_back();
          if (i.opcode == hlo::Opcode::kPartitionId || i.opcode == hlo::Opcode::kReplicaId) device = true;
          if (i.opcode == hlo::Opcode::kParameter) return false;
          for (std::uint32_t o : c.operands_of(i)) {
            if (seen.insert(o).second) stack.push_back(o);
          }
        }
        if (!device) return false;
        any = true;
      }
    }
  }
  return any;
}

bool Linter::read_in_full_by_users(std::uint32_t computation, std::uint32_t instruction, std::size_t operand) {
  const hlo::Computation& c = m_module.computations[computation];
  // An async computation wraps one op the scheduler overlaps (a slice there
  // copies its part of a buffer the caller splits between several of them);
  // its users are outside, in the caller, behind the async-start.
  for (const hlo::Computation& caller : m_module.computations) {
    for (const hlo::Instruction& i : caller.instructions) {
      if (i.opcode != hlo::Opcode::kAsyncStart) continue;
      for (std::uint32_t callee : caller.callees_of(i)) {
        if (callee == computation) return true;
      }
    }
  }
  const std::uint32_t producer = c.operands_of(c.instructions[instruction])[operand];
  const auto elements = m_module.shape_of(c.instructions[producer]).element_count();
  if (!elements || *elements == 0) return false;
  MapSet all;
  for (std::uint32_t user = 0; user < c.instructions.size(); ++user) {
    const auto ops = c.operands_of(c.instructions[user]);
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k] != producer) continue;
      const InstructionIndexing maps = m_analysis.indexing(computation, user, true, false);
      for (const auto& per_output : maps.output_to_input) {
        if (k >= per_output.size()) continue;
        for (const IndexingMap& m : per_output[k]) {
          if (!m.is_defined() || m.approximate()) return false;
          if (m.runtime_count() == 0 && !m.has_replica_id()) all.push_back(m);
        }
      }
    }
  }
  if (all.empty()) return false;
  const indexing::Count read = indexing::count_union_image(all);
  return read.exact && static_cast<double>(read.value) / static_cast<double>(*elements) >= m_thresholds.min_utilisation;
}

void Linter::count_rules(std::uint32_t computation, std::uint32_t instruction, const InstructionIndexing& logical,
                         const FusedBody* body, const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) {
  if (!m_rules[static_cast<std::size_t>(LintRule::kLowUtilisation)]) return;
  const hlo::Computation& c = m_module.computations[computation];
  std::vector<bool> judged(facts.size());
  for (std::size_t j = 0; j < facts.size(); ++j) {
    const OperandFacts& f = facts[j];
    // Runtime offsets choose the part read at run time: the whole buffer must
    // exist (not a fusion decision), unless the offsets depend only on the
    // device: then each device holds a buffer it reads a part of.
    judged[j] = f.array && f.defined &&
                (!f.runtime || (!f.approximate && per_device_offsets(c, instruction, j, logical))) &&
                f.bytes >= m_thresholds.low_utilisation_min_bytes;
  }
  if (std::none_of(judged.begin(), judged.end(), [](bool b) { return b; })) return;
  const InstructionUtilisation usage =
      utilisation(m_module, c, c.instructions[instruction], judged_maps(logical, judged), body);
  for (const OperandUtilisation& u : usage.operands) {
    const OperandFacts& f = facts[u.operand];
    if (!judged[u.operand] || !u.defined() || u.operand_elements == 0) continue;
    if (u.utilisation() < m_thresholds.min_utilisation && read_in_full_by_users(computation, instruction, u.operand))
      continue;
    // The fused instruction that reads the operand (the slice, say), when one does.
    std::optional<std::uint32_t> reader;
    if (body != nullptr && u.operand < body->parameter_uses.size() && body->parameter_uses[u.operand].size() == 1)
      reader = body->parameter_uses[u.operand][0].user;
    low_utilisation_rule(c, instruction, u, f, body != nullptr ? &m_module.computations[body->callee] : nullptr, reader,
                         out);
  }
}

void Linter::low_utilisation_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                                  const OperandFacts& f, const hlo::Computation* callee,
                                  std::optional<std::uint32_t> reader, std::vector<LintFinding>& out) const {
  const bool bound = !u.distinct_read.exact;
  const double fraction = u.utilisation();
  if (!(fraction < m_thresholds.min_utilisation)) return;
  LintFinding d = finding(LintRule::kLowUtilisation, c, instruction);
  d.operand = u.operand;
  d.operand_name = f.name;
  const std::string by = reader ? fmt::format(" (through {})", fused_name(*callee, *reader)) : std::string();
  const std::string where = u.depends_on_runtime ? ", on each device (the offsets depend only on the device id)" : "";
  const hlo::Instruction& producer = c.instructions[c.operands_of(c.instructions[instruction])[u.operand]];
  const std::string fix =
      u.depends_on_runtime && producer.opcode == hlo::Opcode::kAllReduce
          ? fmt::format("replace %{} and this slice by a reduce-scatter, so each device receives only its part", f.name)
          : fmt::format("fuse the part read into the producer of %{}, or have the producer write only that part",
                        f.name);
  const std::string of =
      u.replicas > 1 ? fmt::format(" (replica, element) pairs of {} replicas", u.replicas) : std::string(" elements");
  d.message = fmt::format("%{} reads {}{} of {}{}: {}{} of {}{}{} (threshold {}); fix: {}",
                          c.instructions[instruction].name, bound ? "at most " : "", percent(fraction),
                          f.describe(u.operand), by, bound ? "at most " : "", u.distinct_read.value,
                          u.operand_elements * u.replicas, of, where, percent(m_thresholds.min_utilisation), fix);
  d.values["utilisation"] = fraction;
  d.values["elements_read"] = u.distinct_read.value;
  d.values["operand_elements"] = u.operand_elements;
  if (u.replicas > 1) d.values["replicas"] = u.replicas;
  if (u.depends_on_runtime) d.values["per_device_offsets"] = true;
  d.values["operand_bytes"] = f.bytes;
  d.values["exact"] = !bound;
  if (reader) name_fused(d, "reader", *callee, *reader);
  d.values["min_utilisation"] = m_thresholds.min_utilisation;
  d.values["min_bytes"] = m_thresholds.low_utilisation_min_bytes;
  out.push_back(std::move(d));
}

void Linter::coalescing_rule(const hlo::Computation& c, std::uint32_t instruction, const InstructionIndexing& logical,
                             const std::vector<OperandFacts>& facts, const FusedBody* fused,
                             std::vector<LintFinding>& out) {
  if (!m_rules[static_cast<std::size_t>(LintRule::kUncoalescedRead)]) return;
  const hlo::Instruction& instr = c.instructions[instruction];
  const auto operands = c.operands_of(instr);
  const std::vector<const hlo::Shape*> outputs = output_shapes(m_module.shape_of(instr));
  // XLA's matmul emitters tile a dot's or convolution's operands themselves.
  if (matmul_emitted(m_module, c, instr)) return;
  PhysicalIndexing& offsets = m_analysis.offsets();
  const AccessModel model = access_model(m_analysis.patterns().target(m_module), m_module, c, instr);
  for (std::size_t j = 0; j < facts.size(); ++j) {
    const OperandFacts& f = facts[j];
    if (!f.array || !f.defined || f.bytes < m_thresholds.uncoalesced_min_bytes) continue;
    const hlo::Shape& operand_shape = m_module.shape_of(c.instructions[operands[j]]);
    const layout::PhysicalLayout* operand_layout = offsets.layout(operand_shape);
    if (operand_layout == nullptr) continue;
    // An operand in on-chip memory (a TPU's VMEM, S(1)) or host memory is not read from device
    // memory: its transfers are not what this rule judges.
    if (cost::memory_kind(operand_layout->memory_space()) != cost::MemoryKind::kDevice) continue;
    // Each map is a load of its own: the worst map of any output, the one
    // with the most transfers per minimum.
    std::optional<Coalescing> worst;
    std::size_t worst_output = 0, worst_map = 0, maps_in_set = 0;
    for (std::size_t k = 0; k < logical.output_to_input.size() && k < outputs.size(); ++k) {
      if (j >= logical.output_to_input[k].size()) continue;
      const layout::PhysicalLayout* out_layout = offsets.layout(*outputs[k]);
      if (out_layout == nullptr) continue;
      const AccessSetup setup = operand_access(model, *out_layout, operand_shape);
      const MapSet& set = logical.output_to_input[k][j];
      for (std::size_t m = 0; m < set.size(); ++m) {
        // An approximate map is a superset of the reads: its pattern is not theirs.
        if (!set[m].is_defined() || set[m].approximate()) continue;
        const MapSet physical = offsets.convert({set[m]}, *outputs[k], operand_shape);
        if (!physical[0].is_defined()) continue;
        // A reduction fused into a loop walks its reduced dimension
        // consecutively in each thread: consecutive iterations, not threads.
        if (model == AccessModel::kGpuLoop && walks_consecutively(physical)) continue;
        const Coalescing& r = m_analysis.patterns().of(physical[0], setup);
        if (r.coalesced() || r.pattern == ReadPattern::kIrregular) continue;
        if (!worst || r.transfers * worst->min_transfers > worst->transfers * r.min_transfers) {
          worst = r;
          worst_output = k;
          worst_map = m;
          maps_in_set = set.size();
        }
      }
    }
    if (!worst) continue;
    LintFinding d = finding(LintRule::kUncoalescedRead, c, instruction);
    d.operand = j;
    d.operand_name = f.name;
    std::string where = outputs.size() > 1 ? fmt::format(" for output {}", worst_output) : std::string();
    if (maps_in_set > 1) where += fmt::format(" through map {} of {}", worst_map + 1, maps_in_set);
    const bool tpu = worst->model == AccessModel::kTpuTiles, cpu = worst->model == AccessModel::kCpuLines;
    const std::string how = tpu   ? "through poorly used tile transfers"
                            : cpu ? "through poorly used cache lines"
                                  : "uncoalesced";
    const std::string unit = tpu ? "tiles" : cpu ? "lines" : "transactions";
    const std::string group = tpu ? "output tile" : cpu ? "16 outputs" : "warp";
    const std::string stride =
        worst->pattern == ReadPattern::kStrided
            ? fmt::format(", consecutive {} {} elements apart", tpu || cpu ? "outputs" : "threads", worst->stride)
            : std::string();
    // The fused instruction whose read is the worst map (else the first reader of the parameter).
    std::string reader;
    if (fused != nullptr && j < fused->parameter_uses.size() && !fused->parameter_uses[j].empty()) {
      const hlo::Computation& callee = m_module.computations[fused->callee];
      const std::vector<FusedUse>& uses = fused->parameter_uses[j];
      const IndexingMap& worst_read = logical.output_to_input[worst_output][j][worst_map];
      const auto it = std::find_if(uses.begin(), uses.end(), [&](const FusedUse& use) {
        return worst_output < use.maps.size() && std::find(use.maps[worst_output].begin(), use.maps[worst_output].end(),
                                                           worst_read) != use.maps[worst_output].end();
      });
      const FusedUse& use = it != uses.end() ? *it : uses.front();
      const std::size_t others = it != uses.end() ? 0 : uses.size() - 1;
      reader = fmt::format(", read by {}{}", fused_name(callee, use.user),
                           others > 0 ? fmt::format(" and {} more", others) : std::string());
      name_fused(d, "reader", callee, use.user);
    }
    d.message = fmt::format(
        "%{} reads {} {}{}{}: {:.1f} {}-byte {} per {} where {:.1f} would do{}, {} of the bytes "
        "fetched used [{}]",
        instr.name, f.describe(j), how, where, reader, worst->transfers, worst->unit_bytes, unit, group,
        worst->min_transfers, stride, percent(worst->used_fraction), model_name(worst->model));
    d.values["pattern"] = std::string(pattern_name(worst->pattern));
    d.values["model"] = std::string(model_name(worst->model));
    if (worst->pattern == ReadPattern::kStrided) d.values["stride"] = worst->stride;
    d.values["transfers"] = worst->transfers;
    d.values["min_transfers"] = worst->min_transfers;
    d.values["unit_bytes"] = worst->unit_bytes;
    d.values["used_fraction"] = worst->used_fraction;
    if (outputs.size() > 1) d.values["output"] = worst_output;
    if (maps_in_set > 1) d.values["map"] = worst_map;
    d.values["operand_bytes"] = f.bytes;
    d.values["min_bytes"] = m_thresholds.uncoalesced_min_bytes;
    out.push_back(std::move(d));
  }
}

}  // namespace hlo_index::analysis
