#include "indexing/ops/op_context.hpp"

#include "indexing/ops/tuple_leaves.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing {

std::vector<std::int64_t> dimension_sizes(const hlo::Shape& shape) {
  if (shape.is_tuple) throw Unsupported("a tuple shape where an array was expected");
  for (std::int64_t d : shape.dims) {
    if (d < 0) throw Unsupported("an unbounded dynamic dimension ('?')");
  }
  return shape.dims;
}

std::size_t OpContext::output_count() const { return leaf_count(shape()); }

std::uint32_t OpContext::operand_index(std::size_t k) const {
  const auto operands = computation.operands_of(instruction());
  if (k >= operands.size())
    throw Unsupported("operand " + std::to_string(k) + " of an instruction with " + std::to_string(operands.size()) +
                      (operands.size() == 1 ? " operand" : " operands"));
  return operands[k];
}

const hlo::Shape& OpContext::output_shape(std::size_t k) const {
  const hlo::Shape& s = shape();
  if (!s.is_tuple) return s;
  if (!has_nested_tuple(s) && k >= s.elements.size())
    throw Unsupported("output " + std::to_string(k) + " of a " + std::to_string(s.elements.size()) + "-tuple");
  return leaf_shape(s, k);
}

std::vector<std::int64_t> OpContext::required_int_list(std::string_view name) const {
  auto list = parser::int_list_attribute(computation, instruction(), name);
  if (!list) throw Unsupported(std::string("the attribute '").append(name).append("' is missing"));
  return *list;
}

std::optional<std::int64_t> OpContext::int_attribute(std::string_view name) const {
  return parser::int_attribute(computation, instruction(), name);
}

}  // namespace hlo_index::indexing
