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

// Opcode lookup by a hash of the length and three letters, in an open-addressing table built at
// compile time: the parser looks up the opcode of every instruction, and NameTable's hash of
// the whole text (and its first-use guard) cost three times as much.
constexpr std::size_t k_lookup_bits = 9;  // 512 slots for ~130 opcodes: probes are short
constexpr std::uint8_t k_empty_slot = 0xff;

constexpr std::size_t lookup_hash(std::string_view text) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(text[k])); };
  std::uint32_t h = static_cast<std::uint32_t>(text.size());
  h = h * 31 + byte(0);
  h = h * 31 + byte(text.size() / 2);
  h = h * 31 + byte(text.size() - 1);
  return (h * 2654435761u) >> (32 - k_lookup_bits);
}

// Slot -> index into k_opcode_table, or k_empty_slot.
constexpr auto k_lookup_slots = [] {
  static_assert(k_opcode_table.size() < k_empty_slot);
  std::array<std::uint8_t, std::size_t{1} << k_lookup_bits> slots{};
  for (auto& slot : slots) slot = k_empty_slot;
  for (std::size_t e = 0; e < k_opcode_table.size(); ++e) {
    std::size_t i = lookup_hash(k_opcode_table[e].name);
    while (slots[i] != k_empty_slot) i = (i + 1) % slots.size();
    slots[i] = static_cast<std::uint8_t>(e);
  }
  return slots;
}();

}  // namespace

Opcode opcode_from_string(std::string_view text) {
  if (text.empty()) return Opcode::kUnknown;
  for (std::size_t i = lookup_hash(text);; i = (i + 1) % k_lookup_slots.size()) {
    const std::uint8_t entry = k_lookup_slots[i];
    if (entry == k_empty_slot) return Opcode::kUnknown;
    if (parser::NameTable::same(k_opcode_table[entry].name, text)) return k_opcode_table[entry].opcode;
  }
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
