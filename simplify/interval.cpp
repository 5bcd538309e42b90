#include "simplify/interval.hpp"

namespace hlo_index::simplify {

void throw_integer_overflow() { throw ArithmeticOverflow("integer overflow in an indexing expression"); }

}  // namespace hlo_index::simplify
