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
  // Indexed by the enum: renderers ask for a name per instruction printed.
  static constexpr auto k_names = [] {
    std::array<std::string_view, static_cast<std::size_t>(Opcode::kUnknown) + 1> names{};
    for (const OpcodeEntry& e : k_opcode_table) names[static_cast<std::size_t>(e.opcode)] = e.name;
    names[static_cast<std::size_t>(Opcode::kUnknown)] = "unknown";
    return names;
  }();
  const auto index = static_cast<std::size_t>(opcode);
  return index < k_names.size() ? k_names[index] : k_names.back();
}

}  // namespace hlo_index::hlo
