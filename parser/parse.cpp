// The driver: walks modules, computations and instructions, calls the X3 rules
// for each statement and builds the hlo::Module as it goes.
#include "parser/parse.hpp"

#include <fmt/format.h>
#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "parser/ast.hpp"
#include "parser/attributes.hpp"
#include "parser/call_checks.hpp"
#include "parser/checks.hpp"
#include "parser/config.hpp"
#include "parser/document.hpp"
#include "parser/grammar.hpp"
#include "parser/name_table.hpp"
#include "parser/op_traits.hpp"
#include "parser/plain_instruction.hpp"
#include "parser/result_shapes.hpp"
#include "parser/scanners.hpp"
#include "parser/syntax_error.hpp"

namespace hlo_index::parser {
namespace {

namespace x3 = boost::spirit::x3;

bool starts_with_keyword(const char* p, const char* end, std::string_view word) {
  auto n = static_cast<std::size_t>(end - p);
  return n >= word.size() && std::string_view(p, word.size()) == word &&
         (n == word.size() || !scan::is_name_char(p[word.size()]));
}

bool is_table_keyword(const char* p, const char* end) {
  return starts_with_keyword(p, end, "FileNames") || starts_with_keyword(p, end, "FunctionNames") ||
         starts_with_keyword(p, end, "FileLocations") || starts_with_keyword(p, end, "StackFrames");
}

// A byte no token of HLO text starts with: a control character other than a line
// end or tab, DEL, or a non-ASCII byte (allowed in strings and comments only).
bool is_foreign_byte(unsigned char byte) {
  return byte >= 0x7f || (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r');
}

// Runs `rule` at `p`; on success advances `p`. Expectation failures become SyntaxErrors.
template <typename Rule, typename Attr>
bool run(const Rule& rule, const char*& p, const char* end, Attr& attr) {
  try {
    return x3::phrase_parse(p, end, rule, grammar::blank, attr, x3::skip_flag::dont_post_skip);
  } catch (const x3::expectation_failure<const char*>& e) {
    // Point at the next token on the same line, or at the end of the line.
    const char* where = e.where();
    while (where < end && (*where == ' ' || *where == '\t')) ++where;
    throw SyntaxError{where, grammar::expected_text(e)};
  }
}

// Why the shape grammar rejected `text` at its first character.
std::string shape_failure(std::string_view text) {
  std::string_view type = text.substr(0, text.find_first_of(" \t["));
  return type.size() < text.size() ? fmt::format("unknown element type '{}'", type) : std::string("expected shape");
}

// Thrown once the diagnostics engine is full: the rest of the input is not parsed.
struct TooManyErrors {};

class ModuleBuilder {
public:
  ModuleBuilder(const SourceFilePtr& source, DiagnosticEngine& diagnostics, const ParseOptions& options,
                const ModuleSink& out)
      : m_source(source), m_diagnostics(diagnostics), m_options(options), m_out(out), m_checker(diagnostics) {}

  /// Modules handed to the sink so far.
  std::size_t modules_parsed() const { return m_modules_parsed; }

  void parse_region(std::string_view region);

private:
  void start_module();
  void finish_module();
  const char* parse_statements(const char* p, const char* end);
  const char* parse_header(const char* p, const char* end);
  const char* parse_table(const char* p, const char* end);
  const char* parse_computation(const char* p, const char* end);
  std::uint32_t add_instruction(const ast::Instruction& a, hlo::Computation& computation,
                                std::uint32_t computation_index, const char* where);
  std::uint32_t add_inline_operand(const ast::Operand& operand, std::string_view user, std::size_t k,
                                   hlo::Computation& computation, std::uint32_t computation_index);
  std::vector<std::uint32_t> add_inline_operands(const ast::Instruction& a, hlo::Computation& computation,
                                                 std::uint32_t computation_index);
  void add_operands(const ast::Instruction& a, const std::vector<std::uint32_t>& inline_ids,
                    hlo::Computation& computation);
  void check_operand_shape(const ast::Operand& operand, const hlo::Instruction& def);
  void add_attributes(const ast::Instruction& a, hlo::Computation& computation, std::uint32_t computation_index);
  void set_literal(std::string_view literal, hlo::Instruction& ins);
  hlo::ShapeId infer_shape(const ast::Instruction& a, const hlo::Computation& computation, const char* where);
  hlo::Shape infer_by_rule(const ast::Instruction& a, const hlo::Computation& computation);
  std::uint16_t unknown_opcode_index(std::string_view opcode);
  template <typename Count>
  Count narrow_count(std::size_t count, const char* where, const char* what);
  void finish_computation(hlo::Computation& computation, const char* open_brace);
  void complete(hlo::Computation& computation, const char* open_brace);
  hlo::ShapeId intern_shape(std::string_view text) { return intern_shape(HashedName(text)); }
  hlo::ShapeId intern_shape(const HashedName& hashed);
  void resolve_callees();
  void check_shape(const hlo::Shape& shape, const char* where);
  void check_parameters(const hlo::Computation& computation);
  [[noreturn]] void unexpected_statement(const char* p, const char* end);
  [[noreturn]] void no_instruction(const char* statement, const char* end);
  void error(const char* where, std::string message) { m_diagnostics.error_at(*m_source, where, std::move(message)); }

  const SourceFilePtr& m_source;
  DiagnosticEngine& m_diagnostics;
  const ParseOptions& m_options;
  const ModuleSink& m_out;
  std::size_t m_modules_parsed = 0;
  bool m_truncated = false;  // the current module ended inside a computation (allow_truncated)

  hlo::Module m_module;
  bool m_module_open = false;
  const char* m_module_start = nullptr;
  std::size_t m_errors_at_start = 0;
  NameTable m_shape_ids;         // shape text -> ShapeId
  NameTable m_computation_ids;   // computation name -> index
  IndexTable m_instruction_ids;  // instruction name -> index in the current computation
  // The name of instruction `id` of the computation being parsed, for m_instruction_ids.
  std::string_view instruction_name(std::uint32_t id) const { return m_computation.instructions[id].name; }
  auto name_of() const {
    return [this](std::uint32_t id) { return instruction_name(id); };
  }
  NameTable m_unknown_opcode_ids;      // unknown opcode -> index in m_module.unknown_opcodes
  std::vector<NamedCallee> m_callees;  // every calls=, to_apply=, ... name, resolved when the module is complete
  // The instructions of the module whose op calls computations, for check_call_sites: a second
  // pass over every instruction of the module would cost more than the checks.
  std::vector<CallSite> m_calls;
  ParameterTable m_parameter_table;          // every computation's parameters by number
  std::uint32_t m_roots = 0;                 // instructions written ROOT in the current computation
  std::uint32_t m_first_root = hlo::k_none;  // the first of them
  std::vector<std::pair<std::int64_t, std::uint32_t>> m_parameters;  // (number, instruction) in the computation
  InstructionChecker m_checker;
  ast::Instruction m_instruction;                // reused: its vectors keep their capacity
  hlo::Computation m_computation;                // the one being parsed; reused likewise
  std::vector<std::string_view> m_callee_names;  // reused buffer for calls=, to_apply=, ...
  std::vector<HashedName> m_operand_names;       // reused: the operands of the instruction being added
};

void ModuleBuilder::parse_region(std::string_view region) {
  const char* p = region.data();
  const char* end = region.data() + region.size();
  while (true) {
    try {
      parse_statements(p, end);
      finish_module();
      return;
    } catch (const SyntaxError& e) {
      error(e.where, e.message);
      m_module_open = false;
      if (m_diagnostics.too_many_errors()) return;
      // Resume at the next module header, if the region has another one.
      std::string_view rest(e.where, static_cast<std::size_t>(end - e.where));
      std::size_t next = rest.find("\nHloModule ");
      if (next == std::string_view::npos) return;
      p = e.where + next + 1;
    }
  }
}

void ModuleBuilder::start_module() {
  m_module = hlo::Module{};
  m_module.source = m_source;
  m_module_open = true;
  m_errors_at_start = m_diagnostics.error_count();
  m_shape_ids.clear();
  m_computation_ids.clear();
  m_unknown_opcode_ids.clear();
  m_callees.clear();
  m_calls.clear();
  m_parameter_table.clear();
  m_checker.start_module();
  m_truncated = false;
}

const char* ModuleBuilder::parse_statements(const char* p, const char* end) {
  while (true) {
    p = scan::skip_blank(p, end);
    if (p == end) return p;
    if (starts_with_keyword(p, end, "HloModule")) {
      if (m_module_open) finish_module();
      start_module();
      m_module_start = p;
      p = parse_header(p, end);
      continue;
    }
    if (!m_module_open) {
      start_module();
      m_module_start = p;
    }
    if (is_table_keyword(p, end))
      p = parse_table(p, end);
    else
      p = parse_computation(p, end);
  }
}

const char* ModuleBuilder::parse_header(const char* p, const char* end) {
  ast::ModuleHeader header;
  const char* keyword = p;
  run(grammar::module_header(), p, end, header);
  if (std::string_view(keyword, static_cast<std::size_t>(header.name.data() - keyword)).find('\n') !=
      std::string_view::npos)
    throw SyntaxError{keyword + 9, "expected the module name after 'HloModule'"};
  m_module.name = header.name;
  m_module.has_header = true;
  for (const ast::Attribute& a : header.attributes) m_module.attributes.push_back({a.name, a.value});
  return p;
}

const char* ModuleBuilder::parse_table(const char* p, const char* end) {
  ast::Table table;
  run(grammar::table(), p, end, table);
  hlo::StackFrameTable out{table.name, {}};
  for (const auto& [id, value] : table.entries) out.entries.push_back({id, value});
  m_module.stack_frame_tables.push_back(std::move(out));
  return p;
}

[[noreturn]] void ModuleBuilder::unexpected_statement(const char* p, const char* end) {
  if (starts_with_keyword(p, end, "hlo_module") || starts_with_keyword(p, end, "HloModuleProto"))
    throw SyntaxError{p,
                      "this is an HloModuleProto in protobuf text format; hlo-index reads HLO text "
                      "(as printed by HloModule::ToString)"};
  auto byte = static_cast<unsigned char>(*p);
  if (byte < 0x20 || byte >= 0x7f)
    throw SyntaxError{p, fmt::format("unexpected byte 0x{:02x}: this does not look like HLO text", byte)};
  throw SyntaxError{p, "expected 'HloModule', a computation or a stack frame table"};
}

// Empties `c` for the next computation, keeping the capacity of its large arrays.
void reset(hlo::Computation& c) {
  auto instructions = std::move(c.instructions);
  auto operands = std::move(c.operands);
  auto attributes = std::move(c.attributes);
  auto callees = std::move(c.callees);
  c = hlo::Computation{};
  c.instructions = std::move(instructions);
  c.operands = std::move(operands);
  c.attributes = std::move(attributes);
  c.callees = std::move(callees);
  c.instructions.clear();
  c.operands.clear();
  c.attributes.clear();
  c.callees.clear();
}

// Says why `statement` is not an instruction: "a = ..." with the '=' missing, or something else.
[[noreturn]] void ModuleBuilder::no_instruction(const char* statement, const char* end) {
  const char* p = statement;
  if (starts_with_keyword(p, end, "ROOT")) p = scan::skip_blank(p + 4, end);
  // Names are ASCII: other bytes (UTF-8 or not) are fine only in strings and comments.
  const char* first = p < end && *p == '%' ? p + 1 : p;
  if (first < end && is_foreign_byte(static_cast<unsigned char>(*first)))
    throw SyntaxError{
        first, fmt::format("unexpected byte 0x{:02x} in a name: names are ASCII", static_cast<unsigned char>(*first))};
  const char* name_begin;
  if (const char* after = scan::name(p, end, name_begin)) {
    while (after < end && (*after == ' ' || *after == '\t')) ++after;
    if (after < end && *after != '\n' && *after != '\r' && *after != '=')
      throw SyntaxError{after, "expected '=' after the instruction name"};
  }
  throw SyntaxError{statement, "expected an instruction or '}'"};
}

const char* ModuleBuilder::parse_computation(const char* p, const char* end) {
  const char* start = p;
  if (starts_with_keyword(p, end, "hlo_module") || starts_with_keyword(p, end, "HloModuleProto"))
    unexpected_statement(p, end);
  ast::ComputationHeader header;
  if (!run(grammar::computation_header(), p, end, header)) unexpected_statement(start, end);
  const char* open_brace = p - 1;

  auto index = static_cast<std::uint32_t>(m_module.computations.size());
  if (!m_computation_ids.insert(header.name, index))
    error(header.name.data(), fmt::format("redefinition of computation '{}'", header.name));
  // Built in the reused m_computation, whose arrays keep their capacity from one computation to
  // the next; finish_computation appends an exact-size copy to the module.
  hlo::Computation& computation = m_computation;
  reset(computation);
  computation.name = header.name;
  computation.is_entry = header.is_entry;
  for (const ast::Parameter& param : header.parameters)
    computation.signature.push_back({param.name, intern_shape(param.shape)});
  if (header.has_signature) computation.signature_result = intern_shape(header.result);

  m_instruction_ids.clear();
  m_roots = 0;
  m_first_root = hlo::k_none;
  m_parameters.clear();
  while (true) {
    p = scan::skip_blank(p, end);
    if (p == end && m_options.allow_truncated) {
      m_diagnostics.warning_at(*m_source, open_brace,
                               fmt::format("computation '{}' is not closed: the input looks truncated; keeping its "
                                           "{} instructions",
                                           header.name, computation.instructions.size()));
      m_truncated = true;
      finish_computation(computation, open_brace);
      return p;
    }
    if (p == end)
      throw SyntaxError{open_brace, fmt::format("computation '{}' is not closed: expected '}}' before the end of "
                                                "the input (a dump cut off here? --allow-truncated keeps what is "
                                                "there, with a warning)",
                                                header.name)};
    if (*p == '}') {
      ++p;
      break;
    }
    const char* statement = p;
    m_instruction.clear();
    if (!read_plain_instruction(p, end, m_instruction)) {  // the common form, read without X3
      m_instruction.clear();
      if (!run(grammar::instruction(), p, end, m_instruction)) no_instruction(statement, end);
    }
    add_instruction(m_instruction, computation, index, m_instruction.name.data());
    if (m_diagnostics.too_many_errors()) throw TooManyErrors{};
  }
  ast::Trailer trailer;
  run(grammar::trailer(), p, end, trailer);
  for (const ast::Attribute& a : trailer.attributes) computation.trailing_attributes.push_back({a.name, a.value});
  finish_computation(computation, open_brace);
  return p;
}

std::uint32_t ModuleBuilder::add_inline_operand(const ast::Operand& operand, std::string_view user, std::size_t k,
                                                hlo::Computation& computation, std::uint32_t computation_index) {
  ast::Instruction nested;
  const char* p = operand.shape.data();
  const char* end = operand.nested.data() + operand.nested.size();
  run(grammar::inline_instruction(), p, end, nested);
  nested.name =
      *m_module.synthesized_text.emplace_back(std::make_unique<std::string>(fmt::format("{}.operand{}", user, k)));
  // The made-up name is not in the source: diagnostics point at the operand's text.
  return add_instruction(nested, computation, computation_index, operand.shape.data());
}

// Registers an opcode hlo-index does not know (with a warning, once per module).
std::uint16_t ModuleBuilder::unknown_opcode_index(std::string_view opcode) {
  auto& known = m_module.unknown_opcodes;
  // A table, not a search of `known`: a module may have tens of thousands of them.
  if (std::uint32_t index = m_unknown_opcode_ids.find(opcode); index != NameTable::k_absent)
    return static_cast<std::uint16_t>(index);
  if (known.size() == 0xffff) throw SyntaxError{opcode.data(), "more than 65535 distinct unknown opcodes"};
  m_diagnostics.warning_at(*m_source, opcode.data(),
                           fmt::format("unknown opcode '{}': kept, but hlo-index cannot analyse it", opcode));
  m_unknown_opcode_ids.insert(opcode, static_cast<std::uint32_t>(known.size()));
  known.push_back(opcode);
  return static_cast<std::uint16_t>(known.size() - 1);
}

// `count` as the narrow type Instruction stores it in, or an error at `where`.
template <typename Count>
Count ModuleBuilder::narrow_count(std::size_t count, const char* where, const char* what) {
  if (count > std::numeric_limits<Count>::max())
    throw SyntaxError{where, fmt::format("an instruction with {} {} is more than hlo-index supports ({})", count, what,
                                         std::numeric_limits<Count>::max())};
  return static_cast<Count>(count);
}

// A left-out result shape by the op's result-shape rule (result_shapes.cpp), from
// the operands' shapes (as written, or as defined) and the attributes.
hlo::Shape ModuleBuilder::infer_by_rule(const ast::Instruction& a, const hlo::Computation& computation) {
  std::vector<hlo::ShapeId> ids;
  for (const ast::Operand& operand : a.operands) {
    std::uint32_t id =
        operand.name.empty() ? NameTable::k_absent : m_instruction_ids.find(HashedName(operand.name), name_of());
    if (!operand.shape.empty())
      ids.push_back(intern_shape(operand.shape));
    else if (id != NameTable::k_absent)
      ids.push_back(computation.instructions[id].shape);
    else
      throw SyntaxError{operand.name.data(), fmt::format("use of undefined value '{}'", operand.name)};
  }
  std::vector<const hlo::Shape*> operands;
  operands.reserve(ids.size());
  for (hlo::ShapeId id : ids) operands.push_back(&m_module.shapes[id]);
  std::vector<hlo::Attribute> attributes;
  for (const ast::Attribute& attr : a.attributes) attributes.push_back({attr.name, attr.value});
  auto inferred = infer_result_shape(hlo::opcode_from_string(a.opcode), operands, attributes);
  if (auto* shape = std::get_if<hlo::Shape>(&inferred)) return std::move(*shape);
  if (auto* problem = std::get_if<ResultShapeError>(&inferred))
    throw SyntaxError{problem->at.empty() ? a.opcode.data() : problem->at.data(), std::move(problem->message)};
  bool has_rule = hlo::op_traits(hlo::opcode_from_string(a.opcode)).result != hlo::ShapeRule::kNone;
  throw SyntaxError{a.opcode.data(),
                    fmt::format("expected shape: the result shape of '{}' cannot be inferred {}", a.opcode,
                                has_rule ? "from these operands and attributes (write it out)"
                                         : "(hlo-index has no shape rule for this op)")};
}

// `where`: as for add_instruction.
hlo::ShapeId ModuleBuilder::infer_shape(const ast::Instruction& a, const hlo::Computation& computation,
                                        const char* where) {
  // A wrong operand count is the problem to report, not the shape it leaves unknown.
  if (const hlo::Opcode opcode = hlo::opcode_from_string(a.opcode); opcode != hlo::Opcode::kUnknown) {
    const bool sparse = std::any_of(a.attributes.begin(), a.attributes.end(),
                                    [](const ast::Attribute& attr) { return attr.name == "sparsity"; });
    if (auto problem = operand_count_problem(opcode, a.operands.size(), sparse)) throw SyntaxError{where, *problem};
  }
  auto operand_shape = [&](const ast::Operand& operand) -> const hlo::Shape* {
    std::uint32_t id = m_instruction_ids.find(HashedName(operand.name), name_of());
    if (operand.name.empty() || id == NameTable::k_absent) return nullptr;
    return &m_module.shapes[computation.instructions[id].shape];
  };
  hlo::Shape shape;
  bool known = false;
  if (a.opcode == "tuple") {
    shape.is_tuple = known = true;
    for (const ast::Operand& operand : a.operands) {
      const hlo::Shape* s = operand_shape(operand);
      if (!s)
        known = false;
      else
        shape.elements.push_back(*s);
    }
  } else if (a.opcode == "get-tuple-element" && a.operands.size() == 1) {
    const hlo::Shape* tuple = operand_shape(a.operands[0]);
    std::optional<std::int64_t> index;
    for (const ast::Attribute& attr : a.attributes)
      if (attr.name == "index") index = parse_int(attr.value);
    if (tuple && tuple->is_tuple && index && *index >= 0 && static_cast<std::size_t>(*index) < tuple->elements.size()) {
      shape = tuple->elements[static_cast<std::size_t>(*index)];
      known = true;
    }
  }
  if (!known) shape = infer_by_rule(a, computation);
  m_module.shapes.push_back(std::move(shape));
  return static_cast<hlo::ShapeId>(m_module.shapes.size() - 1);
}

// `where` locates the instruction in the source for diagnostics: `a.name`, except
// for inline operand instructions, whose names are made up.
std::uint32_t ModuleBuilder::add_instruction(const ast::Instruction& a, hlo::Computation& computation,
                                             std::uint32_t computation_index, const char* where) {
  // Problems anywhere in this instruction's text (inline operands included) make its result shape
  // unreliable to check.
  const std::size_t errors_before = m_diagnostics.error_count();
  // Inline operand instructions come first, so the user's operands can name them.
  const std::vector<std::uint32_t> inline_ids = add_inline_operands(a, computation, computation_index);
  // Hash each name once, and start every table lookup of this instruction at once so their cache
  // misses overlap. (m_operand_names is filled after the inline operands, which use it too.)
  const HashedName shape(a.shape);
  const HashedName name(a.name);
  m_shape_ids.prefetch(shape);
  m_instruction_ids.prefetch(name);  // the slot its insert below takes
  m_operand_names.clear();
  for (const ast::Operand& operand : a.operands) m_instruction_ids.prefetch(m_operand_names.emplace_back(operand.name));
  // Built in place: a local copied in at the end stalled on the copy (a store-forwarding miss)
  // once per instruction. (A SyntaxError part-way leaves it half-built, but abandons the module.)
  const auto id = static_cast<std::uint32_t>(computation.instructions.size());
  hlo::Instruction& ins = computation.instructions.emplace_back();
  ins.name = a.name;
  ins.is_root = a.is_root;
  ins.opcode = hlo::opcode_from_string(a.opcode);
  if (ins.opcode == hlo::Opcode::kUnknown) ins.unknown_opcode = unknown_opcode_index(a.opcode);
  ins.shape = a.shape.empty() ? infer_shape(a, computation, where) : intern_shape(shape);

  ins.first_operand = static_cast<std::uint32_t>(computation.operands.size());
  add_operands(a, inline_ids, computation);
  ins.operand_count = static_cast<std::uint32_t>(a.operands.size());

  ins.first_attribute = static_cast<std::uint32_t>(computation.attributes.size());
  ins.first_callee = static_cast<std::uint32_t>(computation.callees.size());
  const auto first_named = static_cast<std::uint32_t>(m_callees.size());
  add_attributes(a, computation, computation_index);
  ins.attribute_count = narrow_count<std::uint16_t>(a.attributes.size(), where, "attributes");
  ins.callee_count =
      narrow_count<std::uint16_t>(computation.callees.size() - ins.first_callee, where, "called computations");

  if (a.has_literal) set_literal(a.literal, ins);

  if (!m_instruction_ids.insert(name, id, name_of()))
    error(where, fmt::format("redefinition of '{}' in computation '{}'", a.name, computation.name));
  if (ins.is_root && m_roots++ == 0) m_first_root = id;
  if (ins.opcode == hlo::Opcode::kParameter && ins.parameter_number >= 0)
    m_parameters.emplace_back(ins.parameter_number, id);
  if (hlo::op_traits(ins.opcode).callees != hlo::CalleeRule::kNone)
    m_calls.push_back({computation_index, id, where, first_named});
  m_checker.check(m_module, computation, ins, where, errors_before);
  return id;
}

// The ids of `a`'s inline operand instructions by operand position (hlo::k_none
// for named operands); empty when it has none.
std::vector<std::uint32_t> ModuleBuilder::add_inline_operands(const ast::Instruction& a, hlo::Computation& computation,
                                                              std::uint32_t computation_index) {
  std::vector<std::uint32_t> inline_ids;
  for (std::size_t k = 0; k < a.operands.size(); ++k) {
    if (a.operands[k].nested.empty()) continue;
    inline_ids.resize(a.operands.size(), hlo::k_none);
    inline_ids[k] = add_inline_operand(a.operands[k], a.name, k, computation, computation_index);
  }
  return inline_ids;
}

// Appends `a`'s operand ids to `computation.operands`; an undefined name leaves hlo::k_none.
void ModuleBuilder::add_operands(const ast::Instruction& a, const std::vector<std::uint32_t>& inline_ids,
                                 hlo::Computation& computation) {
  for (std::size_t k = 0; k < a.operands.size(); ++k) {
    const ast::Operand& operand = a.operands[k];
    if (!inline_ids.empty() && inline_ids[k] != hlo::k_none) {
      computation.operands.push_back(inline_ids[k]);
      continue;
    }
    std::uint32_t operand_id = m_instruction_ids.find(m_operand_names[k], name_of());
    if (operand_id == NameTable::k_absent) {
      error(operand.name.data(), fmt::format("use of undefined value '{}'", operand.name));
      computation.operands.push_back(hlo::k_none);
      continue;
    }
    computation.operands.push_back(operand_id);
    if (!operand.shape.empty()) check_operand_shape(operand, computation.instructions[operand_id]);
  }
}

// An operand written with its shape (`f32[4] %x`) must be declared as `def` defines it, layout aside.
void ModuleBuilder::check_operand_shape(const ast::Operand& operand, const hlo::Instruction& def) {
  hlo::ShapeId declared = intern_shape(operand.shape);
  const hlo::Shape& want = m_module.shapes[def.shape];
  const hlo::Shape& got = m_module.shapes[declared];
  if (declared == def.shape || hlo::same_ignoring_layout(want, got)) return;
  error(operand.shape.data(), fmt::format("operand '{}' is declared as {} but is defined as {}", operand.name,
                                          hlo::to_string_without_layout(got), hlo::to_string_without_layout(want)));
}

// Appends `a`'s attributes, and a pending callee for each computation its
// calls=, to_apply=, ... name (resolved when the module is complete).
void ModuleBuilder::add_attributes(const ast::Instruction& a, hlo::Computation& computation,
                                   std::uint32_t computation_index) {
  // One error per repeated name, at its second occurrence: a name repeated n times must
  // not give n^2 errors, nor cost n^2 comparisons when n is large.
  constexpr std::size_t k_few = 16;  // the usual case, where comparing beats hashing
  const bool many = a.attributes.size() > k_few;
  // Made only when `many`: an empty map made and dropped per instruction cost more than the comparisons.
  std::optional<std::unordered_map<std::string_view, std::size_t>> seen;
  if (many) seen.emplace();
  for (std::size_t k = 0; k < a.attributes.size(); ++k) {
    const ast::Attribute& attr = a.attributes[k];
    auto same_name = [&](const ast::Attribute& other) { return other.name == attr.name; };
    const bool second = many ? ++(*seen)[attr.name] == 2
                             : std::count_if(a.attributes.begin(),
                                             a.attributes.begin() + static_cast<std::ptrdiff_t>(k), same_name) == 1;
    if (second) error(attr.name.data(), fmt::format("repeated attribute '{}'", attr.name));
    computation.attributes.push_back({attr.name, attr.value});
    if (!is_computation_attribute(attr.name)) continue;
    AttributeError problem;
    if (!parse_computation_list(attr.value, m_callee_names, &problem)) {
      error(attr.value.data() + problem.offset, problem.message);
      continue;
    }
    for (std::string_view name : m_callee_names) {
      m_callees.push_back(
          {computation_index, static_cast<std::uint32_t>(computation.callees.size()), hlo::k_none, attr.name, name});
      computation.callees.push_back(hlo::k_none);
    }
  }
}

// The literal in parentheses (`constant(1)`, `parameter(0)`); a parameter's is its number.
void ModuleBuilder::set_literal(std::string_view literal, hlo::Instruction& ins) {
  ins.literal = literal;
  if (ins.opcode != hlo::Opcode::kParameter) return;
  AttributeError problem;
  auto number = parse_int(literal, &problem);
  if (!number || *number < 0)
    error(scan::skip_blank(literal.data(), literal.data() + literal.size()), "expected a parameter number");
  else
    ins.parameter_number = *number;
}

// Appends `computation` (m_computation) to the module as an exact-size copy: modules stay in
// memory whole, so no growth slack, and each array is written once where it stays.
void ModuleBuilder::finish_computation(hlo::Computation& computation, const char* open_brace) {
  complete(computation, open_brace);
  for (const auto& [number, id] : m_parameters) m_parameter_table.add(id);  // by number (check_parameters)
  m_parameter_table.end_computation();
  m_module.computations.push_back(computation);
}

void ModuleBuilder::complete(hlo::Computation& computation, const char* open_brace) {
  if (computation.instructions.empty()) {
    error(open_brace, fmt::format("computation '{}' has no instructions; it needs a ROOT", computation.name));
    return;
  }
  // One ROOT (the usual case) needs no search; more are each reported.
  if (m_roots == 1) computation.root = m_first_root;
  for (std::uint32_t i = 0; m_roots > 1 && i < computation.instructions.size(); ++i) {
    if (!computation.instructions[i].is_root) continue;
    if (computation.root != hlo::k_none)
      error(computation.instructions[i].name.data(),
            fmt::format("second ROOT in computation '{}' (the first is '{}')", computation.name,
                        computation.instructions[computation.root].name));
    else
      computation.root = i;
  }
  if (computation.root == hlo::k_none) {
    computation.root = static_cast<std::uint32_t>(computation.instructions.size() - 1);
    computation.instructions.back().is_root = true;
  }
  check_parameters(computation);
}

hlo::ShapeId ModuleBuilder::intern_shape(const HashedName& hashed) {
  if (std::uint32_t known = m_shape_ids.find(hashed); known != NameTable::k_absent) return known;
  const std::string_view text = hashed.text;
  hlo::Shape shape;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  if (!run(grammar::shape(), p, end, shape)) throw SyntaxError{text.data(), shape_failure(text)};
  if (p != end) throw SyntaxError{p, "unexpected text in shape"};
  check_shape(shape, text.data());
  auto id = static_cast<hlo::ShapeId>(m_module.shapes.size());
  m_module.shapes.push_back(std::move(shape));
  m_shape_ids.insert(hashed, id);
  return id;
}

// Layout ranks and element counts; `where` is the start of the shape's text.
void ModuleBuilder::check_shape(const hlo::Shape& shape, const char* where) {
  if (shape.is_tuple) {
    for (const hlo::Shape& element : shape.elements) check_shape(element, where);
    return;
  }
  bool dynamic =
      std::find(shape.dim_kinds.begin(), shape.dim_kinds.end(), hlo::DimKind::kUnbounded) != shape.dim_kinds.end();
  if (!dynamic && !shape.element_count())
    throw SyntaxError{
        where, fmt::format("shape {} has more elements than a signed 64-bit integer can count", hlo::to_string(shape))};
  if (!shape.layout) return;
  // Tiles: positive sizes or '*' (-1), never '*' last (the offset maps need it).
  for (const hlo::Tile& tile : shape.layout->tiles) {
    for (std::size_t k = 0; k < tile.dims.size(); ++k) {
      const std::int64_t t = tile.dims[k];
      const bool combined = t == hlo::k_combined_tile_dim || t == -1;
      if (!combined && t <= 0)
        throw SyntaxError{where, fmt::format("tile size {} in layout {} must be positive (or '*')", t,
                                             hlo::to_string(*shape.layout))};
      if (combined && k + 1 == tile.dims.size())
        throw SyntaxError{where, fmt::format("a tile of layout {} ends in '*': there is no more-minor dimension to "
                                             "combine with",
                                             hlo::to_string(*shape.layout))};
    }
  }
  if (shape.layout->minor_to_major.empty() && shape.rank() != 0) return;
  std::vector<bool> seen(shape.rank(), false);
  bool ok = shape.layout->minor_to_major.size() == shape.rank();
  for (std::int64_t d : shape.layout->minor_to_major) {
    if (!ok || d < 0 || static_cast<std::size_t>(d) >= shape.rank() || seen[static_cast<std::size_t>(d)]) {
      ok = false;
      break;
    }
    seen[static_cast<std::size_t>(d)] = true;
  }
  if (!ok)
    throw SyntaxError{where, fmt::format("layout {} is not a permutation of the {} dimensions of the shape",
                                         hlo::to_string(*shape.layout), shape.rank())};
}

// The body's parameter numbers are 0, 1, ..., n-1, each once (XLA's HloComputation
// requires it). A signature may list fewer parameters than the body uses: XLA's parser
// accepts that, and published dumps contain it. Leaves m_parameters sorted by number.
void ModuleBuilder::check_parameters(const hlo::Computation& computation) {
  std::vector<std::pair<std::int64_t, std::uint32_t>>& numbers = m_parameters;  // recorded as they were added
  std::sort(numbers.begin(), numbers.end());
  bool repeated = false;
  for (std::size_t n = 1; n < numbers.size(); ++n) {
    if (numbers[n].first != numbers[n - 1].first) continue;
    const hlo::Instruction& second = computation.instructions[numbers[n].second];
    error(second.literal.data(), fmt::format("parameter({}) is defined twice in '{}' (first by '{}')", numbers[n].first,
                                             computation.name, computation.instructions[numbers[n - 1].second].name));
    repeated = true;
  }
  // A computation cut off by a truncated input may lack parameters it has.
  for (std::size_t n = 0; !repeated && !m_truncated && n < numbers.size(); ++n) {
    if (numbers[n].first == static_cast<std::int64_t>(n)) continue;
    const hlo::Instruction& after_gap = computation.instructions[numbers[n].second];
    error(after_gap.literal.data(), fmt::format("'{}' has parameter({}) but no parameter({}): parameters are numbered "
                                                "from 0 without gaps",
                                                computation.name, numbers[n].first, n));
    break;
  }
}

void ModuleBuilder::resolve_callees() {
  for (NamedCallee& pending : m_callees) {
    std::uint32_t callee = m_computation_ids.find(pending.name);
    if (callee == NameTable::k_absent) {
      if (m_truncated)
        m_diagnostics.warning_at(
            *m_source, pending.name.data(),
            fmt::format("call of computation '{}', which the truncated input does not reach", pending.name));
      else
        error(pending.name.data(), fmt::format("call of undefined computation '{}'", pending.name));
      continue;
    }
    m_module.computations[pending.caller].callees[pending.slot] = callee;
    pending.callee = callee;
  }
}

void ModuleBuilder::finish_module() {
  if (!m_module_open) return;
  m_module_open = false;
  if (m_module.computations.empty()) {
    error(m_module_start, m_module.has_header ? fmt::format("module '{}' has no computations", m_module.name)
                                              : std::string("expected a computation"));
    return;
  }
  for (std::uint32_t c = 0; c < m_module.computations.size(); ++c) {
    if (!m_module.computations[c].is_entry) continue;
    if (m_module.entry != hlo::k_none)
      error(m_module.computations[c].name.data(),
            fmt::format("second ENTRY computation '{}' (the first is '{}')", m_module.computations[c].name,
                        m_module.computations[m_module.entry].name));
    else
      m_module.entry = c;
  }
  if (m_module.entry == hlo::k_none) {
    m_module.entry = static_cast<std::uint32_t>(m_module.computations.size() - 1);
    m_module.computations.back().is_entry = true;
    m_module.entry_declared = false;
  }
  m_module.truncated = m_truncated;
  if (!m_module.has_header) m_module.name = m_module.computations[m_module.entry].name;
  resolve_callees();
  // Across computations (call_checks.hpp), on a module with nothing else wrong: a call
  // cycle first, as the callee rules would follow it.
  if (m_diagnostics.error_count() == m_errors_at_start && check_call_graph(m_module, m_callees, m_diagnostics))
    check_call_sites(m_module, m_calls, m_callees, m_parameter_table, m_diagnostics,
                     m_truncated ? static_cast<std::uint32_t>(m_module.computations.size() - 1) : hlo::k_none);
  if (m_diagnostics.error_count() != m_errors_at_start) return;
  ++m_modules_parsed;
  m_out(std::move(m_module));
}

}  // namespace

void parse_hlo_each(const SourceFilePtr& source, DiagnosticEngine& diagnostics, const ParseOptions& options,
                    const ModuleSink& use) {
  std::size_t errors_before = diagnostics.error_count();
  ModuleBuilder builder(source, diagnostics, options, use);
  try {
    std::size_t nul = std::string_view::npos;
    const std::vector<std::string_view> regions =
        hlo_regions(source->text(), source->binary_unchecked() ? &nul : nullptr);
    if (nul != std::string_view::npos) {
      diagnostics.error(source->name(), fmt::format("binary file, not HLO text (a NUL byte at offset {})", nul));
      return;
    }
    for (std::string_view region : regions) {
      builder.parse_region(region);
      if (diagnostics.too_many_errors()) break;
    }
  } catch (const TooManyErrors&) {
  }
  if (builder.modules_parsed() == 0 && diagnostics.error_count() == errors_before) {
    std::string_view text = source->text();
    const char* p = scan::skip_blank(text.data(), text.data() + text.size());
    diagnostics.error_at(*source, p == text.data() + text.size() ? text.data() : p,
                         text.empty() ? "empty input: no HLO module found" : "no HLO module found");
  }
}

std::vector<hlo::Module> parse_hlo(const SourceFilePtr& source, DiagnosticEngine& diagnostics,
                                   const ParseOptions& options) {
  std::vector<hlo::Module> modules;
  parse_hlo_each(source, diagnostics, options, [&modules](hlo::Module&& m) { modules.push_back(std::move(m)); });
  return modules;
}

std::optional<hlo::Shape> parse_shape(std::string_view text, std::string* error) {
  const char* p = text.data();
  const char* end = text.data() + text.size();
  auto fail = [&](const char* where, std::string_view message) -> std::optional<hlo::Shape> {
    if (error) *error = fmt::format("{}: {}", where - text.data() + 1, message);
    return std::nullopt;
  };
  hlo::Shape shape;
  try {
    const char* extent = scan::shape_text(scan::skip_blank(p, end), end);
    p = scan::skip_blank(p, end);
    if (!extent) return fail(p, "expected shape");
    if (!run(grammar::shape(), p, end, shape)) return fail(p, shape_failure(std::string_view(p, end - p)));
    p = scan::skip_blank(p, end);
    if (p != end) return fail(p, "unexpected text after the shape");
  } catch (const SyntaxError& e) {
    return fail(e.where, e.message);
  }
  return shape;
}

std::vector<hlo::Module> parse_hlo_text(std::string text, std::string name, DiagnosticEngine& diagnostics,
                                        const ParseOptions& options) {
  return parse_hlo(std::make_shared<const SourceFile>(std::move(name), std::move(text)), diagnostics, options);
}

}  // namespace hlo_index::parser
