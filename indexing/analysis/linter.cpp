#include "indexing/analysis/linter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/map_printer.hpp"
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

// Leaves of a tuple shape (the outputs of a tuple-shaped instruction), or the shape itself.
std::vector<const hlo::Shape*> output_shapes(const hlo::Shape& shape) {
  std::vector<const hlo::Shape*> out;
  if (!shape.is_tuple) {
    out.push_back(&shape);
  } else {
    for (const hlo::Shape& e : shape.elements) out.push_back(&e);
  }
  return out;
}

// 12.5%, 0.39%, 0.0031%: three digits at most, two significant ones below 1%.
std::string percent(double fraction) {
  const double p = 100.0 * fraction;
  return p >= 1 || p == 0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.2g}%", p);
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
    bool found = false;
    for (std::size_t k = 0; k < ranges.size() && !found; ++k) {
      const simplify::Interval b = d.bounds({simplify::VarKind::kRange, static_cast<std::uint32_t>(k)});
      if (b.hi <= b.lo) continue;
      std::vector<std::int64_t> next = ranges;
      ++next[k];
      const std::int64_t a = simplify::evaluate(m.results()[0], {dims, ranges, {}});
      const std::int64_t c = simplify::evaluate(m.results()[0], {dims, next, {}});
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
      counted.output_to_input[k][j] = row[j];
    }
  }
  return counted;
}

}  // namespace

bool linted_instruction(const hlo::Instruction& instruction, bool all_instructions) {
  return all_instructions || instruction.opcode == hlo::Opcode::kFusion;
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
    : m_module(module), m_rules(rules), m_thresholds(thresholds), m_analysis(module, {}) {}

LintFinding Linter::finding(LintRule rule, const hlo::Computation& c, std::uint32_t instruction) const {
  LintFinding f;
  f.rule = rule;
  f.file = m_module.source ? m_module.source->name() : std::string();
  f.module = std::string(m_module.name);
  f.computation = std::string(c.name);
  f.instruction = std::string(c.instructions[instruction].name);
  if (const hlo::Instruction* at = located(m_module, c, instruction)) {
    const parser::LineColumn lc = m_module.source->line_column(m_module.source->offset_of(at->name.data()));
    f.line = lc.line;
    f.column = lc.column;
  }
  return f;
}

std::vector<LintFinding> Linter::lint(std::uint32_t computation, std::uint32_t instruction) {
  const hlo::Computation& c = m_module.computations[computation];
  const InstructionIndexing logical = m_analysis.indexing(computation, instruction, true, false);
  std::vector<LintFinding> out;
  whole_instruction_rules(c, instruction, logical, out);
  const std::vector<OperandFacts> facts = operand_facts(c, c.instructions[instruction], logical);
  duplicated_read_rule(c, instruction, facts, out);
  count_rules(c, instruction, logical, facts, out);
  coalescing_rule(c, instruction, logical, facts, out);
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
    std::vector<const IndexingMap*>& distinct = f.maps;
    for (const auto& per_output : logical.output_to_input) {
      if (j >= per_output.size()) continue;
      for (const IndexingMap& m : per_output[j]) {
        f.defined = f.defined && !m.is_undefined();
        f.approximate = f.approximate || m.approximate();
        f.runtime = f.runtime || (m.is_defined() && m.runtime_count() > 0);
        if (m.is_known_empty()) continue;
        if (std::none_of(distinct.begin(), distinct.end(), [&](const IndexingMap* d) { return *d == m; }))
          distinct.push_back(&m);
      }
    }
  }
  return facts;
}

void Linter::duplicated_read_rule(const hlo::Computation& c, std::uint32_t instruction,
                                  const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const {
  if (!m_rules[static_cast<std::size_t>(LintRule::kDuplicatedRead)]) return;
  for (std::size_t j = 0; j < facts.size(); ++j) {
    const OperandFacts& f = facts[j];
    if (!f.array || !f.defined || f.bytes < m_thresholds.duplicated_read_min_bytes ||
        f.maps.size() < m_thresholds.duplicated_read_min_maps) {
      continue;
    }
    LintFinding d = finding(LintRule::kDuplicatedRead, c, instruction);
    d.operand = j;
    d.operand_name = f.name;
    d.message = fmt::format("%{} reads {} through {} distinct maps", c.instructions[instruction].name, f.describe(j),
                            f.maps.size());
    d.values["maps"] = f.maps.size();
    json texts = json::array();
    for (const IndexingMap* m : f.maps) texts.push_back(indexing::print_map(*m));
    d.values["map_texts"] = std::move(texts);
    d.values["operand_bytes"] = f.bytes;
    d.values["min_maps"] = m_thresholds.duplicated_read_min_maps;
    d.values["min_bytes"] = m_thresholds.duplicated_read_min_bytes;
    out.push_back(std::move(d));
  }
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
  std::string reason;
  for (const auto& per_output : logical.output_to_input) {
    for (std::size_t j = 0; j < per_output.size(); ++j) {
      for (const IndexingMap& m : per_output[j]) {
        if (m.is_undefined()) {
          if (undefined_operands.empty() || j < *undefined_operands.begin())
            reason = m.undefined_reason().empty() ? "unknown" : m.undefined_reason();
          undefined_operands.insert(j);
        }
        if (m.approximate()) approximate_operands.insert(j);
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
    if (approximate_operands.size() > 1) {
      f.message += fmt::format(" ({} operands with approximate maps)", approximate_operands.size());
    }
    f.values["operands"] = operand_list(approximate_operands);
    out.push_back(std::move(f));
  }
}

void Linter::count_rules(const hlo::Computation& c, std::uint32_t instruction, const InstructionIndexing& logical,
                         const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const {
  const bool low = m_rules[static_cast<std::size_t>(LintRule::kLowUtilisation)];
  const bool high = m_rules[static_cast<std::size_t>(LintRule::kHighMultiplicity)];
  std::vector<bool> judged(facts.size());
  for (std::size_t j = 0; j < facts.size(); ++j) {
    const OperandFacts& f = facts[j];
    judged[j] = f.array && f.defined &&
                ((low && f.bytes >= m_thresholds.low_utilisation_min_bytes) ||
                 (high && f.bytes >= m_thresholds.high_multiplicity_min_bytes));
  }
  if (std::none_of(judged.begin(), judged.end(), [](bool b) { return b; })) return;
  const InstructionUtilisation usage =
      utilisation(m_module, c, c.instructions[instruction], judged_maps(logical, judged));
  for (const OperandUtilisation& u : usage.operands) {
    const OperandFacts& f = facts[u.operand];
    if (!f.array || !f.defined || !u.defined() || u.operand_elements == 0) continue;
    if (low) low_utilisation_rule(c, instruction, u, f, out);
    if (high) high_multiplicity_rule(c, instruction, u, f, out);
  }
}

void Linter::low_utilisation_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                                  const OperandFacts& f, std::vector<LintFinding>& out) const {
  // With runtime offsets the counts hold for one value of the offsets; the
  // reads (one per point of the domain, whatever the offsets) bound the
  // elements read for every value, unless the map is approximate.
  if (f.bytes < m_thresholds.low_utilisation_min_bytes || (u.depends_on_runtime && f.approximate)) return;
  const bool bound = u.depends_on_runtime || !u.distinct_read.exact;
  const std::int64_t read =
      u.depends_on_runtime ? std::min(u.total_reads.value, u.operand_elements) : u.distinct_read.value;
  const double fraction = static_cast<double>(read) / static_cast<double>(u.operand_elements);
  if (!(fraction < m_thresholds.min_utilisation)) return;
  LintFinding d = finding(LintRule::kLowUtilisation, c, instruction);
  d.operand = u.operand;
  d.operand_name = f.name;
  d.message = fmt::format("%{} reads {}{} of {}: {}{} of {} elements{}", c.instructions[instruction].name,
                          bound ? "at most " : "", percent(fraction), f.describe(u.operand), bound ? "at most " : "",
                          read, u.operand_elements, u.depends_on_runtime ? ", whatever the runtime offsets" : "");
  d.values["utilisation"] = fraction;
  d.values["elements_read"] = read;
  d.values["operand_elements"] = u.operand_elements;
  d.values["operand_bytes"] = f.bytes;
  d.values["exact"] = !bound;
  if (u.depends_on_runtime) d.values["depends_on_runtime"] = true;
  d.values["min_utilisation"] = m_thresholds.min_utilisation;
  d.values["min_bytes"] = m_thresholds.low_utilisation_min_bytes;
  out.push_back(std::move(d));
}

void Linter::high_multiplicity_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                                    const OperandFacts& f, std::vector<LintFinding>& out) const {
  // Multiplicity needs exact counts of one execution: not with runtime offsets.
  const bool exact = u.distinct_read.exact && u.total_reads.exact && !f.approximate && !u.depends_on_runtime;
  if (!exact || f.bytes < m_thresholds.high_multiplicity_min_bytes ||
      !(u.multiplicity() > m_thresholds.max_multiplicity)) {
    return;
  }
  LintFinding d = finding(LintRule::kHighMultiplicity, c, instruction);
  d.operand = u.operand;
  d.operand_name = f.name;
  d.message = fmt::format("%{} reads each element of {} {:.1f} times on average: {} reads of {} elements",
                          c.instructions[instruction].name, f.describe(u.operand), u.multiplicity(),
                          u.total_reads.value, u.distinct_read.value);
  d.values["multiplicity"] = u.multiplicity();
  d.values["total_reads"] = u.total_reads.value;
  d.values["distinct_read"] = u.distinct_read.value;
  d.values["operand_bytes"] = f.bytes;
  d.values["max_multiplicity"] = m_thresholds.max_multiplicity;
  d.values["min_bytes"] = m_thresholds.high_multiplicity_min_bytes;
  out.push_back(std::move(d));
}

void Linter::coalescing_rule(const hlo::Computation& c, std::uint32_t instruction, const InstructionIndexing& logical,
                             const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) {
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
    if (offsets.layout(operand_shape) == nullptr) continue;
    // Each map is a load of its own: the worst map of any output, the one
    // with the most transfers per minimum.
    std::optional<Coalescing> worst;
    std::size_t worst_output = 0, worst_map = 0, maps_in_set = 0;
    for (std::size_t k = 0; k < logical.output_to_input.size() && k < outputs.size(); ++k) {
      if (j >= logical.output_to_input[k].size() || outputs[k]->is_tuple) continue;
      const layout::PhysicalLayout* out_layout = offsets.layout(*outputs[k]);
      if (out_layout == nullptr) continue;
      const AccessSetup setup = operand_access(model, *out_layout, operand_shape);
      const MapSet& set = logical.output_to_input[k][j];
      for (std::size_t m = 0; m < set.size(); ++m) {
        if (!set[m].is_defined()) continue;
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
    d.message = fmt::format(
        "%{} reads {} {}{}: {:.1f} {}-byte {} per {} where {:.1f} would do{}, {} of the bytes "
        "fetched used [{}]",
        instr.name, f.describe(j), how, where, worst->transfers, worst->unit_bytes, unit, group, worst->min_transfers,
        stride, percent(worst->used_fraction), model_name(worst->model));
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
