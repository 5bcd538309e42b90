#include "indexing/verdicts/linter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/analysis/utilisation.hpp"
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
  // The rules about fusion decisions look inside the fused body.
  std::optional<FusedBody> body;
  const bool undefined = std::any_of(facts.begin(), facts.end(), [](const OperandFacts& f) { return !f.defined; });
  if (c.instructions[instruction].opcode == hlo::Opcode::kFusion && !undefined)
    body = fused_body(m_module, m_analysis.maps(), computation, instruction);
  const FusedBody* fused = body && body->defined() ? &*body : nullptr;
  if (fused != nullptr) {
    duplicated_read_rule(c, instruction, *fused, facts, out);
    recomputation_rule(c, instruction, *fused, facts, out);
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

namespace {

// Elements of output `element` (a leaf, tuple_leaves.hpp) of a fused instruction.
std::int64_t result_elements(const hlo::Shape& shape, std::size_t element) {
  const hlo::Shape* leaf = indexing::find_leaf_shape(shape, element);
  return leaf != nullptr ? leaf->element_count().value_or(0) : 0;
}

// The parameters a fused instruction depends on, by number.
std::set<std::size_t> parameters_below(const hlo::Computation& body, std::uint32_t index) {
  std::set<std::size_t> out;
  std::vector<std::uint32_t> stack{index};
  std::set<std::uint32_t> seen{index};
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    const hlo::Instruction& instr = body.instructions[i];
    if (instr.opcode == hlo::Opcode::kParameter) out.insert(static_cast<std::size_t>(instr.parameter_number));
    for (std::uint32_t o : body.operands_of(instr)) {
      if (seen.insert(o).second) stack.push_back(o);
    }
  }
  return out;
}

// Whether an instruction's maps to an operand read some element more than once in one
// execution (a reduction, a broadcast; not a bitcast that adds a unit dimension). Maps
// with runtime offsets count as re-reading: the answer must not drop a finding on a guess.
bool re_reads(const MapSet& set) {
  if (std::any_of(set.begin(), set.end(), [](const IndexingMap& m) { return !m.is_defined() || m.runtime_count(); }))
    return true;
  bool exact = true;
  const std::int64_t reads = reads_of_one_execution(set, exact);
  const indexing::Count distinct = indexing::count_union_image(set);
  return !exact || !distinct.exact || reads > distinct.value;
}

// Whether every instruction of `body` that re-reads `producer`, or a value computed from it,
// is a dot or a convolution. Matmul emitters (Triton or cuBLAS tiles on GPU, the MXU on TPU)
// stage their operands in tiles: a fused producer is evaluated once per tile, not once per
// element of the matmul's result, so counting it per element would report a recomputation
// that does not happen.
bool only_matmuls_re_read(indexing::IndexingAnalysis& maps, std::uint32_t callee, const hlo::Computation& body,
                          std::uint32_t producer) {
  std::vector<bool> from_producer(body.instructions.size(), false);
  from_producer[producer] = true;
  bool any = false, only_matmuls = true;
  for (bool grew = true; grew;) {  // body order need not be topological
    grew = false;
    for (std::uint32_t u = 0; u < body.instructions.size(); ++u) {
      if (from_producer[u]) continue;
      const auto ops = body.operands_of(body.instructions[u]);
      if (std::none_of(ops.begin(), ops.end(), [&](std::uint32_t o) { return from_producer[o]; })) continue;
      from_producer[u] = grew = true;
      const std::vector<MapSet> reads = maps.output_to_input(callee, u, 0);
      for (std::size_t k = 0; k < ops.size() && k < reads.size(); ++k) {
        if (!from_producer[ops[k]] || !re_reads(reads[k])) continue;
        any = true;
        const hlo::Opcode op = body.instructions[u].opcode;
        if (op != hlo::Opcode::kDot && op != hlo::Opcode::kConvolution) only_matmuls = false;
      }
    }
  }
  return any && only_matmuls;
}

}  // namespace

void Linter::recomputation_rule(const hlo::Computation& c, std::uint32_t instruction, const FusedBody& body,
                                const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) {
  if (!m_rules[static_cast<std::size_t>(LintRule::kHighMultiplicity)]) return;
  const hlo::Computation& callee = m_module.computations[body.callee];
  indexing::IndexingAnalysis& maps = m_analysis.maps();
  std::set<std::pair<std::uint32_t, std::size_t>> results;
  for (const auto& per_output : body.to_instruction) {
    for (const auto& [key, set] : per_output) results.insert(key);
  }
  for (const auto& [producer, element] : results) {
    const hlo::Instruction& p = callee.instructions[producer];
    using hlo::Opcode;
    if (p.opcode == Opcode::kParameter || p.opcode == Opcode::kTuple || p.opcode == Opcode::kGetTupleElement ||
        p.opcode == Opcode::kConstant || producer == callee.root)
      continue;
    const std::int64_t elements = result_elements(m_module.shape_of(p), element);
    if (elements == 0) continue;
    // Nontrivial cost: some operand read more than once per result element through a reduction.
    bool costly = false;
    for (const MapSet& set : maps.output_to_input(body.callee, producer, element)) {
      const bool reduces = std::any_of(set.begin(), set.end(), [](const IndexingMap& m) {
        return m.is_defined() && m.range_count() > 0 && m.runtime_count() == 0;
      });
      bool exact = true;
      if (reduces && reads_of_one_execution(set, exact) > elements) costly = true;
    }
    if (!costly || only_matmuls_re_read(maps, body.callee, callee, producer)) continue;
    // Evaluations per element of its result, the loop shared by the outputs.
    const Evaluations evaluated = fused_evaluations(body, producer, element);
    const std::int64_t evaluations = evaluated.count;
    if (evaluated.maps.empty()) continue;
    const indexing::Count distinct = indexing::count_union_image(evaluated.maps);
    if (!evaluated.exact || !distinct.exact || distinct.value == 0) continue;
    const double per_element = static_cast<double>(evaluations) / static_cast<double>(distinct.value);
    if (!(per_element > m_thresholds.max_multiplicity)) continue;
    // The operand this costs most: the largest multiplication of reads among those the producer reads.
    std::optional<std::size_t> operand;
    double operand_per_element = 0;
    std::int64_t operand_reads = 0, operand_read = 0;
    for (std::size_t j : parameters_below(callee, producer)) {
      if (j >= facts.size() || !facts[j].array || !facts[j].defined || facts[j].approximate ||
          facts[j].bytes < m_thresholds.high_multiplicity_min_bytes)
        continue;
      const MapSet reads = shared_loop_reads(body, j);
      bool reads_exact = true;
      const std::int64_t total = reads_of_one_execution(reads, reads_exact);
      const indexing::Count read = indexing::count_union_image(with_replica_results(reads));
      if (!reads_exact || read.value == 0) continue;
      const double r = static_cast<double>(total) / static_cast<double>(read.value);
      if (!operand || r > operand_per_element) {
        operand = j;
        operand_per_element = r;
        operand_reads = total;
        operand_read = read.value;
      }
    }
    if (!operand) continue;
    // The consumer that re-reads it: the user whose map to it has a range variable.
    std::optional<std::uint32_t> consumer;
    for (std::uint32_t u = 0; u < callee.instructions.size() && !consumer; ++u) {
      const auto ops = callee.operands_of(callee.instructions[u]);
      for (std::size_t k = 0; k < ops.size() && !consumer; ++k) {
        if (ops[k] != producer) continue;
        const std::vector<MapSet> user_maps = maps.output_to_input(body.callee, u, 0);
        if (k < user_maps.size() && std::any_of(user_maps[k].begin(), user_maps[k].end(), [](const IndexingMap& m) {
              return m.is_defined() && (m.range_count() > 0 || m.dim_count() > m.results().size());
            }))
          consumer = u;
      }
    }
    const OperandFacts& f = facts[*operand];
    LintFinding d = finding(LintRule::kHighMultiplicity, c, instruction);
    d.operand = *operand;
    d.operand_name = f.name;
    const std::string by = consumer ? fmt::format(" because {} re-reads it", fused_name(callee, *consumer)) : "";
    d.message = fmt::format(
        "%{} evaluates {} {:.1f} times per element of its result (threshold {}){}, so it reads {} {:.1f} "
        "times per element; fix: compute %{} in a fusion of its own ({} result) and read it from memory",
        c.instructions[instruction].name, fused_name(callee, producer), per_element, m_thresholds.max_multiplicity, by,
        f.describe(*operand), operand_per_element, p.name,
        human_bytes(packed_bytes(elements, array_bits(indexing::leaf_shape(m_module.shape_of(p), element)))));
    d.values["multiplicity"] = per_element;
    d.values["evaluations"] = evaluations;
    d.values["producer_elements"] = distinct.value;
    name_fused(d, "producer", callee, producer);
    if (consumer) name_fused(d, "consumer", callee, *consumer);
    d.values["operand_reads"] = operand_reads;
    d.values["operand_multiplicity"] = operand_per_element;
    d.values["total_reads"] = operand_reads;  // the operand's, as before the rule judged producers
    d.values["distinct_read"] = operand_read;
    d.values["operand_bytes"] = f.bytes;
    d.values["max_multiplicity"] = m_thresholds.max_multiplicity;
    d.values["min_bytes"] = m_thresholds.high_multiplicity_min_bytes;
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
  std::string reason, approximation;
  for (const auto& per_output : logical.output_to_input) {
    for (std::size_t j = 0; j < per_output.size(); ++j) {
      for (const IndexingMap& m : per_output[j]) {
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
    if (offsets.layout(operand_shape) == nullptr) continue;
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
