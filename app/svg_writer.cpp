#include "app/svg_writer.hpp"

#include <fmt/format.h>

namespace hlo_index::app {

namespace {

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\uFFFD";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
          out += "\uFFFD";
        } else {
          out += c;
        }
    }
    ++i;
  }
  return out;
}

void SvgWriter::rect(int x, int y, int width, int height, std::string_view fill, std::string_view title,
                     std::string_view extra) {
  m_body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}{})", x, y, width, height,
                        xml_escape(fill), extra.empty() ? "" : " ", extra);
  if (title.empty()) {
    m_body += "/>\n";
  } else {
    m_body += fmt::format("><title>{}</title></rect>\n", xml_escape(title));
  }
}

void SvgWriter::line(int x1, int y1, int x2, int y2, std::string_view stroke, int width) {
  m_body += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>)"
                        "\n",
                        x1, y1, x2, y2, xml_escape(stroke), width);
}

void SvgWriter::text(int x, int y, std::string_view text, const TextStyle& style) {
  m_body += fmt::format(R"(<text x="{}" y="{}" font-size="{}"{}{} fill="{}">{}</text>)"
                        "\n",
                        x, y, style.size, style.bold ? R"( font-weight="bold")" : "",
                        style.anchor == "start" ? std::string() : fmt::format(R"( text-anchor="{}")", style.anchor),
                        xml_escape(style.fill), xml_escape(text));
}

void SvgWriter::raw(std::string_view markup) { m_body += markup; }

std::string SvgWriter::document(int width, int height, std::string_view title) const {
  return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                     R"(font-family="DejaVu Sans, Helvetica, Arial, sans-serif">)"
                     "\n<title>{2}</title>\n"
                     R"(<rect x="0" y="0" width="{0}" height="{1}" fill="#ffffff"/>)"
                     "\n{3}</svg>\n",
                     width, height, xml_escape(title), m_body);
}

}  // namespace hlo_index::app
