// Grammar of shapes and layouts: f32[8,<=16,?]{2,1,0:T(8,128)(2,1)E(4)S(1)},
// (f32[], (s32[2], token[])), bf16[128]{0:T(1024)(128)(4,1)}, f32[]{:T(128)}, b(f32[2,4]).
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <string>

#include "parser/grammar.hpp"
#include "parser/primitives.hpp"
#include "parser/syntax_error.hpp"

namespace hlo_index::parser::grammar {

//===--- Rule IDs ---===//
struct tuple_shape_class;
struct array_shape_class;
struct buffer_shape_class;
struct layout_class;
struct tile_class;
struct dim_class;

//===--- Rules ---===//
shape_type const shape_rule = "shape";
x3::rule<tuple_shape_class, hlo::Shape> const tuple_shape = "tuple shape";
x3::rule<array_shape_class, hlo::Shape> const array_shape = "array shape";
x3::rule<buffer_shape_class, hlo::Shape> const buffer_shape = "buffer shape";
x3::rule<layout_class, hlo::Layout> const layout = "layout";
x3::rule<tile_class, hlo::Tile> const tile = "tile";

struct element_type_symbols : x3::symbols<hlo::ElementType> {
  element_type_symbols() {
    name("element type");
    for (const auto& [text, type] : hlo::all_element_types()) add(std::string(text), type);
  }
};
inline const element_type_symbols element_type;

//===--- Grammar ---===//
inline constexpr auto push_dim = [](hlo::DimKind kind) {
  return [kind](auto& ctx) {
    std::int64_t size = -1;
    if constexpr (!std::is_same_v<std::decay_t<decltype(x3::_attr(ctx))>, x3::unused_type>) size = x3::_attr(ctx);
    if (size < 0 && kind != hlo::DimKind::kUnbounded) {
      const char* where = x3::_where(ctx).begin();
      while (*where == ' ' || *where == '<' || *where == '=') ++where;
      throw SyntaxError{where, "dimension size must not be negative"};
    }
    x3::_val(ctx).dims.push_back(size);
    x3::_val(ctx).dim_kinds.push_back(kind);
  };
};

auto const dimension = (x3::lit("<=") > int64[push_dim(hlo::DimKind::kBounded)]) |
                       x3::lit('?')[push_dim(hlo::DimKind::kUnbounded)] | int64[push_dim(hlo::DimKind::kStatic)];

auto const array_shape_def = element_type[([](auto& ctx) { x3::_val(ctx).type = x3::_attr(ctx); })] > '[' >
                             -(dimension % ',') > ']' >
                             -layout[([](auto& ctx) { x3::_val(ctx).layout = std::move(x3::_attr(ctx)); })];

auto const tuple_shape_def =
    x3::lit('(')[([](auto& ctx) { x3::_val(ctx).is_tuple = true; })] >
    -(shape_rule[([](auto& ctx) { x3::_val(ctx).elements.push_back(std::move(x3::_attr(ctx))); })] % ',') > ')';

// `b(f32[2,4]{1,0})`: a buffer holding an array.
auto const buffer_shape_def = (x3::lit('b') >> '(') > array_shape[([](auto& ctx) {
                                x3::_val(ctx) = std::move(x3::_attr(ctx));
                                x3::_val(ctx).is_buffer = true;
                              })] > ')';

auto const shape_rule_def = tuple_shape | buffer_shape | array_shape;

auto const tile_dim = x3::rule<struct tile_dim_class, std::int64_t>{"tile dimension"} =
    int64 | (x3::lit('*') >> x3::attr(hlo::k_combined_tile_dim));
inline constexpr auto push_tile_dim = [](auto& ctx) { x3::_val(ctx).dims.push_back(x3::_attr(ctx)); };
auto const tile_def = '(' > (tile_dim[push_tile_dim] >> *(',' > tile_dim[push_tile_dim])) > ')';

template <auto Member>
inline constexpr auto set_layout = [](auto& ctx) { x3::_val(ctx).*Member = x3::_attr(ctx); };
inline constexpr auto as_string = [](auto& ctx) { return std::string(x3::_attr(ctx).begin(), x3::_attr(ctx).end()); };

auto const type_name = x3::raw[x3::lexeme[+(x3::lower | x3::digit)]];
auto const layout_item =
    (x3::lit("D(") > (x3::raw[x3::lexeme[+x3::upper >> *x3::char_("+~")]]
                             [([](auto& ctx) { x3::_val(ctx).dim_level_types.push_back(as_string(ctx)); })] %
                      ',') > ')') |
    (x3::lit('T') > +tile[([](auto& ctx) { x3::_val(ctx).tiles.push_back(std::move(x3::_attr(ctx))); })]) |
    (x3::lit("L(") > int64[set_layout<&hlo::Layout::tail_padding_alignment>] > ')') |
    (x3::lit("#(") > type_name[([](auto& ctx) { x3::_val(ctx).index_type = as_string(ctx); })] > ')') |
    (x3::lit("*(") > type_name[([](auto& ctx) { x3::_val(ctx).pointer_type = as_string(ctx); })] > ')') |
    (x3::lit("E(") > int64[set_layout<&hlo::Layout::element_size_bits>] > ')') |
    x3::raw[(x3::lit("SC") >> +(x3::lit('(') > x3::lexeme[*(x3::char_ - ')')] > ')')) |
            ((x3::lit("P(") | "M(") > x3::lexeme[*(x3::char_ - ')')] > ')')]
           [([](auto& ctx) { x3::_val(ctx).extra.push_back(as_string(ctx)); })] |
    (x3::lit("S(") > int64[set_layout<&hlo::Layout::memory_space>] > ')');

auto const layout_def = '{' > -(int64[([](auto& ctx) { x3::_val(ctx).minor_to_major.push_back(x3::_attr(ctx)); })] %
                                ',') > -(':' > *layout_item) > '}';

BOOST_SPIRIT_DEFINE(shape_rule, tuple_shape, array_shape, buffer_shape, layout, tile)

}  // namespace hlo_index::parser::grammar
