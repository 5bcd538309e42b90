// The one instantiation unit of the module grammar.
#include "parser/config.hpp"
#include "parser/module_grammar_def.hpp"

namespace hlo_index::parser::grammar {

BOOST_SPIRIT_INSTANTIATE(instruction_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(inline_instruction_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(computation_header_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(module_header_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(table_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(trailer_type, iterator_type, context_type)

instruction_type const& instruction() { return instruction_rule; }
inline_instruction_type const& inline_instruction() { return inline_instruction_rule; }
computation_header_type const& computation_header() { return computation_header_rule; }
module_header_type const& module_header() { return module_header_rule; }
table_type const& table() { return table_rule; }
trailer_type const& trailer() { return trailer_rule; }

}  // namespace hlo_index::parser::grammar
