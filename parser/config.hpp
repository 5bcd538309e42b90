// The one definition of iterator and context types, shared by the rule
// instantiations (*.cpp) and their callers; a mismatch would be a link error.
#pragma once

#include <boost/spirit/home/x3.hpp>

#include "parser/primitives.hpp"

namespace hlo_index::parser::grammar {

using iterator_type = const char*;
using skipper_type = blank_parser;
using context_type = x3::phrase_parse_context<skipper_type>::type;

}  // namespace hlo_index::parser::grammar
