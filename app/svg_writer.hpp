// A small writer of SVG documents: elements appended as text with integer
// coordinates, every attribute and text escaped, so the bytes depend on the
// content only (no clocks, no locale, no floating-point positions).
#pragma once

#include <string>
#include <string_view>

namespace hlo_index::app {

/// `text` safe inside XML (and HTML) text and double-quoted attributes: & < >
/// " ' as entities; control characters (invalid in XML 1.0) and bytes that
/// are not UTF-8 as U+FFFD.
std::string xml_escape(std::string_view text);

struct TextStyle {
  int size = 12;
  bool bold = false;
  std::string_view anchor = "start";  // start, middle, end
  std::string_view fill = "#222";
};

class SvgWriter {
public:
  /// A rectangle; `title` (escaped) becomes its tooltip; `extra` is raw attributes.
  void rect(int x, int y, int width, int height, std::string_view fill, std::string_view title = {},
            std::string_view extra = {});
  void line(int x1, int y1, int x2, int y2, std::string_view stroke, int width = 1);
  void text(int x, int y, std::string_view text, const TextStyle& style = {});
  /// Markup written as is (definitions, groups).
  void raw(std::string_view markup);
  /// The whole document, `width` x `height` pixels, with `title` (escaped) as its title.
  std::string document(int width, int height, std::string_view title) const;

private:
  std::string m_body;
};

}  // namespace hlo_index::app
