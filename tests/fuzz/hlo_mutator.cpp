#include "hlo_mutator.hpp"

#include <cstddef>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace hlo_index::fuzz {

namespace {

// The attributes that name computations.
constexpr std::string_view k_callee_attributes[] = {
    "calls=", "to_apply=", "body=", "condition=", "branch_computations=", "called_computations=", "comparator="};

struct Span {
  std::size_t begin = 0, end = 0;  // [begin, end) within a line
};

// The end of a value starting at `at`: the next `,` or `)` outside brackets, braces,
// parentheses and quotes, or the line's end.
std::size_t value_end(const std::string& line, std::size_t at) {
  int depth = 0;
  bool quoted = false;
  for (std::size_t k = at; k < line.size(); ++k) {
    const char c = line[k];
    if (quoted) {
      if (c == '\\')
        ++k;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"')
      quoted = true;
    else if (c == '{' || c == '[' || c == '(')
      ++depth;
    else if (c == '}' || c == ']' || c == ')') {
      if (depth == 0) return k;
      --depth;
    } else if (c == ',' && depth == 0) {
      return k;
    }
  }
  return line.size();
}

// An instruction line: `[ROOT] %name = SHAPE opcode(operands), attributes`.
struct InstructionLine {
  Span shape, operands;        // operands: inside the parentheses
  std::size_t attributes = 0;  // where `, attr=...` begin (after the operands' `)`)
};

std::optional<InstructionLine> instruction_line(const std::string& line) {
  const std::size_t eq = line.find(" = ");
  if (eq == std::string::npos || line.find('{') < eq) return std::nullopt;
  InstructionLine out;
  out.shape.begin = eq + 3;
  if (out.shape.begin >= line.size()) return std::nullopt;
  if (line[out.shape.begin] == '(') {
    out.shape.end = value_end(line, out.shape.begin + 1);
    if (out.shape.end >= line.size()) return std::nullopt;
    ++out.shape.end;  // the closing parenthesis
  } else {
    out.shape.end = line.find(' ', out.shape.begin);
    if (out.shape.end == std::string::npos) return std::nullopt;
  }
  const std::size_t open = line.find('(', out.shape.end);
  if (open == std::string::npos) return std::nullopt;
  out.operands = {open + 1, value_end(line, open + 1)};
  while (out.operands.end < line.size() && line[out.operands.end] != ')')
    out.operands.end = value_end(line, out.operands.end + 1);
  if (out.operands.end >= line.size()) return std::nullopt;
  out.attributes = out.operands.end + 1;
  return out;
}

// The value of a callee attribute in `line`, or none.
std::optional<Span> callee_value(const std::string& line, std::size_t from) {
  for (std::string_view a : k_callee_attributes) {
    const std::size_t at = line.find(a, from);
    if (at == std::string::npos || (at > 0 && line[at - 1] != ' ' && line[at - 1] != ',')) continue;
    const std::size_t begin = at + a.size();
    return Span{begin, value_end(line, begin)};
  }
  return std::nullopt;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

class Mutator {
public:
  Mutator(std::string_view text, std::uint64_t seed) : m_lines(split_lines(text)), m_random(seed) {
    for (std::size_t k = 0; k < m_lines.size(); ++k) {
      if (instruction_line(m_lines[k])) m_instructions.push_back(k);
      if (m_lines[k].rfind("ENTRY ", 0) == 0) {
        const std::size_t name = m_lines[k].find_first_not_of(" %", 6);
        const std::size_t end = m_lines[k].find_first_of(" ({", name);
        if (name != std::string::npos && end != std::string::npos) m_entry = m_lines[k].substr(name, end - name);
      }
    }
  }

  std::string run() {
    if (m_instructions.empty()) return join();
    const std::size_t edits = 1 + pick(3);
    for (std::size_t e = 0; e < edits; ++e) {
      switch (pick(7)) {
        case 0: swap_callees(); break;
        case 1: swap_while_roles(); break;
        case 2: take_shape(); break;
        case 3: copy_attribute(); break;
        case 4: drop_operand(); break;
        case 5: repeat_operand(); break;
        default: call_entry(); break;
      }
    }
    return join();
  }

private:
  // mt19937_64's sequence is fixed by the standard (a distribution's is not): the same mutant
  // on every machine.
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(m_random() % n); }
  std::string& any_instruction() { return m_lines[m_instructions[pick(m_instructions.size())]]; }

  std::vector<std::size_t> lines_with_callees() {
    std::vector<std::size_t> out;
    for (std::size_t k : m_instructions) {
      if (callee_value(m_lines[k], 0)) out.push_back(k);
    }
    return out;
  }

  void swap_callees() {
    const std::vector<std::size_t> callers = lines_with_callees();
    if (callers.size() < 2) return;
    std::string& a = m_lines[callers[pick(callers.size())]];
    std::string& b = m_lines[callers[pick(callers.size())]];
    if (&a == &b) return;
    const Span sa = *callee_value(a, 0), sb = *callee_value(b, 0);
    const std::string va = a.substr(sa.begin, sa.end - sa.begin), vb = b.substr(sb.begin, sb.end - sb.begin);
    a.replace(sa.begin, sa.end - sa.begin, vb);
    b.replace(sb.begin, sb.end - sb.begin, va);
  }

  void swap_while_roles() {
    for (std::size_t k : m_instructions) {
      std::string& line = m_lines[k];
      const std::size_t c = line.find("condition="), b = line.find("body=");
      if (c == std::string::npos || b == std::string::npos) continue;
      const std::size_t ce = value_end(line, c + 10), be = value_end(line, b + 5);
      const std::string cv = line.substr(c + 10, ce - c - 10), bv = line.substr(b + 5, be - b - 5);
      // The later one first, so the earlier position stays valid.
      if (c > b) {
        line.replace(c + 10, ce - c - 10, bv);
        line.replace(b + 5, be - b - 5, cv);
      } else {
        line.replace(b + 5, be - b - 5, cv);
        line.replace(c + 10, ce - c - 10, bv);
      }
      return;
    }
  }

  void take_shape() {
    std::string& a = any_instruction();
    const std::string& b = any_instruction();
    const auto la = instruction_line(a), lb = instruction_line(b);
    if (!la || !lb) return;
    const std::string shape = b.substr(lb->shape.begin, lb->shape.end - lb->shape.begin);
    a.replace(la->shape.begin, la->shape.end - la->shape.begin, shape);
  }

  void copy_attribute() {
    std::string& a = any_instruction();
    const std::string& b = any_instruction();
    const auto la = instruction_line(a), lb = instruction_line(b);
    if (!la || !lb || lb->attributes >= b.size()) return;
    // One `, name=value` of b, appended to a.
    std::vector<Span> attributes;
    for (std::size_t at = lb->attributes; at < b.size() && b[at] == ',';) {
      const std::size_t equals = b.find('=', at);
      const std::size_t end = value_end(b, equals == std::string::npos ? b.size() : equals + 1);
      attributes.push_back({at, end});
      at = end;
    }
    if (attributes.empty()) return;
    const Span s = attributes[pick(attributes.size())];
    a += b.substr(s.begin, s.end - s.begin);
  }

  void drop_operand() {
    std::string& a = any_instruction();
    const auto la = instruction_line(a);
    if (!la || la->operands.begin == la->operands.end) return;
    const std::size_t comma = a.rfind(',', la->operands.end);
    if (comma == std::string::npos || comma < la->operands.begin) {
      a.erase(la->operands.begin, la->operands.end - la->operands.begin);
    } else {
      a.erase(comma, la->operands.end - comma);
    }
  }

  void repeat_operand() {
    std::string& a = any_instruction();
    const auto la = instruction_line(a);
    if (!la || la->operands.begin == la->operands.end) return;
    const std::size_t first_end = value_end(a, la->operands.begin);
    const std::string first = a.substr(la->operands.begin, first_end - la->operands.begin);
    a.insert(la->operands.end, ", " + first);
  }

  void call_entry() {
    if (m_entry.empty()) return;
    const std::vector<std::size_t> callers = lines_with_callees();
    if (callers.empty()) return;
    std::string& a = m_lines[callers[pick(callers.size())]];
    const Span s = *callee_value(a, 0);
    a.replace(s.begin, s.end - s.begin, "%" + m_entry);
  }

  std::string join() const {
    std::string out;
    for (std::size_t k = 0; k < m_lines.size(); ++k) {
      if (k) out += '\n';
      out += m_lines[k];
    }
    return out;
  }

  std::vector<std::string> m_lines;
  std::vector<std::size_t> m_instructions;  // line numbers of instruction lines
  std::string m_entry;
  std::mt19937_64 m_random;
};

}  // namespace

std::string mutate_hlo(std::string_view text, std::uint64_t seed) { return Mutator(text, seed).run(); }

}  // namespace hlo_index::fuzz
