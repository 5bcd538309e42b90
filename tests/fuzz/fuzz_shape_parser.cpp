// libFuzzer target: one shape with its layout (`bf16[128,256]{1,0:T(8,128)(2,1)}`),
// as `hlo-index layout` reads it. A shape that parses is printed and read back
// (same text), and an array's layout is laid out with its maps built.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/layout_maps.hpp"
#include "layout/physical_layout.hpp"
#include "parser/parse.hpp"
#include "simplify/interval.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hlo_index::indexing::IslContext::get().set_operation_limit(20'000);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto shape = hlo_index::parser::parse_shape(text, &error);
  if (!shape) return 0;
  const std::string printed = hlo_index::hlo::to_string(*shape);
  const auto reparsed = hlo_index::parser::parse_shape(printed);
  if (!reparsed || hlo_index::hlo::to_string(*reparsed) != printed) std::abort();
  if (shape->is_tuple) return 0;
  try {
    const auto layout = hlo_index::layout::PhysicalLayout::of(*shape);
    (void)hlo_index::indexing::logical_to_physical(layout);
    (void)hlo_index::indexing::physical_to_logical(layout);
  } catch (const hlo_index::layout::LayoutError&) {
    // a layout that cannot be laid out is reported, as `hlo-index layout` does
  } catch (const hlo_index::simplify::ArithmeticOverflow&) {
    // reported to the user as an error, as `hlo-index layout` does
  } catch (const hlo_index::indexing::IslLimitReached&) {
  }
  return 0;
}
