// Grammars of the attribute values the analysis reads. Each rule parses the raw
// text the module grammar captured for one attribute.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <string_view>

#include "parser/attributes.hpp"
#include "parser/primitives.hpp"

namespace hlo_index::parser::grammar {

/// Window fields as written, before they are zipped into WindowDims.
struct WindowFields {
  std::vector<std::int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::pair<std::int64_t, std::int64_t>> pad;
  bool has_size = false;
};

//===--- Rules ---===//
x3::rule<struct int_list_class, std::vector<std::int64_t>> const int_list = "integer list";
x3::rule<struct int_list_list_class, std::vector<std::vector<std::int64_t>>> const int_list_list =
    "list of integer lists";
x3::rule<struct slice_class, std::vector<SliceDim>> const slice = "slice";
x3::rule<struct slice_dim_class, SliceDim> const slice_dim = "[start:limit:stride]";
x3::rule<struct padding_class, std::vector<PaddingDim>> const padding = "padding";
x3::rule<struct padding_dim_class, PaddingDim> const padding_dim = "low_high[_interior]";
x3::rule<struct window_class, WindowFields> const window = "window";
x3::rule<struct computation_list_class, std::vector<std::string_view>> const computation_list = "computation name";

//===--- Grammar ---===//
inline constexpr auto push_int = [](auto& ctx) { x3::_val(ctx).push_back(x3::_attr(ctx)); };

auto const int_list_def = '{' > -(int64[push_int] >> *(',' > int64[push_int])) > '}';

auto const int_list_list_def = '{' > -(int_list[push_int] >> *(',' > int_list[push_int])) > '}';

auto const slice_dim_def = '[' > int64[([](auto& ctx) { x3::_val(ctx).start = x3::_attr(ctx); })] > ':' >
                           int64[([](auto& ctx) { x3::_val(ctx).limit = x3::_attr(ctx); })] >
                           -(':' > int64[([](auto& ctx) { x3::_val(ctx).stride = x3::_attr(ctx); })]) > ']';
auto const slice_def = '{' > -(slice_dim[push_int] >> *(',' > slice_dim[push_int])) > '}';

auto const padding_dim_def = x3::lexeme[int64[([](auto& ctx) { x3::_val(ctx).low = x3::_attr(ctx); })] > '_' >
                                        int64[([](auto& ctx) { x3::_val(ctx).high = x3::_attr(ctx); })] >
                                        -('_' > int64[([](auto& ctx) { x3::_val(ctx).interior = x3::_attr(ctx); })])];
auto const padding_def = x3::lexeme[padding_dim[push_int] >> *('x' > padding_dim[push_int])];

template <auto Member>
inline constexpr auto push_field = [](auto& ctx) { (x3::_val(ctx).*Member).push_back(x3::_attr(ctx)); };
auto const x_list = [](auto action) { return x3::lexeme[int64[action] >> *('x' > int64[action])]; };
auto const window_pad = x3::lexeme[(int64 >> '_' >> int64)[([](auto& ctx) {
                                     using boost::fusion::at_c;
                                     x3::_val(ctx).pad.emplace_back(at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx)));
                                   })] %
                                   'x'];
auto const window_field =
    (x3::lit("size") > '=' >
     x_list(push_field<&WindowFields::size>))[([](auto& ctx) { x3::_val(ctx).has_size = true; })] |
    (x3::lit("stride") > '=' > x_list(push_field<&WindowFields::stride>)) | (x3::lit("pad") > '=' > window_pad) |
    (x3::lit("lhs_dilate") > '=' > x_list(push_field<&WindowFields::lhs_dilate>)) |
    (x3::lit("rhs_dilate") > '=' > x_list(push_field<&WindowFields::rhs_dilate>)) |
    (x3::lit("rhs_reversal") > '=' > x_list(push_field<&WindowFields::reversal>));
auto const window_def = '{' > *window_field > '}';

auto const computation_list_def = name[push_int] | ('{' > -(name[push_int] % ',') > '}');

BOOST_SPIRIT_DEFINE(int_list, int_list_list, slice, slice_dim, padding, padding_dim, window, computation_list)

}  // namespace hlo_index::parser::grammar
