// Raw syntax of the statements the module grammar recognises. Every string_view
// points into the source text, so its data() is also its position.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace hlo_index::parser::ast {

struct Attribute {
  std::string_view name;
  std::string_view value;
};

struct Operand {
  std::string_view shape;   // empty when the operand is written untyped
  std::string_view name;    // without '%'; empty for an inline instruction
  std::string_view nested;  // `opcode(...)` of an inline instruction `shape opcode(...)`
};

/// [ROOT] name = shape opcode(operands|literal), attr=value, ...
struct Instruction {
  bool is_root = false;
  std::string_view name;
  std::string_view shape;
  std::string_view opcode;
  bool has_literal = false;  // constant/parameter: `literal` holds the text between ( )
  std::string_view literal;
  std::vector<Operand> operands;
  std::vector<Attribute> attributes;
  void clear() {
    is_root = has_literal = false;
    // One at a time: the chained `name = shape = ... = {}` stored each and loaded it back whole,
    // a store-forwarding stall on every statement.
    name = {};
    shape = {};
    opcode = {};
    literal = {};
    operands.clear();
    attributes.clear();
  }
};

struct Parameter {
  std::string_view name;
  std::string_view shape;
};

/// [ENTRY] name [(params) -> shape] {
struct ComputationHeader {
  bool is_entry = false;
  std::string_view name;
  bool has_signature = false;
  std::vector<Parameter> parameters;
  std::string_view result;
};

/// HloModule name[:] [, attr=value]...
struct ModuleHeader {
  std::string_view name;
  std::vector<Attribute> attributes;
};

/// FileNames / FunctionNames / FileLocations / StackFrames and their "id value" lines.
struct Table {
  std::string_view name;
  std::vector<std::pair<std::int64_t, std::string_view>> entries;
};

/// `, attr=value` list after a computation's closing brace.
struct Trailer {
  std::vector<Attribute> attributes;
};

}  // namespace hlo_index::parser::ast
