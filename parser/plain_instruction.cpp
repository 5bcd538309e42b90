#include "parser/plain_instruction.hpp"

#include <string_view>

#include "parser/scanners.hpp"

namespace hlo_index::parser {
namespace {

// Each piece below is the grammar's piece of the same name (module_grammar_def.hpp,
// primitives.hpp), with the same scanners. Like X3 with its skipper, each skips blanks before a
// token; each returns the end of what it read, or nullptr where the grammar would not match.

std::string_view text(const char* begin, const char* end) { return {begin, static_cast<std::size_t>(end - begin)}; }

const char* skip(const char* p, const char* end) { return scan::skip_blank(p, end); }

// kw(word): the word, not run on into a longer name.
const char* keyword(const char* p, const char* end, std::string_view word) {
  // The first letter first: it rules out almost every statement without a library call.
  if (p == end || *p != word[0] || static_cast<std::size_t>(end - p) < word.size() ||
      std::string_view(p, word.size()) != word)
    return nullptr;
  p += word.size();
  return p < end && scan::is_name_char(*p) ? nullptr : p;
}

const char* literal_char(const char* p, const char* end, char c) { return p < end && *p == c ? p + 1 : nullptr; }

// name: `%name` or `name`; `out` is without the sigil.
const char* name(const char* p, const char* end, std::string_view& out) {
  const char* begin = nullptr;
  const char* e = scan::name(p, end, begin);
  if (e) out = text(begin, e);
  return e;
}

// opcode (and the opcode of nested_call): a lower-case letter, then name characters but '.'.
const char* opcode(const char* p, const char* end) {
  if (p == end || *p < 'a' || *p > 'z') return nullptr;
  while (p < end && scan::is_name_char(*p) && *p != '.') ++p;
  return p;
}

// operand: `shape opcode(...)` (an inline instruction), `shape name` or `name`.
const char* operand(const char* p, const char* end, ast::Operand& out) {
  p = skip(p, end);
  const char* shape_end = scan::shape_text(p, end);
  if (!shape_end) return name(p, end, out.name);
  out.shape = text(p, shape_end);
  const char* call = skip(shape_end, end);
  if (const char* open = opcode(call, end); open && open < end && *open == '(') {
    const char* e = scan::literal_text(open, end);
    out.nested = text(call, e);
    return e;
  }
  // No name after the shape: the grammar's other choice, a bare name, then fails too (the
  // shape's text is not a name followed by ',' or ')').
  return name(call, end, out.name);
}

// literal_call | operand_call, after the shape. The opcode is read first: kw("constant") and
// kw("parameter") match exactly when it is one of them and no name character follows.
const char* call(const char* p, const char* end, ast::Instruction& out) {
  const char* e = opcode(p, end);
  if (!e) return nullptr;
  out.opcode = text(p, e);
  if ((out.opcode == "constant" || out.opcode == "parameter") && (e == end || !scan::is_name_char(*e))) {
    const char* open = skip(e, end);
    if (!literal_char(open, end, '(')) return nullptr;  // the grammar reports it, as an operand call
    const char* close = scan::literal_text(open, end);
    out.has_literal = true;
    out.literal = text(open + 1, close - 1);
    return close;
  }
  e = literal_char(skip(e, end), end, '(');
  if (!e) return nullptr;
  if (const char* close = literal_char(skip(e, end), end, ')')) return close;  // no operands
  while (true) {
    e = operand(e, end, out.operands.emplace_back());
    if (!e) return nullptr;
    const char* next = skip(e, end);
    if (const char* close = literal_char(next, end, ')')) return close;
    e = literal_char(next, end, ',');
    if (!e) return nullptr;
  }
}

// attribute: `name=value`; `literal=shape value` (custom-call) is left to the grammar.
const char* attribute(const char* p, const char* end, ast::Attribute& out) {
  p = skip(p, end);
  if (keyword(p, end, "literal")) return nullptr;
  p = name(p, end, out.name);
  if (p) p = literal_char(skip(p, end), end, '=');
  if (!p) return nullptr;
  p = skip(p, end);
  const char* e = scan::attribute_value(p, end);
  if (e) out.value = text(p, e);
  return e;
}

bool read(const char*& start, const char* end, ast::Instruction& out) {
  const char* p = skip(start, end);
  if (const char* e = keyword(p, end, "ROOT")) {
    out.is_root = true;
    p = skip(e, end);
  }
  p = name(p, end, out.name);
  if (p) p = literal_char(skip(p, end), end, '=');
  if (!p) return false;
  p = skip(p, end);
  if (const char* e = scan::shape_text(p, end)) {
    out.shape = text(p, e);
    p = e;
  }
  p = call(skip(p, end), end, out);
  if (!p) return false;
  while (const char* comma = literal_char(skip(p, end), end, ',')) {
    p = attribute(comma, end, out.attributes.emplace_back());
    if (!p) return false;
  }
  start = p;
  return true;
}

}  // namespace

bool read_plain_instruction(const char*& p, const char* end, ast::Instruction& out) {
  try {
    return read(p, end, out);
  } catch (const SyntaxError&) {
    return false;  // the grammar reads it again and reports the error where it finds it
  }
}

}  // namespace hlo_index::parser
