// The one exception the grammar throws: a syntax error at a position in the text.
// It never leaves parser/: parse.cpp turns it into a diagnostic.
#pragma once

#include <string>

namespace hlo_index::parser {

struct SyntaxError {
  const char* where;
  std::string message;
};

/// Deepest bracket nesting accepted; real dumps stay under 20 (JSON backend configs).
inline constexpr int k_max_nesting = 64;

}  // namespace hlo_index::parser
