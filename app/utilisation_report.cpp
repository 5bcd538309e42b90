#include "app/utilisation_report.hpp"

#include <fmt/format.h>

#include <limits>

#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::app {

namespace {

std::string count_text(const indexing::Count& c) {
  return c.wide_exact ? simplify::to_string(c.wide) : "<= " + simplify::to_string(c.wide);
}

// A figure in JSON: a number up to 2^63, past it the string of its digits.
nlohmann::ordered_json wide_json(simplify::Wide v) {
  if (v <= simplify::k_int64_max_wide) return static_cast<std::int64_t>(v);
  return simplify::to_string(v);
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
                  simplify::to_string(u.bytes_read_wide()), u.maps, u.maps == 1 ? "" : "s");
  if (u.tuple)
    text += u.leaves.empty() ? std::string(" (an empty tuple)")
                             : fmt::format(" (a tuple: the sums over its {} leaves)", u.leaves.size());
  if (u.depends_on_runtime) text += " (runtime offsets: the reads of one execution)";
  if (!u.total_reads.wide_exact || (!u.distinct_read.wide_exact && !u.depends_on_runtime)) text += " (upper bounds)";
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
  j["distinct_read"] = wide_json(u.distinct_read.wide);
  j["total_reads"] = wide_json(u.total_reads.wide);
  j["utilisation"] = u.utilisation();
  j["multiplicity"] = u.multiplicity();
  j["bytes_read"] = wide_json(u.bytes_read_wide());
  j["maps"] = u.maps;
  j["exact"] = u.distinct_read.wide_exact && u.total_reads.wide_exact;
  if (u.depends_on_runtime) j["depends_on_runtime"] = true;
  if (u.tuple) {
    nlohmann::ordered_json leaves = nlohmann::ordered_json::array();
    for (const analysis::OperandUtilisation& leaf : u.leaves) leaves.push_back(utilisation_json(leaf));
    j["leaves"] = std::move(leaves);
  }
  return j;
}

void UtilisationSummary::add(const analysis::InstructionUtilisation& u) {
  m_bytes_written = simplify::wide_add(m_bytes_written, u.bytes_written_wide);
  for (const auto& op : u.operands) {
    ++m_operands;
    if (!op.defined()) {
      ++m_uncounted;
      continue;
    }
    m_bytes_read = simplify::wide_add(m_bytes_read, op.bytes_read_wide());
    m_exact = m_exact && op.distinct_read.wide_exact && op.total_reads.wide_exact;
    if (op.maps > 1) ++m_several_maps;
    if (op.operand_elements > 0 && op.utilisation() < 0.5) ++m_under_half;
    if (op.multiplicity() > 1.0) ++m_rereads;
  }
}

std::string UtilisationSummary::text(std::string_view module_name) const {
  return fmt::format(
      "utilisation of module {}: {} operands, {}{} bytes read (distinct elements), {} bytes written; {} read through "
      "several maps, {} below half used, {} re-read; {} without maps\n",
      module_name, m_operands, m_exact ? "" : "<= ", simplify::to_string(m_bytes_read),
      simplify::to_string(m_bytes_written), m_several_maps, m_under_half, m_rereads, m_uncounted);
}

nlohmann::ordered_json UtilisationSummary::json() const {
  return {{"operands", m_operands},
          {"bytes_read", wide_json(m_bytes_read)},
          {"bytes_written", wide_json(m_bytes_written)},
          {"exact", m_exact},
          {"several_maps", m_several_maps},
          {"under_half_used", m_under_half},
          {"re_read", m_rereads},
          {"without_maps", m_uncounted}};
}

}  // namespace hlo_index::app
