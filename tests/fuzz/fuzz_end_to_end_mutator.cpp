// libFuzzer's custom mutator for fuzz_end_to_end (HLO_INDEX_FUZZ builds only): half the time a
// structure-aware edit of the module (hlo_mutator.hpp: callees swapped, result shapes and
// attributes taken from other instructions), which byte-level mutation rarely makes while
// keeping the text parseable; otherwise libFuzzer's own mutation.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "hlo_mutator.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed % 2 == 0) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string mutant = hlo_index::fuzz::mutate_hlo(text, seed);
    if (mutant != text && mutant.size() <= max_size) {
      std::memcpy(data, mutant.data(), mutant.size());
      return mutant.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
