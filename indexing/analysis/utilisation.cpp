#include "indexing/analysis/utilisation.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_set>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/op_maps.hpp"
#include "indexing/ops/tuple_leaves.hpp"

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

}  // namespace

IndexingMap pinned_runtime(const IndexingMap& map) {
  IndexingMap out = map;
  for (std::uint32_t i = 0; i < out.runtime_count(); ++i) {
    simplify::Var v{simplify::VarKind::kRuntime, i};
    out.domain().set_bounds(v, simplify::Interval::point(out.domain().bounds(v).lo));
  }
  return out;
}

namespace {

// Leaves of a tuple shape, in order (the outputs of a tuple-shaped op, tuple_leaves.hpp).
void leaves(const hlo::Shape& shape, std::vector<const hlo::Shape*>& out) { out = indexing::leaf_shapes(shape); }

}  // namespace

// From the full-width counts: a saturated int64 would understate a ratio past 2^63.
double OperandUtilisation::utilisation() const {
  return operand_elements == 0 ? 0.0
                               : static_cast<double>(distinct_read.wide) /
                                     (static_cast<double>(operand_elements) * static_cast<double>(replicas));
}

double OperandUtilisation::multiplicity() const {
  return distinct_read.wide == 0 ? 0.0
                                 : static_cast<double>(total_reads.wide) / static_cast<double>(distinct_read.wide);
}

namespace {

// A tuple operand's figure: the sum of its leaves' (each at its own element size).
std::int64_t sum_over_leaves(const std::vector<OperandUtilisation>& leaves,
                             std::int64_t (OperandUtilisation::*figure)() const) {
  bool exact = true;
  std::int64_t total = 0;
  for (const OperandUtilisation& leaf : leaves) total = saturating_add(total, (leaf.*figure)(), exact);
  return total;
}

}  // namespace

std::int64_t OperandUtilisation::bytes_read() const {
  return tuple ? sum_over_leaves(leaves, &OperandUtilisation::bytes_read)
               : packed_bytes(distinct_read.value, element_bits);
}

simplify::Wide OperandUtilisation::bytes_read_wide() const {
  if (!tuple) return simplify::packed_bytes_wide(distinct_read.wide, static_cast<simplify::Wide>(element_bits));
  simplify::Wide total = 0;
  for (const OperandUtilisation& leaf : leaves) total = simplify::wide_add(total, leaf.bytes_read_wide());
  return total;
}

std::int64_t OperandUtilisation::read_traffic_bytes() const {
  return tuple ? sum_over_leaves(leaves, &OperandUtilisation::read_traffic_bytes)
               : packed_bytes(total_reads.value, element_bits);
}

namespace {

// Elements and bytes written by all outputs together.
void count_outputs(const hlo::Shape& shape, InstructionUtilisation& result) {
  std::vector<const hlo::Shape*> outputs;
  leaves(shape, outputs);
  bool exact = true;
  for (const hlo::Shape* out : outputs) {
    const std::int64_t n = out->element_count().value_or(0);
    result.output_elements = saturating_add(result.output_elements, n, exact);
    result.bytes_written = saturating_add(result.bytes_written, packed_bytes(n, array_bits(*out)), exact);
    result.bytes_written_wide = simplify::wide_add(
        result.bytes_written_wide,
        simplify::packed_bytes_wide(static_cast<simplify::Wide>(n), static_cast<simplify::Wide>(array_bits(*out))));
  }
}

// Every output's maps of operand `j`, known-empty ones left out; sets the
// operand's map count, runtime dependence, and undefined reason.
std::vector<IndexingMap> operand_reads(const InstructionIndexing& indexing, std::size_t j, OperandUtilisation& u) {
  std::vector<IndexingMap> reads;
  // The same map for two outputs is one way of reading.
  std::unordered_set<const IndexingMap*, indexing::PointedMapHash, indexing::PointedMapEqual> distinct;
  for (const auto& per_output : indexing.output_to_input) {
    if (j >= per_output.size()) continue;
    for (const IndexingMap& m : per_output[j]) {
      const bool seen = !distinct.insert(&m).second;
      if (m.is_undefined()) {
        u.undefined_reason = m.undefined_reason().empty() ? "no indexing maps" : m.undefined_reason();
        break;
      }
      if (m.is_known_empty() || seen) continue;  // several outputs sharing a map read once
      u.depends_on_runtime = u.depends_on_runtime || m.runtime_count() > 0;
      reads.push_back(m);
    }
    if (!u.defined()) break;
  }
  u.maps = distinct.size();
  return reads;
}

// The replicas an all-gathered operand is read from (1 without replica ids).
std::int64_t replicas_read(const std::vector<IndexingMap>& reads) {
  std::int64_t replicas = 1;
  for (const IndexingMap& m : reads) {
    if (m.is_defined() && m.has_replica_id())
      replicas = std::max(replicas, indexing::count_image(m.replica_id_map()).value);
  }
  return replicas;
}

void count_reads(const std::vector<IndexingMap>& reads, const MapSet* shared, OperandUtilisation& u) {
  // Over every value of the runtime offsets: the elements some execution may read.
  const MapSet elements = with_replica_results(reads);
  u.distinct_read = indexing::count_union_image(elements);
  u.replicas = replicas_read(reads);
  u.total_reads = wide_reads_of_one_execution(shared != nullptr ? *shared : reads);
  // One execution reads no more distinct elements than it makes reads.
  if (u.depends_on_runtime)
    u.distinct_read = indexing::Count::of(std::min(u.distinct_read.wide, u.total_reads.wide), false);
}

// The distinct maps into a tuple operand of a call, conditional, while or
// async-start (operand_reads), split by the leaf (tuple_leaves.hpp) each names
// in its first result. None when one names no leaf.
std::optional<std::vector<std::vector<IndexingMap>>> reads_by_leaf(const std::vector<IndexingMap>& reads,
                                                                   std::size_t leaves) {
  std::vector<std::vector<IndexingMap>> by_leaf(leaves);
  for (const IndexingMap& m : reads) {
    if (m.results().empty() || !m.results().front().is_constant()) return std::nullopt;
    const std::int64_t leaf = m.results().front().constant_value();
    if (leaf < 0 || static_cast<std::size_t>(leaf) >= leaves) return std::nullopt;
    IndexingMap element = m;
    element.results().erase(element.results().begin());
    by_leaf[static_cast<std::size_t>(leaf)].push_back(std::move(element));
  }
  return by_leaf;
}

// A tuple operand, counted leaf by leaf; its figures are the sums.
void count_tuple_reads(const hlo::Shape& shape, const std::vector<IndexingMap>& reads, OperandUtilisation& u) {
  const std::vector<const hlo::Shape*> shapes = indexing::leaf_shapes(shape);
  const auto by_leaf = reads_by_leaf(reads, shapes.size());
  if (!by_leaf) {
    u.undefined_reason = "a map into the tuple operand names no leaf of it";
    return;
  }
  u.tuple = true;
  u.element_bits = 0;
  simplify::Wide distinct = 0, total = 0;
  bool distinct_exact = true, total_exact = true;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const std::vector<IndexingMap>& leaf_reads = (*by_leaf)[k];
    OperandUtilisation leaf;
    leaf.operand = u.operand;
    leaf.shape_index = indexing::leaf_path(shape, k);
    leaf.operand_elements = shapes[k]->element_count().value_or(0);
    leaf.element_bits = array_bits(*shapes[k]);
    leaf.maps = leaf_reads.size();
    leaf.depends_on_runtime =
        std::any_of(leaf_reads.begin(), leaf_reads.end(), [](const IndexingMap& m) { return m.runtime_count() > 0; });
    count_reads(leaf_reads, nullptr, leaf);
    // Over (replica, element) pairs where a leaf is read through an all-gather.
    bool exact = true;
    std::int64_t elements = 0;
    if (__builtin_mul_overflow(leaf.operand_elements, leaf.replicas, &elements))
      elements = std::numeric_limits<std::int64_t>::max();
    u.operand_elements = saturating_add(u.operand_elements, elements, exact);
    distinct = simplify::wide_add(distinct, leaf.distinct_read.wide);
    distinct_exact = distinct_exact && leaf.distinct_read.wide_exact;
    total = simplify::wide_add(total, leaf.total_reads.wide);
    total_exact = total_exact && leaf.total_reads.wide_exact;
    u.leaves.push_back(std::move(leaf));
  }
  u.distinct_read = indexing::Count::of(distinct, distinct_exact);
  u.total_reads = indexing::Count::of(total, total_exact);
}

}  // namespace

MapSet with_replica_results(const MapSet& maps) {
  std::size_t width = 0;
  for (const IndexingMap& m : maps) {
    if (m.is_defined()) width = std::max(width, m.replica_id().size());
  }
  if (width == 0) return maps;
  MapSet out;
  out.reserve(maps.size());
  for (const IndexingMap& m : maps) {
    if (!m.is_defined()) {
      out.push_back(m);
      continue;
    }
    const std::size_t own = m.replica_id().size();
    IndexingMap r = indexing::replica_id_as_results(m);
    for (std::size_t i = own; i < width; ++i) r.results().push_back(simplify::Expr::constant(-1));
    out.push_back(std::move(r));
  }
  return out;
}

indexing::Count wide_reads_of_one_execution(const MapSet& maps) {
  simplify::Wide total = 0;
  bool exact = true;
  for (const IndexingMap& m : with_replica_results(maps)) {
    if (!m.is_defined()) continue;
    indexing::Count c = indexing::count_relation(pinned_runtime(m));
    total = simplify::wide_add(total, c.wide);
    exact = exact && c.wide_exact;
  }
  return indexing::Count::of(total, exact);
}

std::int64_t reads_of_one_execution(const MapSet& maps, bool& exact) {
  const indexing::Count c = wide_reads_of_one_execution(maps);
  exact = exact && c.exact;
  return c.value;
}

InstructionUtilisation utilisation(const hlo::Module& module, const hlo::Computation& computation,
                                   const hlo::Instruction& instruction, const InstructionIndexing& indexing,
                                   const FusedBody* body) {
  InstructionUtilisation result;
  count_outputs(module.shape_of(instruction), result);
  const auto operands = computation.operands_of(instruction);
  for (std::size_t j = 0; j < operands.size(); ++j) {
    OperandUtilisation u;
    u.operand = j;
    const hlo::Shape& shape = module.shape_of(computation.instructions[operands[j]]);
    if (shape.is_tuple) {
      // Ops that pass a leaf on (get-tuple-element, opt-barrier, ...) read no elements of it.
      if (!indexing::reads_tuple_leaves_by_result(instruction.opcode)) {
        u.undefined_reason = "a tuple operand is not one array";
      } else {
        const std::vector<IndexingMap> reads = operand_reads(indexing, j, u);
        if (u.defined()) count_tuple_reads(shape, reads, u);
      }
      result.operands.push_back(std::move(u));
      continue;
    }
    u.operand_elements = shape.element_count().value_or(0);
    u.element_bits = array_bits(shape);
    const std::vector<IndexingMap> reads = operand_reads(indexing, j, u);
    MapSet shared;
    const bool by_body = body != nullptr && body->defined() && body->outputs > 1;
    if (by_body) shared = shared_loop_reads(*body, j);
    if (u.defined()) count_reads(reads, by_body ? &shared : nullptr, u);
    result.operands.push_back(std::move(u));
  }
  return result;
}

}  // namespace hlo_index::analysis
