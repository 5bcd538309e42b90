#include "parser/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "parser/attributes.hpp"
#include "parser/literal_check.hpp"
#include "parser/name_table.hpp"
#include "parser/op_traits.hpp"
#include "parser/result_shapes.hpp"

namespace hlo_index::parser {
namespace {

// The syntax of the attributes whose values must parse; others are free-form.
enum class Syntax : std::uint32_t { kIntList, kInt, kSlice, kPadding, kWindow, kDimLabels };

// The syntax attribute `name` must have, or NameTable::k_absent.
std::uint32_t syntax_of(std::string_view name) {
  static const NameTable table = [] {
    NameTable t;
    for (std::string_view list :
         {"dimensions", "dynamic_slice_sizes", "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
          "rhs_contracting_dims", "offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
          "start_indices_batching_dims", "slice_sizes", "update_window_dims", "inserted_window_dims",
          "scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims"})
      t.insert(list, static_cast<std::uint32_t>(Syntax::kIntList));
    for (std::string_view scalar :
         {"index", "iota_dimension", "index_vector_dim", "feature_group_count", "batch_group_count"})
      t.insert(scalar, static_cast<std::uint32_t>(Syntax::kInt));
    t.insert("slice", static_cast<std::uint32_t>(Syntax::kSlice));
    t.insert("padding", static_cast<std::uint32_t>(Syntax::kPadding));
    t.insert("window", static_cast<std::uint32_t>(Syntax::kWindow));
    t.insert("dim_labels", static_cast<std::uint32_t>(Syntax::kDimLabels));
    return t;
  }();
  return table.find(name);
}

bool is_one_of(std::string_view text, std::initializer_list<std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), text) != choices.end();
}

std::string operands_text(std::size_t n) {
  return n == 0 ? "no operands" : fmt::format("{} operand{}", n, n == 1 ? "" : "s");
}

// The checks of one instruction; a cheap view made per instruction.
class Checker {
public:
  Checker(const hlo::Module& module, DiagnosticEngine& diagnostics, std::vector<std::int64_t>& scratch,
          std::vector<const hlo::Shape*>& operand_shapes, NameTable& passed, std::deque<std::string>& passed_keys,
          std::string& key, const char* where)
      : m_module(module),
        m_source(*module.source),
        m_diagnostics(diagnostics),
        m_scratch(scratch),
        m_operand_shapes(operand_shapes),
        m_passed(passed),
        m_passed_keys(passed_keys),
        m_key(key),
        m_where(where) {}

  void check(const hlo::Computation& c, const hlo::Instruction& i, std::size_t errors_before) {
    check_instruction(c, i);
    // Result shapes only of instructions with nothing else wrong: one problem, one error.
    if (m_diagnostics.error_count() == errors_before) check_result(c, i);
  }

private:
  // An integer list that check_syntax already accepted, parsed into the reused buffer.
  const std::vector<std::int64_t>& int_list(std::string_view text) {
    parse_int_list(text, m_scratch, nullptr);
    return m_scratch;
  }

  void error(std::string_view at, std::string message) {
    m_diagnostics.error_at(m_source, at.data(), std::move(message));
  }

  // An error about the instruction as a whole.
  void error(std::string message) { m_diagnostics.error_at(m_source, m_where, std::move(message)); }

  // Parses every attribute with a known syntax; returns false if any is malformed.
  bool check_syntax(const hlo::Computation& c, const hlo::Instruction& i) {
    bool ok = true;
    for (const hlo::Attribute& a : c.attributes_of(i)) {
      std::uint32_t syntax = syntax_of(a.name);
      if (syntax == NameTable::k_absent) continue;
      AttributeError problem;
      bool parsed = true;
      switch (static_cast<Syntax>(syntax)) {
        case Syntax::kIntList: parsed = parse_int_list(a.value, m_scratch, &problem); break;
        case Syntax::kInt: parsed = parse_int(a.value, &problem).has_value(); break;
        case Syntax::kSlice: parsed = parse_slice(a.value, &problem).has_value(); break;
        case Syntax::kPadding: parsed = parse_padding(a.value, &problem).has_value(); break;
        case Syntax::kWindow: parsed = parse_window(a.value, &problem).has_value(); break;
        case Syntax::kDimLabels: parsed = parse_dim_labels(a.value, &problem).has_value(); break;
      }
      if (!parsed) {
        error(a.value.substr(std::min(problem.offset, a.value.size())),
              fmt::format("malformed '{}' attribute: {}", a.name, problem.message));
        ok = false;
      }
    }
    return ok;
  }

  const hlo::Shape* operand_shape(const hlo::Computation& c, const hlo::Instruction& i, std::size_t k) {
    auto ops = c.operands_of(i);
    if (k >= ops.size() || ops[k] == hlo::k_none) return nullptr;
    return &m_module.shape_of(c.instructions[ops[k]]);
  }

  // Each entry of `dims` must lie in [0, rank).
  bool check_in_range(std::string_view at, std::string_view name, const std::vector<std::int64_t>& dims,
                      std::size_t rank, std::string_view whose) {
    for (std::int64_t d : dims)
      if (d < 0 || static_cast<std::size_t>(d) >= rank) {
        error(at, fmt::format("'{}' names dimension {} but {} has rank {}", name, d, whose, rank));
        return false;
      }
    return true;
  }

  bool check_count(std::string_view at, std::string_view attribute_name, std::size_t count, std::size_t rank,
                   std::string_view whose) {
    if (count == rank) return true;
    error(at, fmt::format("'{}' has {} {} but {} has rank {}", attribute_name, count, count == 1 ? "entry" : "entries",
                          whose, rank));
    return false;
  }

  // The instruction being checked, with what most checks look at.
  struct Subject {
    const hlo::Computation& c;
    const hlo::Instruction& i;
    const hlo::Shape& out;
    const hlo::Shape* in0;
    std::optional<std::string_view> attr(std::string_view name) const { return c.attribute(i, name); }
  };

  void check_instruction(const hlo::Computation& c, const hlo::Instruction& i) {
    const hlo::OpTraits& traits = hlo::op_traits(i.opcode);
    if (!hlo::fits(traits.operands, i.operand_count)) {
      const bool sparse = i.opcode == hlo::Opcode::kDot && c.attribute(i, "sparsity");
      if (auto problem = operand_count_problem(i.opcode, i.operand_count, sparse)) {
        error(std::move(*problem));
        return;
      }
    }
    if (!check_syntax(c, i)) return;
    const Subject s{c, i, m_module.shape_of(i), operand_shape(c, i, 0)};
    (this->*rule(traits.check))(s);
  }

  //===--- One check per hlo::CheckRule ---===//

  void no_check(const Subject&) {}

  void check_constant(const Subject& s) {
    if (auto problem = check_literal(s.i.literal, s.out))
      m_diagnostics.error_at(m_source, problem->where, problem->message);
  }

  void check_compare_direction(const Subject& s) {
    if (auto text = s.attr("direction"); text && !is_one_of(*text, {"EQ", "NE", "LT", "LE", "GT", "GE"}))
      error(*text, fmt::format("unknown comparison direction '{}' (expected EQ, NE, LT, LE, GT or GE)", *text));
  }

  void check_fusion_kind(const Subject& s) {
    if (auto text = s.attr("kind"); text && !is_one_of(*text, {"kLoop", "kInput", "kOutput", "kCustom"}))
      error(*text, fmt::format("unknown fusion kind '{}' (expected kLoop, kInput, kOutput or kCustom)", *text));
  }

  void check_broadcast(const Subject& s) {
    auto text = s.attr("dimensions");
    if (!text || !s.in0) return;
    const auto& dims = int_list(*text);
    if (check_count(*text, "dimensions", dims.size(), s.in0->rank(), "the operand"))
      check_in_range(*text, "dimensions", dims, s.out.rank(), "the result");
  }

  void check_transpose(const Subject& s) {
    auto text = s.attr("dimensions");
    if (!text) return;
    const auto& dims = int_list(*text);
    if (!check_count(*text, "dimensions", dims.size(), s.out.rank(), "the result") ||
        !check_in_range(*text, "dimensions", dims, s.out.rank(), "the result"))
      return;
    // A permutation of the operand's dimensions too (XLA's shape inference): a rank-1 operand
    // "transposed" into three dimensions is no transpose.
    if (s.in0 && !s.in0->is_tuple && !check_count(*text, "dimensions", dims.size(), s.in0->rank(), "the operand"))
      return;
    auto sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      error(*text, "'dimensions' of a transpose must be a permutation");
  }

  void check_operand_dimensions(const Subject& s) {
    if (auto text = s.attr("dimensions"); text && s.in0 && !s.in0->is_tuple)
      check_in_range(*text, "dimensions", int_list(*text), s.in0->rank(), "the operand");
  }

  void check_concatenate(const Subject& s) {
    auto text = s.attr("dimensions");
    if (!text) return;
    const auto& dims = int_list(*text);
    if (dims.size() != 1)
      error(*text, fmt::format("'dimensions' of a concatenate must have one entry, not {}", dims.size()));
    else
      check_in_range(*text, "dimensions", dims, s.out.rank(), "the result");
  }

  // What is wrong with slice dimension `d` of an operand dimension of size `size`, or "".
  static std::string slice_problem(const SliceDim& dim, std::size_t d, std::int64_t size) {
    if (dim.stride < 1) return fmt::format("slice stride {} in dimension {} must be positive", dim.stride, d);
    if (dim.start < 0 || dim.start > dim.limit)
      return fmt::format("slice [{}:{}] in dimension {} must have 0 <= start <= limit", dim.start, dim.limit, d);
    if (size >= 0 && dim.limit > size)
      return fmt::format("slice limit {} exceeds dimension {} of size {}", dim.limit, d, size);
    return {};
  }

  void check_slice(const Subject& s) {
    auto text = s.attr("slice");
    if (!text || !s.in0) return;
    auto dims = *parse_slice(*text);
    if (!check_count(*text, "slice", dims.size(), s.in0->rank(), "the operand")) return;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (std::string problem = slice_problem(dims[d], d, s.in0->dims[d]); !problem.empty()) {
        error(*text, problem);
        return;
      }
    }
  }

  void check_pad(const Subject& s) {
    if (auto text = s.attr("padding"); text && s.in0)
      check_count(*text, "padding", parse_padding(*text)->size(), s.in0->rank(), "the operand");
  }

  void check_dynamic_slice(const Subject& s) {
    if (auto text = s.attr("dynamic_slice_sizes"); text && s.in0)
      check_count(*text, "dynamic_slice_sizes", int_list(*text).size(), s.in0->rank(), "the operand");
  }

  void check_iota(const Subject& s) {
    if (auto text = s.attr("iota_dimension"); text)
      check_in_range(*text, "iota_dimension", {*parse_int(*text)}, s.out.rank(), "the result");
  }

  void check_reduce_window(const Subject& s) {
    if (auto text = s.attr("window"); text && s.in0 && !s.in0->is_tuple)
      check_count(*text, "window", parse_window(*text)->size(), s.in0->rank(), "the operand");
  }

  void check_get_tuple_element(const Subject& s) {
    auto text = s.attr("index");
    if (!text || !s.in0) return;
    std::int64_t index = *parse_int(*text);
    if (!s.in0->is_tuple || index < 0 || static_cast<std::size_t>(index) >= s.in0->elements.size())
      error(*text, fmt::format("tuple index {} is out of range for an operand with {} elements", index,
                               s.in0->is_tuple ? s.in0->elements.size() : 0));
  }

  void check_convolution(const Subject& s) {
    auto text = s.attr("dim_labels");
    if (!text || !s.in0) return;
    const hlo::Shape* in1 = operand_shape(s.c, s.i, 1);
    auto dims = *parse_dim_labels(*text);
    std::size_t n = dims.input_spatial.size() + 2;
    if (check_count(*text, "dim_labels", n + dims.input_unlabelled.size(), s.in0->rank(), "the input") && in1)
      if (check_count(*text, "dim_labels", n + dims.kernel_unlabelled.size(), in1->rank(), "the kernel"))
        check_count(*text, "dim_labels", n + dims.output_unlabelled.size(), s.out.rank(), "the result");
    if (auto window = s.attr("window"))
      check_count(*window, "window", parse_window(*window)->size(), n - 2, "the convolution's spatial part");
  }

  void check_dot(const Subject& s) {
    const hlo::Shape* in0 = s.in0;
    const hlo::Shape* in1 = operand_shape(s.c, s.i, 1);
    if (!in0 || !in1) return;
    for (auto [name, shape] : {std::pair{"lhs_batch_dims", in0},
                               {"lhs_contracting_dims", in0},
                               {"rhs_batch_dims", in1},
                               {"rhs_contracting_dims", in1}})
      if (auto text = s.attr(name))
        check_in_range(*text, name, int_list(*text), shape->rank(),
                       shape == in0 ? "the left operand" : "the right operand");
  }

  using Rule = void (Checker::*)(const Subject&);

  // The check of each hlo::CheckRule (op_traits.hpp says which op has which).
  static Rule rule(hlo::CheckRule r) {
    using C = hlo::CheckRule;
    struct Row {
      C name;
      Rule rule;
    };
    static constexpr Row k_rules[] = {
        {C::kNone, &Checker::no_check},
        {C::kLiteral, &Checker::check_constant},
        {C::kCompareDirection, &Checker::check_compare_direction},
        {C::kFusionKind, &Checker::check_fusion_kind},
        {C::kBroadcast, &Checker::check_broadcast},
        {C::kTranspose, &Checker::check_transpose},
        {C::kOperandDimensions, &Checker::check_operand_dimensions},
        {C::kConcatenate, &Checker::check_concatenate},
        {C::kSlice, &Checker::check_slice},
        {C::kPad, &Checker::check_pad},
        {C::kDynamicSlice, &Checker::check_dynamic_slice},
        {C::kIota, &Checker::check_iota},
        {C::kReduceWindow, &Checker::check_reduce_window},
        {C::kGetTupleElement, &Checker::check_get_tuple_element},
        {C::kConvolution, &Checker::check_convolution},
        {C::kDot, &Checker::check_dot},
    };
    static_assert(std::size(k_rules) == static_cast<std::size_t>(C::kCount), "one check per hlo::CheckRule");
    static_assert([] {
      for (std::size_t k = 0; k < std::size(k_rules); ++k)
        if (static_cast<std::size_t>(k_rules[k].name) != k) return false;
      return true;
    }());
    return k_rules[static_cast<std::size_t>(r)].rule;
  }

  // What check_result_shape's answer depends on: the opcode, the result and operand shapes (by
  // interned id: equal ids, equal shapes) and the attributes, but for those its rules never read
  // (they look attributes up by name: "dimensions", "window", "channel_id", ...), which differ
  // from one instruction to the next.
  const std::string& result_key(const hlo::Computation& c, const hlo::Instruction& i) {
    auto append = [&](std::uint32_t v) {
      char bytes[sizeof v];
      std::memcpy(bytes, &v, sizeof v);
      m_key.append(bytes, sizeof v);
    };
    m_key.clear();
    append(static_cast<std::uint32_t>(i.opcode));
    append(i.shape);
    append(i.operand_count);
    for (std::uint32_t k : c.operands_of(i)) append(k == hlo::k_none ? hlo::k_none : c.instructions[k].shape);
    for (const hlo::Attribute& a : c.attributes_of(i)) {
      if (is_one_of(a.name, {"metadata", "backend_config", "frontend_attributes", "sharding", "to_apply", "calls",
                             "statistics"}))
        continue;
      append(static_cast<std::uint32_t>(a.name.size()));
      m_key.append(a.name);
      append(static_cast<std::uint32_t>(a.value.size()));
      m_key.append(a.value);
    }
    return m_key;
  }

  void check_result(const hlo::Computation& c, const hlo::Instruction& i) {
    // check_result_shape has nothing to say about these (parameters, constants, collectives,
    // ...: a quarter of a module): no key to build and look up.
    if (!has_result_check(i.opcode)) return;
    if (m_passed.find(result_key(c, i)) != NameTable::k_absent) return;  // a pure function of the key: passed
    m_operand_shapes.clear();
    for (std::uint32_t k : c.operands_of(i))
      m_operand_shapes.push_back(k == hlo::k_none ? nullptr : &m_module.shape_of(c.instructions[k]));
    auto problem = check_result_shape(i.opcode, m_module.shape_of(i), m_operand_shapes, c.attributes_of(i));
    if (!problem) {
      m_passed.insert(m_passed_keys.emplace_back(m_key), 0);
      return;
    }
    if (problem->at.empty())
      error(std::move(problem->message));
    else
      error(problem->at, std::move(problem->message));
  }

  const hlo::Module& m_module;
  const SourceFile& m_source;
  DiagnosticEngine& m_diagnostics;
  std::vector<std::int64_t>& m_scratch;              // reused by integer-list parses
  std::vector<const hlo::Shape*>& m_operand_shapes;  // reused by check_result
  NameTable& m_passed;                               // result checks that passed, by result_key
  std::deque<std::string>& m_passed_keys;            // their keys' text
  std::string& m_key;                                // reused by result_key
  const char* m_where;                               // where the instruction is, for errors about all of it
};

}  // namespace

std::optional<std::string> operand_count_problem(hlo::Opcode opcode, std::size_t count, bool sparse) {
  using hlo::OperandCount;
  const hlo::Arity arity = hlo::op_traits(opcode).operands;
  if (hlo::fits(arity, count)) return std::nullopt;
  switch (arity.count) {
    case OperandCount::kAny: return std::nullopt;
    case OperandCount::kExactly:
      if (sparse && count > arity.n) return std::nullopt;
      return fmt::format("{} takes {}, not {}", hlo::opcode_name(opcode), operands_text(arity.n), count);
    case OperandCount::kAtLeast:
      return fmt::format("{} takes at least {}, not {}", hlo::opcode_name(opcode), operands_text(arity.n), count);
    case OperandCount::kPairs:
      return fmt::format("{} takes inputs and as many initial values (an even number of operands, at least 2), not {}",
                         hlo::opcode_name(opcode), count);
    case OperandCount::kScatter:
      return fmt::format(
          "{} takes inputs, the indices and as many updates (an odd number of operands, at least 3), not {}",
          hlo::opcode_name(opcode), count);
  }
  return std::nullopt;
}

void InstructionChecker::check(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i,
                               const char* where, std::size_t errors_before) {
  Checker(module, m_diagnostics, m_scratch, m_operand_shapes, m_passed, m_passed_keys, m_key, where)
      .check(c, i, errors_before);
}

}  // namespace hlo_index::parser
