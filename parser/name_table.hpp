// NameTable: an open-addressing map from names (string_views into the source)
// to 32-bit ids. The parser looks a name up for every operand, so this replaces
// std::unordered_map there: no node allocations, a hash that reads 8 bytes at a
// time, and clear() in O(1) (a generation counter), since a module's hundreds
// of small computations each start with an empty table.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace hlo_index::parser {

// The hash and comparison of names both tables use.
namespace name_hash {

inline std::uint64_t load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// memcmp(a, b, n) == 0 without a library call: names are short.
inline bool same_bytes(const char* a, const char* b, std::size_t n) {
  if (n < 8) {
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  for (std::size_t i = 0; i + 8 <= n; i += 8)
    if (load8(a + i) != load8(b + i)) return false;
  return load8(a + n - 8) == load8(b + n - 8);
}

// Reads 8 bytes at a time.
inline std::uint64_t hash(std::string_view name) {
  constexpr std::uint64_t k_multiplier = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = name.size() * k_multiplier;
  std::size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    h = (h ^ load8(name.data() + i)) * k_multiplier;
    h ^= h >> 29;
  }
  if (i < name.size()) {
    // The last 8 bytes, overlapping the previous chunk: a fixed-size load the
    // compiler inlines (a variable-size memcpy is a library call).
    std::uint64_t chunk = 0;
    if (name.size() >= 8)
      chunk = load8(name.data() + name.size() - 8);
    else
      for (std::size_t j = 0; j < name.size(); ++j)
        chunk |= static_cast<std::uint64_t>(static_cast<unsigned char>(name[j])) << (8 * j);
    h = (h ^ chunk) * k_multiplier;
  }
  // MurmurHash3's finaliser: every input bit reaches the low bits the table indexes by.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

}  // namespace name_hash

/// A name and its hash, computed once: the parser prefetches the table slots of an
/// instruction's names before it looks them up, and hashing each name for both was a
/// tenth of its table work.
struct HashedName {
  explicit HashedName(std::string_view name) : text(name), hash(name_hash::hash(name)) {}
  std::string_view text;
  std::uint64_t hash;
};

class NameTable {
public:
  static constexpr std::uint32_t k_absent = 0xffffffffu;

  /// Empties the table, keeping its capacity.
  void clear() {
    m_count = 0;
    if (++m_generation == 0) {  // wrapped after 2^32 clears: forget every slot for real
      m_slots.assign(m_slots.size(), Slot{});
      m_generation = 1;
    }
  }

  /// Adds `name` -> `value`; returns false (and changes nothing) if `name` is there already.
  bool insert(std::string_view name, std::uint32_t value) { return insert(HashedName(name), value); }
  bool insert(const HashedName& name, std::uint32_t value) {
    if ((m_count + 1) * 2 > m_slots.size()) grow();  // at most half full: short linear probes
    Slot& slot = probe(name.text, name.hash);
    if (slot.generation == m_generation) return false;
    slot = {name.text.data(), static_cast<std::uint32_t>(name.text.size()), value, m_generation,
            fingerprint(name.hash)};
    ++m_count;
    return true;
  }

  /// The value of `name`, or k_absent.
  std::uint32_t find(std::string_view name) const { return find(HashedName(name)); }
  std::uint32_t find(const HashedName& name) const {
    if (m_slots.empty()) return k_absent;
    const Slot& slot = const_cast<NameTable*>(this)->probe(name.text, name.hash);
    return slot.generation == m_generation ? slot.value : k_absent;
  }

  std::size_t size() const { return m_count; }

  /// memcmp(a, b, n) == 0 for short names, inlined.
  static bool same(std::string_view a, std::string_view b) {
    return a.size() == b.size() && name_hash::same_bytes(a.data(), b.data(), a.size());
  }

  /// Starts loading the slot `name` hashes to, so a later insert or find of it
  /// does not wait for memory (large computations' tables do not fit in cache).
  void prefetch(const HashedName& name) const {
    if (!m_slots.empty()) __builtin_prefetch(&m_slots[name.hash & (m_slots.size() - 1)]);
  }

private:
  struct Slot {
    const char* data = nullptr;
    std::uint32_t size = 0;
    std::uint32_t value = 0;
    std::uint32_t generation = 0;   // live only if equal to the table's generation
    std::uint32_t fingerprint = 0;  // high hash bits: most mismatches never touch the text
  };

  static std::uint32_t fingerprint(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

  // The slot holding `name`, or the empty slot where it would go. Needs a non-empty table.
  Slot& probe(std::string_view name, std::uint64_t h) {
    std::size_t mask = m_slots.size() - 1;
    std::uint32_t print = fingerprint(h);
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = m_slots[i];
      if (slot.generation != m_generation) return slot;
      if (slot.fingerprint == print && slot.size == name.size() &&
          name_hash::same_bytes(slot.data, name.data(), name.size()))
        return slot;
    }
  }

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    std::uint32_t live = m_generation;
    m_generation = 1;  // fresh slots hold generation 0: all empty
    for (const Slot& slot : old)
      if (slot.generation == live) {
        const HashedName name(std::string_view(slot.data, slot.size));
        probe(name.text, name.hash) = {slot.data, slot.size, slot.value, 1, slot.fingerprint};
      }
  }

  std::vector<Slot> m_slots;  // size is a power of two
  std::size_t m_count = 0;
  std::uint32_t m_generation = 1;
};

/// Names -> indices into an array that holds the names itself (the instructions of the
/// computation being parsed): a slot is a fingerprint and the index, 8 bytes, and the name is
/// read from the array (`name_of(index)`) only to confirm a fingerprint match. The largest
/// computation's table (tens of thousands of instructions) is then a third of NameTable's and
/// mostly stays in cache while the text streams through; the parser looks it up for every
/// operand and inserts every instruction.
class IndexTable {
public:
  static constexpr std::uint32_t k_absent = NameTable::k_absent;

  /// Empties the table, keeping its capacity: O(size) (the slots it filled), or one sweep when
  /// it is fuller than that is worth.
  void clear() {
    if (m_used.size() * 8 > m_slots.size()) {
      m_slots.assign(m_slots.size(), Slot{});
    } else {
      for (std::uint32_t i : m_used) m_slots[i] = Slot{};
    }
    m_used.clear();
  }

  /// The value of `name`, or k_absent.
  template <typename NameOf>
  std::uint32_t find(const HashedName& name, const NameOf& name_of) const {
    if (m_slots.empty()) return k_absent;
    return m_slots[probe(name.text, name.hash, name_of)].value;
  }

  /// Adds `name` -> `value`; returns false (and changes nothing) if `name` is there already.
  /// `name_of(v)` must give the name of every value already in the table.
  template <typename NameOf>
  bool insert(const HashedName& name, std::uint32_t value, const NameOf& name_of) {
    if ((m_used.size() + 1) * 2 > m_slots.size()) grow(name_of);
    const std::size_t i = probe(name.text, name.hash, name_of);
    if (m_slots[i].value != k_absent) return false;
    m_slots[i] = {fingerprint(name.hash), value};
    m_used.push_back(static_cast<std::uint32_t>(i));
    return true;
  }

  void prefetch(const HashedName& name) const {
    if (!m_slots.empty()) __builtin_prefetch(&m_slots[name.hash & (m_slots.size() - 1)]);
  }

private:
  struct Slot {
    std::uint32_t fingerprint = 0;
    std::uint32_t value = k_absent;  // k_absent: empty
  };

  static std::uint32_t fingerprint(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

  // The slot holding `name`, or the empty slot where it would go. Needs a non-empty table.
  template <typename NameOf>
  std::size_t probe(std::string_view name, std::uint64_t h, const NameOf& name_of) const {
    const std::size_t mask = m_slots.size() - 1;
    const std::uint32_t print = fingerprint(h);
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = m_slots[i];
      if (slot.value == k_absent) return i;
      if (slot.fingerprint == print && NameTable::same(name_of(slot.value), name)) return i;
    }
  }

  template <typename NameOf>
  void grow(const NameOf& name_of) {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    m_used.clear();
    for (const Slot& slot : old) {
      if (slot.value == k_absent) continue;
      const std::uint64_t h = name_hash::hash(name_of(slot.value));
      std::size_t i = h & (m_slots.size() - 1);
      while (m_slots[i].value != k_absent) i = (i + 1) & (m_slots.size() - 1);
      m_slots[i] = slot;
      m_used.push_back(static_cast<std::uint32_t>(i));
    }
  }

  std::vector<Slot> m_slots;          // size is a power of two
  std::vector<std::uint32_t> m_used;  // the slots filled since the last clear
};

}  // namespace hlo_index::parser
