// The text and JSON forms of operand utilisation (`analyze --utilisation`),
// and the per-module summary.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "indexing/analysis/utilisation.hpp"

namespace hlo_index::app {

/// One line, e.g. `utilisation: 64 of 128 elements read (0.500), 64 reads (1.00 per element read), 256 bytes, 1 map`.
std::string utilisation_text(const analysis::OperandUtilisation& u);
nlohmann::ordered_json utilisation_json(const analysis::OperandUtilisation& u);

/// Totals over the instructions of one module.
class UtilisationSummary {
public:
  void add(const analysis::InstructionUtilisation& u);
  std::string text(std::string_view module_name) const;
  nlohmann::ordered_json json() const;

private:
  simplify::Wide m_bytes_read = 0;
  simplify::Wide m_bytes_written = 0;
  std::size_t m_operands = 0;
  std::size_t m_uncounted = 0;     // operands without maps
  std::size_t m_several_maps = 0;  // operands read through more than one map
  std::size_t m_under_half = 0;    // operands with utilisation below 0.5
  std::size_t m_rereads = 0;       // operands read more than once per element on average
  bool m_exact = true;
};

}  // namespace hlo_index::app
