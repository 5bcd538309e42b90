#include "indexing/analysis/utilisation.hpp"

#include <algorithm>
#include <limits>

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::InstructionIndexing;
using indexing::MapSet;

namespace {

std::int64_t saturating_add(std::int64_t a, std::int64_t b, bool& exact) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    exact = false;
    return std::numeric_limits<std::int64_t>::max();
  }
  return r;
}

std::int64_t packed_bytes(std::int64_t elements, std::int64_t bits) {
  std::int64_t total = 0;
  if (__builtin_mul_overflow(elements, bits, &total)) return std::numeric_limits<std::int64_t>::max();
  return total / 8 + (total % 8 != 0 ? 1 : 0);
}

std::int64_t array_bits(const hlo::Shape& shape) {
  return shape.layout && shape.layout->element_size_bits != 0 ? shape.layout->element_size_bits
                                                              : hlo::element_type_bits(shape.type);
}

// Runtime offsets pinned to the low end of their ranges: the counts of one
// execution (for dynamic slices every offset reads as many elements).
IndexingMap pinned(const IndexingMap& map) {
  IndexingMap out = map;
  for (std::uint32_t i = 0; i < out.runtime_count(); ++i) {
    simplify::Var v{simplify::VarKind::kRuntime, i};
    out.domain().set_bounds(v, simplify::Interval::point(out.domain().bounds(v).lo));
  }
  return out;
}

// Leaves of a tuple shape, in order (the outputs of a tuple-shaped op).
void leaves(const hlo::Shape& shape, std::vector<const hlo::Shape*>& out) {
  if (!shape.is_tuple) {
    out.push_back(&shape);
    return;
  }
  for (const hlo::Shape& e : shape.elements) out.push_back(&e);
}

}  // namespace

double OperandUtilisation::utilisation() const {
  return operand_elements == 0 ? 0.0 : static_cast<double>(distinct_read.value) / static_cast<double>(operand_elements);
}

double OperandUtilisation::multiplicity() const {
  return distinct_read.value == 0 ? 0.0
                                  : static_cast<double>(total_reads.value) / static_cast<double>(distinct_read.value);
}

std::int64_t OperandUtilisation::bytes_read() const { return packed_bytes(distinct_read.value, element_bits); }

namespace {

// Elements and bytes written by all outputs together.
void count_outputs(const hlo::Shape& shape, InstructionUtilisation& result) {
  std::vector<const hlo::Shape*> outputs;
  leaves(shape, outputs);
  bool exact = true;
  for (const hlo::Shape* out : outputs) {
    if (out->is_tuple) {
      result.output_defined = false;
      continue;
    }
    const std::int64_t n = out->element_count().value_or(0);
    result.output_elements = saturating_add(result.output_elements, n, exact);
    result.bytes_written = saturating_add(result.bytes_written, packed_bytes(n, array_bits(*out)), exact);
  }
}

// Every output's maps of operand `j`, known-empty ones left out; sets the
// operand's map count, runtime dependence, and undefined reason.
std::vector<IndexingMap> operand_reads(const InstructionIndexing& indexing, std::size_t j, OperandUtilisation& u) {
  std::vector<IndexingMap> reads;
  std::vector<const IndexingMap*> distinct;  // the same map for two outputs is one way of reading
  for (const auto& per_output : indexing.output_to_input) {
    if (j >= per_output.size()) continue;
    for (const IndexingMap& m : per_output[j]) {
      if (std::none_of(distinct.begin(), distinct.end(), [&](const IndexingMap* d) { return *d == m; }))
        distinct.push_back(&m);
      if (m.is_undefined()) {
        u.undefined_reason = m.undefined_reason().empty() ? "no indexing maps" : m.undefined_reason();
        break;
      }
      if (m.is_known_empty()) continue;
      u.depends_on_runtime = u.depends_on_runtime || m.runtime_count() > 0;
      reads.push_back(m);
    }
    if (!u.defined()) break;
  }
  u.maps = distinct.size();
  return reads;
}

void count_reads(const std::vector<IndexingMap>& reads, OperandUtilisation& u) {
  // Over every value of the runtime offsets: the elements some execution may read.
  u.distinct_read = indexing::count_union_image(reads);
  u.total_reads = {0, true};
  for (const IndexingMap& m : reads) {
    indexing::Count c = indexing::count_relation(pinned(m));
    u.total_reads.value = saturating_add(u.total_reads.value, c.value, u.total_reads.exact);
    u.total_reads.exact = u.total_reads.exact && c.exact;
  }
  // One execution reads no more distinct elements than it makes reads.
  if (u.depends_on_runtime) {
    u.distinct_read.value = std::min(u.distinct_read.value, u.total_reads.value);
    u.distinct_read.exact = false;
  }
}

}  // namespace

InstructionUtilisation utilisation(const hlo::Module& module, const hlo::Computation& computation,
                                   const hlo::Instruction& instruction, const InstructionIndexing& indexing) {
  InstructionUtilisation result;
  count_outputs(module.shape_of(instruction), result);
  const auto operands = computation.operands_of(instruction);
  for (std::size_t j = 0; j < operands.size(); ++j) {
    OperandUtilisation u;
    u.operand = j;
    const hlo::Shape& shape = module.shape_of(computation.instructions[operands[j]]);
    if (shape.is_tuple) {
      u.undefined_reason = "a tuple operand is not one array";
      result.operands.push_back(std::move(u));
      continue;
    }
    u.operand_elements = shape.element_count().value_or(0);
    u.element_bits = array_bits(shape);
    const std::vector<IndexingMap> reads = operand_reads(indexing, j, u);
    if (u.defined()) count_reads(reads, u);
    result.operands.push_back(std::move(u));
  }
  return result;
}

}  // namespace hlo_index::analysis
