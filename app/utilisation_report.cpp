#include "app/utilisation_report.hpp"

#include <fmt/format.h>

#include <limits>

#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::app {

namespace {

std::string count_text(const indexing::Count& c) {
  return c.exact ? std::to_string(c.value) : fmt::format("<= {}", c.value);
}

std::int64_t add_saturating(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

}  // namespace

std::string utilisation_text(const analysis::OperandUtilisation& u) {
  if (!u.defined()) return "utilisation: unknown (" + u.undefined_reason + ")";
  // Through an all-gather the elements are (replica, element) pairs over the replicas read.
  const std::string elements = u.replicas > 1
                                   ? fmt::format("{} ({} replicas x {}) (replica, element) pairs",
                                                 u.operand_elements * u.replicas, u.replicas, u.operand_elements)
                                   : fmt::format("{} elements", u.operand_elements);
  std::string text =
      fmt::format("utilisation: {} of {} read ({:.3f}), {} reads ({:.2f} per element read), {} bytes, {} map{}",
                  count_text(u.distinct_read), elements, u.utilisation(), count_text(u.total_reads), u.multiplicity(),
                  u.bytes_read(), u.maps, u.maps == 1 ? "" : "s");
  if (u.tuple)
    text += u.leaves.empty() ? std::string(" (an empty tuple)")
                             : fmt::format(" (a tuple: the sums over its {} leaves)", u.leaves.size());
  if (u.depends_on_runtime) text += " (runtime offsets: the reads of one execution)";
  if (!u.total_reads.exact || (!u.distinct_read.exact && !u.depends_on_runtime)) text += " (upper bounds)";
  return text;
}

nlohmann::ordered_json utilisation_json(const analysis::OperandUtilisation& u) {
  nlohmann::ordered_json j;
  if (!u.defined()) {
    j["undefined_reason"] = u.undefined_reason;
    return j;
  }
  if (!u.shape_index.empty()) j["shape_index"] = indexing::shape_index_text(u.shape_index);
  j["operand_elements"] = u.operand_elements;
  if (u.replicas > 1) j["replicas"] = u.replicas;
  j["distinct_read"] = u.distinct_read.value;
  j["total_reads"] = u.total_reads.value;
  j["utilisation"] = u.utilisation();
  j["multiplicity"] = u.multiplicity();
  j["bytes_read"] = u.bytes_read();
  j["maps"] = u.maps;
  j["exact"] = u.distinct_read.exact && u.total_reads.exact;
  if (u.depends_on_runtime) j["depends_on_runtime"] = true;
  if (u.tuple) {
    nlohmann::ordered_json leaves = nlohmann::ordered_json::array();
    for (const analysis::OperandUtilisation& leaf : u.leaves) leaves.push_back(utilisation_json(leaf));
    j["leaves"] = std::move(leaves);
  }
  return j;
}

void UtilisationSummary::add(const analysis::InstructionUtilisation& u) {
  m_bytes_written = add_saturating(m_bytes_written, u.bytes_written);
  for (const auto& op : u.operands) {
    ++m_operands;
    if (!op.defined()) {
      ++m_uncounted;
      continue;
    }
    m_bytes_read = add_saturating(m_bytes_read, op.bytes_read());
    m_exact = m_exact && op.distinct_read.exact && op.total_reads.exact;
    if (op.maps > 1) ++m_several_maps;
    if (op.operand_elements > 0 && op.utilisation() < 0.5) ++m_under_half;
    if (op.multiplicity() > 1.0) ++m_rereads;
  }
}

std::string UtilisationSummary::text(std::string_view module_name) const {
  return fmt::format(
      "utilisation of module {}: {} operands, {}{} bytes read (distinct elements), {} bytes written; {} read through "
      "several maps, {} below half used, {} re-read; {} without maps\n",
      module_name, m_operands, m_exact ? "" : "<= ", m_bytes_read, m_bytes_written, m_several_maps, m_under_half,
      m_rereads, m_uncounted);
}

nlohmann::ordered_json UtilisationSummary::json() const {
  return {{"operands", m_operands}, {"bytes_read", m_bytes_read},     {"bytes_written", m_bytes_written},
          {"exact", m_exact},       {"several_maps", m_several_maps}, {"under_half_used", m_under_half},
          {"re_read", m_rereads},   {"without_maps", m_uncounted}};
}

}  // namespace hlo_index::app
