#include "parser/opcode.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "parser/name_table.hpp"

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
  static const parser::NameTable table = [] {
    parser::NameTable t;
    for (const OpcodeEntry& e : k_opcode_table) t.insert(e.name, static_cast<std::uint32_t>(e.opcode));
    return t;
  }();
  std::uint32_t opcode = table.find(text);
  return opcode == parser::NameTable::k_absent ? Opcode::kUnknown : static_cast<Opcode>(opcode);
}

std::string_view opcode_name(Opcode opcode) {
  for (const OpcodeEntry& e : k_opcode_table)
    if (e.opcode == opcode) return e.name;
  return "unknown";
}

}  // namespace hlo_index::hlo
