// The in-memory HLO module the parser produces.
//
// Names, attribute values and literals are string_views into the source text,
// which the module keeps alive; shapes are interned per module, operands and
// attributes live in flat per-computation arrays. This keeps a 44k-instruction
// module to a few bytes over the size of its text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parser/opcode.hpp"
#include "parser/shape.hpp"
#include "parser/source.hpp"

namespace hlo_index::hlo {

using ShapeId = std::uint32_t;
inline constexpr std::uint32_t k_none = 0xffffffffu;

/// `name=value` as written; `value` is the raw text (e.g. "{1,0}", "%fused.3",
/// "{op_name=\"x\" source_line=3}"). Typed views live in parser/attributes.hpp.
struct Attribute {
  std::string_view name;
  std::string_view value;
};

/// One instruction; 72 bytes, as a large module holds hundreds of thousands.
struct Instruction {
  std::string_view name;  // without the '%' sigil
  /// For constant: the literal text between the parentheses; for parameter: the number's text.
  std::string_view literal;
  std::int64_t parameter_number = -1;
  ShapeId shape = 0;
  std::uint32_t first_operand = 0, operand_count = 0;  // into Computation::operands
  std::uint32_t first_attribute = 0;                   // into Computation::attributes
  std::uint32_t first_callee = 0;                      // into Computation::callees
  std::uint16_t attribute_count = 0, callee_count = 0;
  std::uint16_t unknown_opcode = 0;  // kUnknown only: index into Module::unknown_opcodes
  Opcode opcode = Opcode::kUnknown;
  bool is_root = false;  // written ROOT, or chosen as the last instruction
};

struct Parameter {
  std::string_view name;
  ShapeId shape = 0;
};

struct Computation {
  std::string_view name;  // without the '%' sigil
  bool is_entry = false;
  std::vector<Parameter> signature;            // "(p0: f32[10], ...)"; empty when not written
  std::optional<ShapeId> signature_result;     // "-> f32[10]"
  std::vector<Instruction> instructions;       // in program order
  std::vector<std::uint32_t> operands;         // instruction indices in this computation
  std::vector<Attribute> attributes;           // instruction attributes, flat
  std::vector<std::uint32_t> callees;          // computation indices in the module
  std::vector<Attribute> trailing_attributes;  // "}, execution_thread=..."
  std::uint32_t root = k_none;

  std::span<const std::uint32_t> operands_of(const Instruction& i) const {
    return {operands.data() + i.first_operand, i.operand_count};
  }
  std::span<const Attribute> attributes_of(const Instruction& i) const {
    return {attributes.data() + i.first_attribute, i.attribute_count};
  }
  std::span<const std::uint32_t> callees_of(const Instruction& i) const {
    return {callees.data() + i.first_callee, i.callee_count};
  }
  /// Whether `i` calls a computation the module lacks (a truncated dump read with
  /// --allow-truncated keeps such a call, its callee k_none).
  bool has_missing_callee(const Instruction& i) const;
  /// The value text of attribute `name` of `i`, if present.
  std::optional<std::string_view> attribute(const Instruction& i, std::string_view name) const;
};

/// One entry of a stack-frame table (FileNames, FunctionNames, FileLocations, StackFrames).
struct TableEntry {
  std::int64_t id = 0;
  std::string_view value;
};
struct StackFrameTable {
  std::string_view name;
  std::vector<TableEntry> entries;
};

struct ShapeFacts;
std::shared_ptr<ShapeFacts> make_shape_facts();

struct Module {
  parser::SourceFilePtr source;  // owns the text every string_view points into
  std::string_view name;         // from "HloModule name"; the entry's name when headerless
  bool has_header = false;
  std::vector<Attribute> attributes;  // header attributes
  std::vector<StackFrameTable> stack_frame_tables;
  std::vector<Computation> computations;  // in text order
  std::uint32_t entry = k_none;
  /// Read with --allow-truncated from an input cut off inside a computation.
  bool truncated = false;
  /// Whether the text marks its entry with ENTRY (else the last computation stands in for it).
  bool entry_declared = true;
  std::vector<Shape> shapes;  // interned; ShapeId indexes here
  /// Spellings of opcodes hlo-index does not know, as written (Instruction::unknown_opcode).
  std::vector<std::string_view> unknown_opcodes;
  /// The opcode as written: its name, also for opcodes hlo-index does not know.
  std::string_view opcode_text(const Instruction& i) const {
    return i.opcode == Opcode::kUnknown ? unknown_opcodes[i.unknown_opcode] : opcode_name(i.opcode);
  }
  /// Text the parser made up (names of inline operand instructions). Heap strings so views into
  /// them stay valid however the module is moved; unique_ptr also makes Module move-only.
  std::vector<std::unique_ptr<std::string>> synthesized_text;

  /// What is_flat_tuple works out (shared_ptr: the type is complete in hlo_module.cpp only).
  std::shared_ptr<ShapeFacts> shape_facts = make_shape_facts();

  const Shape& shape(ShapeId id) const { return shapes[id]; }
  const Shape& shape_of(const Instruction& i) const { return shapes[i.shape]; }
  /// True when interned shape `id` is a tuple of arrays only: its leaf k is its element k. Asked
  /// for every leaf moved through a wide tuple (torax: hundreds of thousands of times, of tuples
  /// of hundreds of elements), so it is worked out once per shape, on first use (thread-safe);
  /// `shapes` may grow after that but must not change.
  bool is_flat_tuple(ShapeId id) const;
  /// Index of the computation named `name`, or k_none.
  std::uint32_t find_computation(std::string_view name) const;
  /// The computation `i` of `c` calls in position `k` of its callees (calls=,
  /// to_apply=, ...), or nullptr when there is none there or the module lacks it.
  const Computation* callee(const Computation& c, const Instruction& i, std::size_t k = 0) const;
  std::size_t instruction_count() const;
};

}  // namespace hlo_index::hlo
