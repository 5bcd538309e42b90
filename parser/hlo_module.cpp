#include "parser/hlo_module.hpp"

#include <algorithm>
#include <mutex>

namespace hlo_index::hlo {

std::optional<std::string_view> Computation::attribute(const Instruction& i, std::string_view attribute_name) const {
  for (const Attribute& a : attributes_of(i))
    if (a.name == attribute_name) return a.value;
  return std::nullopt;
}

bool Computation::has_missing_callee(const Instruction& i) const {
  const auto called = callees_of(i);
  return std::find(called.begin(), called.end(), k_none) != called.end();
}

const Computation* Module::callee(const Computation& c, const Instruction& i, std::size_t k) const {
  const auto called = c.callees_of(i);
  if (k >= called.size() || called[k] >= computations.size()) return nullptr;
  return &computations[called[k]];
}

std::uint32_t Module::find_computation(std::string_view computation_name) const {
  for (std::uint32_t c = 0; c < computations.size(); ++c)
    if (computations[c].name == computation_name) return c;
  return k_none;
}

struct ShapeFacts {
  std::once_flag built;
  std::vector<char> flat_tuple;  // by ShapeId, for the shapes interned when first asked
};

std::shared_ptr<ShapeFacts> make_shape_facts() { return std::make_shared<ShapeFacts>(); }

namespace {

bool flat_tuple(const Shape& shape) {
  return shape.is_tuple && std::none_of(shape.elements.begin(), shape.elements.end(),
                                        [](const Shape& element) { return element.is_tuple; });
}

}  // namespace

bool Module::is_flat_tuple(ShapeId id) const {
  if (!shape_facts) return flat_tuple(shapes[id]);  // a moved-from module
  std::call_once(shape_facts->built, [this] {
    shape_facts->flat_tuple.resize(shapes.size());
    std::transform(shapes.begin(), shapes.end(), shape_facts->flat_tuple.begin(),
                   [](const Shape& s) -> char { return flat_tuple(s) ? 1 : 0; });
  });
  return id < shape_facts->flat_tuple.size() ? shape_facts->flat_tuple[id] != 0 : flat_tuple(shapes[id]);
}

std::size_t Module::instruction_count() const {
  std::size_t n = 0;
  for (const Computation& c : computations) n += c.instructions.size();
  return n;
}

}  // namespace hlo_index::hlo
