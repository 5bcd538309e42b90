#include "parser/hlo_module.hpp"

namespace hlo_index::hlo {

std::optional<std::string_view> Computation::attribute(const Instruction& i, std::string_view attribute_name) const {
  for (const Attribute& a : attributes_of(i))
    if (a.name == attribute_name) return a.value;
  return std::nullopt;
}

std::uint32_t Module::find_computation(std::string_view computation_name) const {
  for (std::uint32_t c = 0; c < computations.size(); ++c)
    if (computations[c].name == computation_name) return c;
  return k_none;
}

std::size_t Module::instruction_count() const {
  std::size_t n = 0;
  for (const Computation& c : computations) n += c.instructions.size();
  return n;
}

}  // namespace hlo_index::hlo
