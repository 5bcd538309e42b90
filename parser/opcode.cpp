#include "parser/opcode.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace hlo_index::hlo {
namespace {

struct OpcodeEntry {
  std::string_view name;
  Opcode opcode;
};

constexpr auto k_opcode_table = [] {
  std::array entries = {
#define HLO_INDEX_OPCODE_ENTRY(e, s) OpcodeEntry{s, Opcode::e},
      HLO_INDEX_OPCODES(HLO_INDEX_OPCODE_ENTRY)
#undef HLO_INDEX_OPCODE_ENTRY
  };
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return entries;
}();

}  // namespace

Opcode opcode_from_string(std::string_view text) {
  auto it = std::lower_bound(k_opcode_table.begin(), k_opcode_table.end(), text,
                             [](const OpcodeEntry& e, std::string_view t) { return e.name < t; });
  return it != k_opcode_table.end() && it->name == text ? it->opcode : Opcode::kUnknown;
}

std::string_view opcode_name(Opcode opcode) {
  for (const OpcodeEntry& e : k_opcode_table)
    if (e.opcode == opcode) return e.name;
  return "unknown";
}

}  // namespace hlo_index::hlo
