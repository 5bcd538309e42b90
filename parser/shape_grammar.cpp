// The one instantiation unit of the shape grammar.
#include "parser/config.hpp"
#include "parser/shape_grammar_def.hpp"

namespace hlo_index::parser::grammar {

BOOST_SPIRIT_INSTANTIATE(shape_type, iterator_type, context_type)

shape_type const& shape() { return shape_rule; }

}  // namespace hlo_index::parser::grammar
