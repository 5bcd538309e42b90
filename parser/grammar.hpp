// Rule types and declarations of the HLO grammar. Included by parser/*.cpp only;
// the definitions live in *_def.hpp and are instantiated once in *_grammar.cpp.
#pragma once

#include <boost/spirit/home/x3.hpp>

#include "parser/ast.hpp"
#include "parser/config.hpp"
#include "parser/shape.hpp"

namespace hlo_index::parser::grammar {

struct instruction_class;
struct inline_instruction_class;
struct computation_header_class;
struct module_header_class;
struct table_class;
struct trailer_class;
struct shape_class;

using instruction_type = x3::rule<instruction_class, ast::Instruction>;
using inline_instruction_type = x3::rule<inline_instruction_class, ast::Instruction>;
using computation_header_type = x3::rule<computation_header_class, ast::ComputationHeader>;
using module_header_type = x3::rule<module_header_class, ast::ModuleHeader>;
using table_type = x3::rule<table_class, ast::Table>;
using trailer_type = x3::rule<trailer_class, ast::Trailer>;
using shape_type = x3::rule<shape_class, hlo::Shape>;

BOOST_SPIRIT_DECLARE(instruction_type, inline_instruction_type, computation_header_type, module_header_type, table_type,
                     trailer_type)
BOOST_SPIRIT_DECLARE(shape_type)

instruction_type const& instruction();
inline_instruction_type const& inline_instruction();
computation_header_type const& computation_header();
module_header_type const& module_header();
table_type const& table();
trailer_type const& trailer();
shape_type const& shape();

}  // namespace hlo_index::parser::grammar
