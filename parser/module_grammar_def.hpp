// Grammar of HLO module text: header, stack-frame tables, computation headers,
// instructions. Shapes and attribute values are captured as text here and parsed
// in full elsewhere (shape_grammar_def.hpp, attribute_grammar_def.hpp).
#pragma once

#include <boost/spirit/home/x3.hpp>

#include "parser/ast.hpp"
#include "parser/grammar.hpp"
#include "parser/primitives.hpp"

namespace hlo_index::parser::grammar {

//===--- Rule IDs ---===//
struct attribute_class;
struct operand_class;
struct parameter_class;
struct table_entry_class;

//===--- Rules ---===//
instruction_type const instruction_rule = "instruction";
inline_instruction_type const inline_instruction_rule = "inline instruction";
computation_header_type const computation_header_rule = "computation";
module_header_type const module_header_rule = "module header";
table_type const table_rule = "stack frame table";
trailer_type const trailer_rule = "computation attributes";
x3::rule<attribute_class, ast::Attribute> const attribute = "attribute";
x3::rule<operand_class, ast::Operand> const operand = "operand";
x3::rule<parameter_class, ast::Parameter> const parameter = "parameter";
x3::rule<table_entry_class, std::pair<std::int64_t, std::string_view>> const table_entry = "table entry";

//===--- Actions: copy the matched value into a member of the rule's value ---===//
template <auto Member>
inline constexpr auto set = [](auto& ctx) { x3::_val(ctx).*Member = x3::_attr(ctx); };
template <auto Member>
inline constexpr auto push = [](auto& ctx) { (x3::_val(ctx).*Member).push_back(x3::_attr(ctx)); };
template <auto Member>
inline constexpr auto flag = [](auto& ctx) { x3::_val(ctx).*Member = true; };

// A keyword as the source spells it (x3::raw gives its range), so that diagnostics
// can point at it (found by fuzz_hlo_parser: a string literal here put a caret
// outside the source, and the error recovery then scanned from it).
template <auto Member>
inline constexpr auto set_raw = [](auto& ctx) {
  const auto& range = x3::_attr(ctx);
  x3::_val(ctx).*Member = std::string_view(range.begin(), static_cast<std::size_t>(range.end() - range.begin()));
};

//===--- Grammar ---===//
auto const attribute_name = x3::rule<struct attribute_name_class, std::string_view>{"attribute name"} = name;

// Every rule body below stores what it matches through semantic actions on the
// rule's value, so each is wrapped in omit[]: X3 then synthesizes no attribute of its
// own for the alternatives and sequences inside (which would cost allocations).
auto const attribute_def =
    x3::omit[((x3::raw[kw("literal")][set_raw<&ast::Attribute::name>] >> '=') >
              typed_literal[set<&ast::Attribute::value>]) |
             ((attribute_name[set<&ast::Attribute::name>] >> '=') > attribute_value[set<&ast::Attribute::value>])];

auto const operand_def = x3::omit[(shape_text[set<&ast::Operand::shape>] >>
                                   (nested_call[set<&ast::Operand::nested>] | name[set<&ast::Operand::name>])) |
                                  name[set<&ast::Operand::name>]];

// constant(...) and parameter(N) hold a literal, every other opcode a list of operands.
auto const literal_opcode = x3::raw[kw("constant")][set_raw<&ast::Instruction::opcode>] |
                            x3::raw[kw("parameter")][set_raw<&ast::Instruction::opcode>];
auto const literal_call = literal_opcode >> literal[([](auto& ctx) {
                            x3::_val(ctx).has_literal = true;
                            x3::_val(ctx).literal = x3::_attr(ctx);
                          })];
auto const operand_call = opcode[set<&ast::Instruction::opcode>] > '(' >
                          -(operand[push<&ast::Instruction::operands>] % ',') > ')';

// The shape may be left out (`gte = get-tuple-element(t), index=0`): the driver infers it.
auto const instruction_rule_def =
    x3::omit[(-kw("ROOT")[flag<&ast::Instruction::is_root>] >> name[set<&ast::Instruction::name>] >> '=') >
             -shape_text[set<&ast::Instruction::shape>] > (literal_call | operand_call) >
             *(',' > attribute[push<&ast::Instruction::attributes>])];

// `f32[] parameter(0)` used as an operand: shape and call, no name, no attributes.
auto const inline_instruction_rule_def =
    x3::omit[shape_text[set<&ast::Instruction::shape>] > (literal_call | operand_call)];

auto const parameter_def = name[set<&ast::Parameter::name>] > ':' > shape_text[set<&ast::Parameter::shape>];

auto const signature = x3::lit('(')[flag<&ast::ComputationHeader::has_signature>] >
                       -(parameter[push<&ast::ComputationHeader::parameters>] % ',') > ')' >
                       "->" > shape_text[set<&ast::ComputationHeader::result>];

auto const computation_header_rule_def = (-kw("ENTRY")[flag<&ast::ComputationHeader::is_entry>] >>
                                          name[set<&ast::ComputationHeader::name>]) > -signature > '{';

auto const module_header_rule_def = kw("HloModule") > name[set<&ast::ModuleHeader::name>] > -x3::lit(':') >
                                    *(',' > attribute[push<&ast::ModuleHeader::attributes>]);

auto const table_entry_def = int64[([](auto& ctx) { x3::_val(ctx).first = x3::_attr(ctx); })] >
                             attribute_value[([](auto& ctx) { x3::_val(ctx).second = x3::_attr(ctx); })];

auto const table_name = (kw("FileNames") | kw("FunctionNames") | kw("FileLocations") | kw("StackFrames"));

auto const table_rule_def = x3::raw[table_name][([](auto& ctx) {
                              x3::_val(ctx).name = std::string_view(x3::_attr(ctx).begin(), x3::_attr(ctx).size());
                            })] >>
                            *table_entry[push<&ast::Table::entries>];

auto const trailer_rule_def = *(',' > attribute[push<&ast::Trailer::attributes>]);

BOOST_SPIRIT_DEFINE(instruction_rule, inline_instruction_rule, computation_header_rule, module_header_rule, table_rule,
                    trailer_rule, attribute, operand, parameter, table_entry)

}  // namespace hlo_index::parser::grammar
