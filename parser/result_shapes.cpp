// Result-shape verification, one rule per op, after XLA's shape inference
// (ShapeInference::Infer*Shape) and the HLO verifier. Every rule either
// computes the shape XLA would give and compares it with the declared one, or
// gives up: a false error on a real module is much worse than a missed one.
#include "parser/result_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <tuple>
#include <variant>
#include <vector>

#include "parser/attributes.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::parser {
namespace {

using hlo::ElementType;
using hlo::ElementwiseForm;
using hlo::ElementwiseType;
using hlo::Opcode;
using hlo::Shape;
using Dims = std::vector<std::int64_t>;
using Outcome = std::optional<ResultShapeError>;

//===--- Shapes ---===//

bool is_static(const Shape& s) {
  if (s.is_tuple) return std::all_of(s.elements.begin(), s.elements.end(), [](const Shape& e) { return is_static(e); });
  return std::all_of(s.dim_kinds.begin(), s.dim_kinds.end(), [](hlo::DimKind k) { return k == hlo::DimKind::kStatic; });
}

bool is_float(ElementType t) { return hlo::is_floating_point(t); }

bool is_complex(ElementType t) { return t == ElementType::kC64 || t == ElementType::kC128; }
bool is_integer(ElementType t) { return t >= ElementType::kS1 && t <= ElementType::kU64; }

std::string text(const Shape& s) { return hlo::to_string_without_layout(s); }

Shape array(ElementType type, Dims dims) {
  Shape s;
  s.type = type;
  s.dim_kinds.assign(dims.size(), hlo::DimKind::kStatic);
  s.dims = std::move(dims);
  return s;
}

Shape tuple(std::vector<Shape> elements) {
  Shape s;
  s.is_tuple = true;
  s.elements = std::move(elements);
  return s;
}

// The element count times the element width, or nullopt on overflow.
std::optional<std::int64_t> size_in_bits(const Shape& s) {
  auto count = s.element_count();
  std::int64_t bits = 0;
  if (!count || __builtin_mul_overflow(*count, std::int64_t{hlo::element_type_bits(s.type)}, &bits))
    return std::nullopt;
  return bits;
}

//===--- Arithmetic and integer lists ---===//

std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::int64_t> mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// (size - 1) * dilation + 1, 0 for size 0: the extent of a dilated base or window.
std::optional<std::int64_t> dilated(std::int64_t size, std::int64_t dilation) {
  if (size == 0) return 0;
  auto scaled = mul(size - 1, dilation);
  return scaled ? add(*scaled, 1) : std::nullopt;
}

// The number of window positions along one dimension of a base of size `base`
// (XLA's InferWindowOutputShape); nullopt where XLA would reject the window.
std::optional<std::int64_t> window_output(std::int64_t base, const WindowDim& w) {
  if (w.size < 1 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) return std::nullopt;
  auto dilated_base = dilated(base, w.base_dilation);
  auto dilated_window = dilated(w.size, w.window_dilation);
  if (!dilated_base || !dilated_window) return std::nullopt;
  auto padded = add(*dilated_base, w.pad_low);
  if (padded) padded = add(*padded, w.pad_high);
  if (!padded || *padded < 0) return std::nullopt;
  if (*padded == 0 || *dilated_window > *padded) return 0;
  return (*padded - *dilated_window) / w.stride + 1;
}

bool distinct(Dims dims) {
  std::sort(dims.begin(), dims.end());
  return std::adjacent_find(dims.begin(), dims.end()) == dims.end();
}

bool in_range(const Dims& dims, std::size_t rank) {
  return std::all_of(dims.begin(), dims.end(),
                     [&](std::int64_t d) { return d >= 0 && static_cast<std::size_t>(d) < rank; });
}

bool contains(const Dims& dims, std::int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

std::size_t pos(std::int64_t d) { return static_cast<std::size_t>(d); }

//===--- The rules ---===//

// The dimensions of a binary elementwise op as XLA infers them when no
// broadcast_dimensions are given (HLO has none): equal ranks broadcast
// dimensions of size 1, a scalar broadcasts to the other shape.
std::optional<Dims> broadcast_binary(const Dims& a, const Dims& b) {
  if (a.size() != b.size()) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return std::nullopt;
  }
  Dims out(a.size());
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) return std::nullopt;
    out[d] = a[d] == 1 ? b[d] : a[d];
  }
  return out;
}

class Rules {
public:
  Rules(Opcode opcode, const Shape& result, std::span<const Shape* const> operands,
        std::span<const hlo::Attribute> attributes)
      : m_opcode(opcode),
        m_name(hlo::opcode_name(opcode)),
        m_result(result),
        m_operands(operands),
        m_attributes(attributes) {}

  // Inference mode: `expect` stores the shape it would compare with into
  // `*inferred` instead; rules that need the declared result give up.
  Rules(Opcode opcode, std::span<const Shape* const> operands, std::span<const hlo::Attribute> attributes,
        std::optional<Shape>* inferred)
      : Rules(opcode, k_no_result, operands, attributes) {
    m_inferred = inferred;
  }

  Outcome check() const {
    if (m_opcode == Opcode::kUnknown) return {};
    if (Outcome problem = check_whatever_the_sizes()) return problem;
    for (const Shape* s : m_operands)
      if (!s) return {};
    // Tuples and get-tuple-element only compare shapes, and compatible() takes a dynamic size for
    // any size up to its bound: they are checked whatever the sizes. The other rules compute
    // sizes, so shapes with dynamic dimensions are left to them.
    const hlo::ShapeRule r = hlo::op_traits(m_opcode).result;
    if (r != hlo::ShapeRule::kTuple && r != hlo::ShapeRule::kGetTupleElement) {
      if (!is_static(m_result)) return {};
      for (const Shape* s : m_operands)
        if (!is_static(*s)) return {};
    }
    return rule(r)(*this);
  }

private:
  //===--- Access ---===//

  // Operand k if it is an array (the caller has checked the count).
  const Shape* operand(std::size_t k) const {
    return k < m_operands.size() && !m_operands[k]->is_tuple ? m_operands[k] : nullptr;
  }

  std::optional<std::string_view> attribute(std::string_view name) const {
    for (const hlo::Attribute& a : m_attributes)
      if (a.name == name) return a.value;
    return std::nullopt;
  }

  std::optional<Dims> int_list(std::string_view name) const {
    auto value = attribute(name);
    return value ? parse_int_list(*value) : std::nullopt;
  }

  std::optional<std::int64_t> int_value(std::string_view name) const {
    auto value = attribute(name);
    return value ? parse_int(*value) : std::nullopt;
  }

  // Exactly one array operand and an array result.
  bool unary_array() const { return m_operands.size() == 1 && operand(0) && !m_result.is_tuple; }

  //===--- Verdicts ---===//

  // The declared result against `inferred`; `source` says what the inference used.
  Outcome expect(const Shape& inferred, std::string_view source, std::string_view at = {}) const {
    if (m_inferred) {
      m_inferred->emplace(inferred);
      return {};
    }
    if (hlo::compatible_ignoring_fp_precision(inferred, m_result)) return {};
    return ResultShapeError{at, fmt::format("{} result shape {} does not match {}: expected {}", m_name, text(m_result),
                                            source, text(inferred))};
  }

  // expect(array(type, dims), ...), without building the shape when the declared result agrees.
  Outcome expect_array(ElementType type, const Dims& dims, std::string_view source, std::string_view at = {}) const {
    if (!m_inferred && !m_result.is_tuple && !m_result.is_buffer && m_result.dims == dims &&
        (m_result.type == type || (is_float(m_result.type) && is_float(type))))
      return {};
    return expect(array(type, dims), source, at);
  }

  Outcome fail(std::string message, std::string_view at = {}) const { return ResultShapeError{at, std::move(message)}; }

  // Whether the rule is inferring the shape rather than checking a declared one.
  bool inferring() const { return m_inferred != nullptr; }

  //===--- Elementwise ---===//

  static std::size_t arity(ElementwiseForm form) {
    switch (form) {
      case ElementwiseForm::kUnary: return 1;
      case ElementwiseForm::kBinary:
      case ElementwiseForm::kEqual: return 2;
      case ElementwiseForm::kSelect:
      case ElementwiseForm::kClamp: break;
    }
    return 3;
  }

  Outcome incompatible(std::size_t a, std::size_t b) const {
    return fail(fmt::format("{} operands {} and {} have incompatible dimensions: {} and {}", m_name, a, b,
                            text(*operand(a)), text(*operand(b))));
  }

  // The result's dimensions, and the operand that gives the result's type.
  struct Inferred {
    const Shape* typed;
    const Dims* borrowed;  // the dimensions, when they are an operand's: no copy
    Dims computed;         // otherwise
    const Dims& dims() const { return borrowed ? *borrowed : computed; }
  };

  // A scalar min or max clamps any operand; a scalar operand takes min's or max's dimensions.
  std::variant<Inferred, ResultShapeError> clamp_dims() const {
    const Shape &min = *operand(0), &x = *operand(1), &max = *operand(2);
    auto fits = [&](const Shape& bound) { return bound.rank() == 0 || bound.dims == x.dims; };
    if (fits(min) && fits(max)) return Inferred{&x, &x.dims, {}};
    if (x.rank() != 0) return *incompatible(fits(min) ? 1 : 0, fits(min) ? 2 : 1);
    if (min.dims == max.dims || max.rank() == 0) return Inferred{&x, &min.dims, {}};
    if (min.rank() == 0) return Inferred{&x, &max.dims, {}};
    return *incompatible(0, 2);
  }

  std::variant<Inferred, ResultShapeError> elementwise_dims(ElementwiseForm form) const {
    const Shape& first = *operand(0);
    switch (form) {
      case ElementwiseForm::kUnary: break;
      case ElementwiseForm::kBinary: {
        if (operand(1)->dims == first.dims) return Inferred{&first, &first.dims, {}};  // the usual case
        auto joined = broadcast_binary(first.dims, operand(1)->dims);
        if (!joined) return *incompatible(0, 1);
        return Inferred{&first, nullptr, std::move(*joined)};
      }
      case ElementwiseForm::kEqual:
        if (operand(1)->dims != first.dims) return *incompatible(0, 1);
        break;
      case ElementwiseForm::kSelect: {
        const Shape &pred = first, &on_true = *operand(1), &on_false = *operand(2);
        if (on_true.dims != on_false.dims) return *incompatible(1, 2);
        if (pred.rank() != 0 && pred.dims != on_true.dims) return *incompatible(0, 1);
        return Inferred{&on_true, &on_true.dims, {}};
      }
      case ElementwiseForm::kClamp: return clamp_dims();
    }
    return Inferred{&first, &first.dims, {}};
  }

  // The result's element type from the typed operand's; nothing where XLA's
  // rule does not apply (complex of a non-float), which is then not checked.
  std::optional<ElementType> elementwise_type(ElementwiseType rule, ElementType type) const {
    switch (rule) {
      case ElementwiseType::kSame: break;
      case ElementwiseType::kPred: return ElementType::kPred;
      case ElementwiseType::kAny:
        if (inferring()) return std::nullopt;  // convert: the result type is the op's input
        return m_result.type;
      case ElementwiseType::kAbs:
      case ElementwiseType::kComplexPart:
        if (type == ElementType::kC64) return ElementType::kF32;
        if (type == ElementType::kC128) return ElementType::kF64;
        break;
      case ElementwiseType::kMakeComplex:
        if (type == ElementType::kF32) return ElementType::kC64;
        if (type == ElementType::kF64) return ElementType::kC128;
        return std::nullopt;
    }
    return type;
  }

  Outcome check_elementwise() const {
    const hlo::ElementwiseShape op = hlo::op_traits(m_opcode).elementwise;
    const std::size_t n = arity(op.form);
    if (m_operands.size() != n || m_result.is_tuple) return {};
    for (std::size_t k = 0; k < n; ++k)
      if (!operand(k)) return {};
    auto dims = elementwise_dims(op.form);
    if (auto* error = std::get_if<ResultShapeError>(&dims)) return std::move(*error);
    Inferred& inferred = std::get<Inferred>(dims);
    auto type = elementwise_type(op.type, inferred.typed->type);
    if (!type) return {};
    return expect_array(*type, inferred.dims(), n == 1 ? "the operand" : "the operands");
  }

  // Equal widths keep the dimensions; a narrower result adds a minor dimension
  // of width ratio, a wider one drops a minor dimension of that size.
  Outcome check_bitcast_convert() const {
    if (!unary_array() || inferring()) return {};
    const Shape& in = *operand(0);
    // pred, complex and the 6-bit types are skipped rather than modelled.
    auto plain = [](ElementType t) {
      return t != ElementType::kPred && !is_complex(t) && hlo::element_type_bits(t) % 8 != 6;
    };
    int from = hlo::element_type_bits(in.type), to = hlo::element_type_bits(m_result.type);
    if (from == 0 || to == 0 || !plain(in.type) || !plain(m_result.type)) return {};
    Dims dims = in.dims;
    if (from > to) {
      if (from % to != 0) return {};
      dims.push_back(from / to);
    } else if (from < to) {
      if (to % from != 0) return {};
      if (dims.empty() || dims.back() != to / from)
        return fail(
            fmt::format("bitcast-convert from {} to {} needs a minor dimension of size {} (the ratio of the "
                        "bit widths)",
                        text(in), hlo::element_type_name(m_result.type), to / from));
      dims.pop_back();
    }
    return expect_array(m_result.type, dims, fmt::format("the operand {}", text(in)));
  }

  //===--- Data movement ---===//

  Outcome check_broadcast() const {
    auto text_of = attribute("dimensions");
    auto dims = int_list("dimensions");
    if (!unary_array() || !dims || inferring()) return {};
    const Shape& in = *operand(0);
    if (dims->size() != in.rank() || !in_range(*dims, m_result.rank()) || !distinct(*dims)) return {};
    // XLA's shape inference lets an operand dimension of size 1 broadcast into any size.
    Dims out = m_result.dims;
    for (std::size_t k = 0; k < dims->size(); ++k)
      if (in.dims[k] != 1) out[pos((*dims)[k])] = in.dims[k];
    return expect_array(in.type, out, "the operand placed by 'dimensions'", *text_of);
  }

  Outcome check_transpose() const {
    auto text_of = attribute("dimensions");
    auto dims = int_list("dimensions");
    if (!unary_array() || !dims) return {};
    const Shape& in = *operand(0);
    if (dims->size() != in.rank() || !in_range(*dims, in.rank()) || !distinct(*dims)) return {};
    Dims out;
    for (std::int64_t d : *dims) out.push_back(in.dims[pos(d)]);
    return expect_array(in.type, out, "the operand permuted by 'dimensions'", *text_of);
  }

  Outcome check_slice() const {
    auto text_of = attribute("slice");
    if (!unary_array() || !text_of) return {};
    auto slice = parse_slice(*text_of);
    const Shape& in = *operand(0);
    if (!slice || slice->size() != in.rank()) return {};
    Dims out;
    for (std::size_t d = 0; d < slice->size(); ++d) {
      const SliceDim& s = (*slice)[d];
      if (s.stride < 1 || s.start < 0 || s.start > s.limit || s.limit > in.dims[d]) return {};
      const std::int64_t extent = s.limit - s.start;
      out.push_back(extent == 0 ? 0 : (extent - 1) / s.stride + 1);  // ceil(extent / stride), without overflow
    }
    return expect_array(in.type, out, "the slice", *text_of);
  }

  Outcome check_reshape() const {
    if (!unary_array() || inferring()) return {};
    const Shape& in = *operand(0);
    auto from = in.element_count(), to = m_result.element_count();
    if (!from || !to) return {};
    if (*from != *to)
      return fail(fmt::format("reshape from {} to {} changes the number of elements ({} to {})", hlo::to_string(in),
                              hlo::to_string(m_result), *from, *to));
    return expect_array(in.type, m_result.dims, "the operand");
  }

  // Only the total size in bits, and only without tiles or packed sub-byte
  // elements, where it cannot depend on the layout.
  Outcome check_bitcast() const {
    if (!unary_array() || inferring()) return {};
    const Shape& in = *operand(0);
    auto plain_layout = [](const Shape& s) {
      return !s.layout || (s.layout->tiles.empty() && s.layout->element_size_bits == 0);
    };
    if (!plain_layout(in) || !plain_layout(m_result) || hlo::element_type_bits(in.type) < 8 ||
        hlo::element_type_bits(m_result.type) < 8)
      return {};
    auto from = size_in_bits(in), to = size_in_bits(m_result);
    if (!from || !to || *from == *to) return {};
    return fail(
        fmt::format("bitcast from {} to {} changes the size in bits ({} to {})", text(in), text(m_result), *from, *to));
  }

  Outcome check_concatenate() const {
    auto dims = int_list("dimensions");
    if (m_operands.empty() || !dims || dims->size() != 1 || m_result.is_tuple) return {};
    for (std::size_t k = 0; k < m_operands.size(); ++k)
      if (!operand(k)) return {};
    const Shape& first = *operand(0);
    const std::int64_t d = dims->front();
    if (d < 0 || pos(d) >= first.rank()) return {};
    Dims out = first.dims;
    for (std::size_t k = 1; k < m_operands.size(); ++k) {
      const Shape& other = *operand(k);
      bool fits = other.rank() == first.rank();
      for (std::size_t i = 0; fits && i < first.rank(); ++i) fits = i == pos(d) || other.dims[i] == first.dims[i];
      if (!fits)
        return fail(fmt::format("concatenate operand {} {} does not match operand 0 {} outside dimension {}", k,
                                text(other), text(first), d));
      auto sum = add(out[pos(d)], other.dims[pos(d)]);
      if (!sum) return {};
      out[pos(d)] = *sum;
    }
    return expect_array(first.type, out, fmt::format("the operands joined along dimension {}", d));
  }

  //===--- Contractions ---===//

  // Batch dimensions, then the free lhs dimensions, then the free rhs dimensions.
  Outcome check_dot() const {
    const std::size_t operands = m_opcode == Opcode::kScaledDot ? 4 : (m_opcode == Opcode::kRaggedDot ? 3 : 2);
    if (m_operands.size() != operands || !operand(0) || !operand(1) || m_result.is_tuple || attribute("sparsity"))
      return {};
    const Shape& lhs = *operand(0);
    const Shape& rhs = *operand(1);
    // ragged-dot: rhs's group dimension is not the dot's; a ragged contracting dimension
    // adds the group dimension in front (group_sizes' last dimension).
    std::optional<std::int64_t> groups_in_front, rhs_group;
    if (m_opcode == Opcode::kRaggedDot) {
      const auto ragged = int_list("lhs_ragged_dims");
      const auto group = int_list("rhs_group_dims");
      const Shape* sizes = operand(2);
      if (!ragged || ragged->size() != 1 || !sizes || sizes->is_tuple || sizes->rank() == 0) return {};
      if (contains(int_list("lhs_contracting_dims").value_or(Dims{}), ragged->front())) {
        groups_in_front = sizes->dims.back();
      } else if (group && group->size() == 1) {
        if (group->front() < 0 || pos(group->front()) >= rhs.rank()) return {};
        rhs_group = group->front();
      }
    }
    auto list = [&](std::string_view name) { return int_list(name).value_or(Dims{}); };
    Dims lb = list("lhs_batch_dims"), rb = list("rhs_batch_dims");
    Dims lc = list("lhs_contracting_dims"), rc = list("rhs_contracting_dims");
    auto joined = [](Dims a, const Dims& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    if (lb.size() != rb.size() || lc.size() != rc.size() || !in_range(joined(lb, lc), lhs.rank()) ||
        !in_range(joined(rb, rc), rhs.rank()) || !distinct(joined(lb, lc)) || !distinct(joined(rb, rc)))
      return {};
    for (auto [l, r, kind] : {std::tuple{&lb, &rb, "batch"}, {&lc, &rc, "contracting"}})
      for (std::size_t k = 0; k < l->size(); ++k)
        if (lhs.dims[pos((*l)[k])] != rhs.dims[pos((*r)[k])])
          return fail(fmt::format("dot {} dimensions differ in size: lhs dimension {} has {}, rhs dimension {} has {}",
                                  kind, (*l)[k], lhs.dims[pos((*l)[k])], (*r)[k], rhs.dims[pos((*r)[k])]));
    Dims out;
    if (groups_in_front) out.push_back(*groups_in_front);
    for (std::int64_t d : lb) out.push_back(lhs.dims[pos(d)]);
    for (std::size_t d = 0; d < lhs.rank(); ++d)
      if (!contains(lb, static_cast<std::int64_t>(d)) && !contains(lc, static_cast<std::int64_t>(d)))
        out.push_back(lhs.dims[d]);
    for (std::size_t d = 0; d < rhs.rank(); ++d)
      if (!contains(rb, static_cast<std::int64_t>(d)) && !contains(rc, static_cast<std::int64_t>(d)) &&
          rhs_group != static_cast<std::int64_t>(d))
        out.push_back(rhs.dims[d]);
    // The element type is free: preferred_element_type (inferred only when both operands agree).
    if (inferring() && lhs.type != rhs.type) return {};
    return expect_array(inferring() ? lhs.type : m_result.type, out,
                        "the dot dimension numbers (batch, lhs free, rhs free)");
  }

  // Input dimensions and the kernel's output features through dim_labels,
  // spatial dimensions through the window.
  Outcome check_convolution() const {
    auto labels = attribute("dim_labels");
    if (m_operands.size() != 2 || !operand(0) || !operand(1) || m_result.is_tuple || !labels) return {};
    auto dims = parse_dim_labels(*labels);
    const Shape& input = *operand(0);
    const Shape& kernel = *operand(1);
    const std::size_t rank = dims ? dims->input_spatial.size() + 2 : 0;
    if (!dims || input.rank() != rank || kernel.rank() != rank || (!inferring() && m_result.rank() != rank)) return {};
    if (inferring() && input.type != kernel.type) return {};
    std::vector<WindowDim> window;
    if (auto text_of = attribute("window")) {
      auto parsed = parse_window(*text_of);
      if (!parsed) return {};
      window = std::move(*parsed);
    }
    if (window.size() != dims->input_spatial.size()) return {};
    std::int64_t batch_groups = int_value("batch_group_count").value_or(1);
    std::int64_t input_batch = input.dims[pos(dims->input_batch)];
    if (batch_groups < 1 || input_batch % batch_groups != 0) return {};
    Dims out(rank, 0);
    out[pos(dims->output_batch)] = input_batch / batch_groups;
    out[pos(dims->output_feature)] = kernel.dims[pos(dims->kernel_output_feature)];
    for (std::size_t i = 0; i < window.size(); ++i) {
      if (window[i].size != kernel.dims[pos(dims->kernel_spatial[i])]) return {};
      auto size = window_output(input.dims[pos(dims->input_spatial[i])], window[i]);
      if (!size) return {};
      out[pos(dims->output_spatial[i])] = *size;
    }
    // The element type is free: preferred_element_type.
    return expect_array(inferring() ? input.type : m_result.type, out, "the input, kernel, window and dim_labels");
  }

  //===--- Reductions ---===//

  // N inputs of equal dimensions and N scalar initial values; a tuple of N
  // arrays typed like the initial values, or one array when the reducer returns
  // a scalar (N = 1; it may also return a 1-tuple, which the text shows only in
  // the result).
  Outcome reduction_result(const Dims& dims, std::string_view source, std::string_view at_text) const {
    const std::size_t n = m_operands.size() / 2;
    std::vector<Shape> elements;
    for (std::size_t k = 0; k < n; ++k) elements.push_back(array(operand(n + k)->type, dims));
    const bool scalar_reducer = n == 1 && !m_result.is_tuple;
    return expect(scalar_reducer ? std::move(elements.front()) : tuple(std::move(elements)), source, at_text);
  }

  bool reduction_operands() const {
    const std::size_t n = m_operands.size() / 2;
    if (n == 0 || m_operands.size() % 2 != 0) return false;
    for (std::size_t k = 0; k < 2 * n; ++k)
      if (!operand(k) || (k < n && operand(k)->dims != operand(0)->dims) || (k >= n && operand(k)->rank() != 0))
        return false;
    return true;
  }

  // XLA's verifier: the operands reduced have one set of dimensions. (Initial values that are
  // not scalars pass, as in XLA's parser: a real dump has one, its reducer taking arrays.)
  Outcome check_reduction_operands() const {
    const std::size_t n = m_operands.size() / 2;
    if (n == 0 || m_operands.size() % 2 != 0 || !operand(0) || operand(0)->is_tuple) return {};
    for (std::size_t k = 1; k < n; ++k) {
      if (operand(k) && !operand(k)->is_tuple && operand(k)->dims != operand(0)->dims)
        return fail(
            fmt::format("{}'s operand {} is {} but operand 0 is {}: the operands reduced must have the "
                        "same dimensions",
                        m_name, k, text(*operand(k)), text(*operand(0))));
    }
    return {};
  }

  Outcome check_reduce() const {
    auto text_of = attribute("dimensions");
    auto dims = int_list("dimensions");
    if (Outcome problem = check_reduction_operands()) return problem;
    if (!dims || !reduction_operands()) return {};
    const Shape& in = *operand(0);
    if (!in_range(*dims, in.rank()) || !distinct(*dims)) return {};
    Dims out;
    for (std::size_t d = 0; d < in.rank(); ++d)
      if (!contains(*dims, static_cast<std::int64_t>(d))) out.push_back(in.dims[d]);
    return reduction_result(out, "the operand reduced over 'dimensions'", *text_of);
  }

  Outcome check_reduce_window() const {
    auto text_of = attribute("window");
    if (Outcome problem = check_reduction_operands()) return problem;
    if (!text_of || !reduction_operands()) return {};
    auto window = parse_window(*text_of);
    const Shape& in = *operand(0);
    if (!window || window->size() != in.rank()) return {};
    Dims out;
    for (std::size_t d = 0; d < in.rank(); ++d) {
      auto size = window_output(in.dims[d], (*window)[d]);
      if (!size) return {};
      out.push_back(*size);
    }
    return reduction_result(out, "the window", *text_of);
  }

  // lo + hi + n + (n - 1) * interior per dimension (lo + hi for n = 0).
  Outcome check_pad() const {
    auto text_of = attribute("padding");
    if (m_operands.size() != 2 || !operand(0) || !operand(1) || m_result.is_tuple) return {};
    if (!text_of) return {};
    auto padding = parse_padding(*text_of);
    const Shape& in = *operand(0);
    if (!padding || padding->size() != in.rank()) return {};
    Dims out;
    for (std::size_t d = 0; d < in.rank(); ++d) {
      const PaddingDim& p = (*padding)[d];
      const std::int64_t n = in.dims[d];
      if (p.interior < 0) return {};
      auto interior = mul(n == 0 ? 0 : n - 1, p.interior);
      auto size = interior ? add(*interior, n) : std::nullopt;
      if (size) size = add(*size, p.low);
      if (size) size = add(*size, p.high);
      if (!size || *size < 0) return {};
      out.push_back(*size);
    }
    return expect_array(in.type, out, "the padding", *text_of);
  }

  //===--- Indexed reads and writes ---===//

  Outcome check_dynamic_slice() const {
    auto text_of = attribute("dynamic_slice_sizes");
    auto sizes = int_list("dynamic_slice_sizes");
    if (m_operands.empty() || !operand(0) || m_result.is_tuple || !sizes) return {};
    const Shape& in = *operand(0);
    if (sizes->size() != in.rank()) return {};
    for (std::size_t d = 0; d < in.rank(); ++d) {
      if ((*sizes)[d] < 0) return {};
      if ((*sizes)[d] > in.dims[d])
        return fail(
            fmt::format("dynamic_slice_sizes entry {} exceeds dimension {} of size {}", (*sizes)[d], d, in.dims[d]),
            *text_of);
    }
    return expect_array(in.type, *sizes, "'dynamic_slice_sizes'", *text_of);
  }

  Outcome check_dynamic_update_slice() const {
    if (m_operands.size() < 2 || !operand(0) || !operand(1) || m_result.is_tuple) return {};
    const Shape& in = *operand(0);
    const Shape& update = *operand(1);
    if (update.rank() != in.rank()) return {};  // check_whatever_the_sizes says so
    for (std::size_t d = 0; d < in.rank(); ++d)
      if (update.dims[d] > in.dims[d])
        return fail(fmt::format("dynamic-update-slice update {} is larger than the operand {} in dimension {}",
                                text(update), text(in), d));
    return expect(in, "operand 0");
  }

  // XLA's gather shape: the indices' dimensions other than index_vector_dim
  // (batch) fill the result dimensions not in offset_dims, in order; offset_dims
  // get slice_sizes without collapsed_slice_dims and operand_batching_dims.
  Outcome check_gather() const {
    if (m_operands.size() != 2 || !operand(0) || !operand(1) || m_result.is_tuple) return {};
    const Shape& in = *operand(0);
    const Shape& indices = *operand(1);
    auto offset_dims = int_list("offset_dims"), slice_sizes = int_list("slice_sizes");
    auto index_vector_dim = int_value("index_vector_dim");
    if (!offset_dims || !slice_sizes || !index_vector_dim || slice_sizes->size() != in.rank()) return {};
    Dims removed = int_list("collapsed_slice_dims").value_or(Dims{});
    Dims operand_batching = int_list("operand_batching_dims").value_or(Dims{});
    removed.insert(removed.end(), operand_batching.begin(), operand_batching.end());
    if (!in_range(removed, in.rank()) || !distinct(removed)) return {};
    if (*index_vector_dim < 0 || pos(*index_vector_dim) > indices.rank()) return {};
    Dims batch;
    for (std::size_t d = 0; d < indices.rank(); ++d)
      if (d != pos(*index_vector_dim)) batch.push_back(indices.dims[d]);
    Dims offsets;
    for (std::size_t d = 0; d < in.rank(); ++d)
      if (!contains(removed, static_cast<std::int64_t>(d))) offsets.push_back((*slice_sizes)[d]);
    const std::size_t rank = batch.size() + offset_dims->size();
    if (offsets.size() != offset_dims->size() || !in_range(*offset_dims, rank) ||
        !std::is_sorted(offset_dims->begin(), offset_dims->end()) || !distinct(*offset_dims))
      return {};
    Dims out;
    std::size_t next_batch = 0, next_offset = 0;
    for (std::size_t d = 0; d < rank; ++d)
      out.push_back(contains(*offset_dims, static_cast<std::int64_t>(d)) ? offsets[next_offset++]
                                                                         : batch[next_batch++]);
    return expect_array(in.type, out, "the gather dimension numbers and slice_sizes");
  }

  //===--- Tuples and collectives ---===//

  Outcome check_get_tuple_element() const {
    auto index = int_value("index");
    if (m_operands.size() != 1 || !m_operands[0]->is_tuple || !index) return {};
    const Shape& t = *m_operands[0];
    if (*index < 0 || pos(*index) >= t.elements.size()) return {};
    const Shape& element = t.elements[pos(*index)];
    // Checked before the message is formatted: a module holds thousands of these, nearly all right.
    if (!inferring() && hlo::compatible_ignoring_fp_precision(element, m_result)) return {};
    return expect(element, fmt::format("element {} of the operand", *index));
  }

  Outcome check_tuple() const {
    // Element by element before the operands' shapes are copied into one (a while's state: hundreds).
    if (!inferring() && m_result.is_tuple && m_result.elements.size() == m_operands.size()) {
      std::size_t k = 0;
      while (k < m_operands.size() && hlo::compatible_ignoring_fp_precision(*m_operands[k], m_result.elements[k])) ++k;
      if (k == m_operands.size()) return {};
    }
    std::vector<Shape> elements;
    for (const Shape* s : m_operands) elements.push_back(*s);
    return expect(tuple(std::move(elements)), "the operands");
  }

  // Each operand with the gathered dimension multiplied by the group size.
  // The group size is known from replica_groups alone without a channel_id
  // (replica groups) or with use_global_device_ids=true (device groups);
  // otherwise only the other dimensions are checked.
  Outcome check_all_gather() const {
    auto dims = int_list("dimensions");
    if (m_operands.empty() || !dims || dims->size() != 1) return {};
    const std::int64_t d = dims->front();
    std::optional<std::int64_t> devices;
    auto groups = attribute("replica_groups");
    if (groups && (!attribute("channel_id") || attribute("use_global_device_ids") == "true"))
      devices = parser::replica_group_size(*groups);
    if (inferring()) return devices ? infer_all_gather(d, *devices) : Outcome{};
    const bool single = m_operands.size() == 1;
    if (single ? m_result.is_tuple : !m_result.is_tuple || m_result.elements.size() != m_operands.size()) return {};
    std::vector<Shape> elements;
    for (std::size_t k = 0; k < m_operands.size(); ++k) {
      const Shape* in = operand(k);
      const Shape& declared = single ? m_result : m_result.elements[k];
      if (!in || d < 0 || pos(d) >= in->rank() || declared.is_tuple || declared.rank() != in->rank()) return {};
      Dims out = in->dims;
      if (!devices) {
        out[pos(d)] = declared.dims[pos(d)];
      } else {
        auto size = mul(out[pos(d)], *devices);
        if (!size) return {};
        out[pos(d)] = *size;
      }
      elements.push_back(array(in->type, std::move(out)));
    }
    std::string source = devices ? fmt::format("the operand gathered along dimension {} by groups of {}", d, *devices)
                                 : fmt::format("the operand outside the gathered dimension {}", d);
    return expect(single ? std::move(elements.front()) : tuple(std::move(elements)), source);
  }

  // all-gather-start: the pair (what it sends, what it gathers): the operands (one, or a tuple
  // of them), then the all-gather of them.
  Outcome check_all_gather_start() const {
    if (inferring() || !m_result.is_tuple || m_result.elements.size() != 2) return {};
    std::vector<Shape> sent;
    for (std::size_t k = 0; k < m_operands.size(); ++k) {
      if (!operand(k)) return {};
      sent.push_back(*operand(k));
    }
    const Shape expected = sent.size() == 1 ? std::move(sent.front()) : tuple(std::move(sent));
    if (!hlo::compatible(m_result.elements[0], expected))
      return fail(fmt::format("all-gather-start's result element 0 is {} but its operands are {}",
                              text(m_result.elements[0]), text(expected)));
    Rules gathered(Opcode::kAllGather, m_result.elements[1], m_operands, m_attributes);
    gathered.m_name = "all-gather-start (element 1)";
    return gathered.check_all_gather();
  }

  // batch-norm-inference (x, scale, offset, mean, variance), -training (x, scale, offset) and -grad
  // (x, scale, mean, variance, grad_output): the per-feature operands are [C], C the size of x's
  // dimension feature_index (XLA's shape inference); grad_output is x's shape. The result: x's
  // shape, with the training and grad forms' two [C] outputs.
  Outcome check_batch_norm() const {
    auto feature = int_value("feature_index");
    if (!feature || m_operands.empty() || !operand(0) || operand(0)->is_tuple) return {};
    const Shape& x = *operand(0);
    if (*feature < 0 || pos(*feature) >= x.rank()) return {};
    const Dims per_feature{x.dims[pos(*feature)]};
    const bool grad = m_opcode == Opcode::kBatchNormGrad;
    for (std::size_t k = 1; k < m_operands.size(); ++k) {
      const Shape* s = operand(k);
      if (!s) return {};
      const bool whole = grad && k == 4;
      if (s->is_tuple || s->dims != (whole ? x.dims : per_feature))
        return fail(fmt::format(
            "{}'s operand {} is {} but must be {}", m_name, k, text(*s),
            whole ? fmt::format("x's shape {}", text(x))
                  : fmt::format("a vector of {} elements (the size of x's dimension {})", per_feature[0], *feature)));
    }
    if (m_opcode == Opcode::kBatchNormInference) return expect(x, "operand 0 (x)");
    Shape feature_shape = array(x.type, per_feature);
    return expect(tuple({x, feature_shape, feature_shape}), "x and its features");
  }

  // Inference: each operand with dimension `d` multiplied by the group size.
  Outcome infer_all_gather(std::int64_t d, std::int64_t devices) const {
    std::vector<Shape> elements;
    for (std::size_t k = 0; k < m_operands.size(); ++k) {
      const Shape* in = operand(k);
      if (!in || d < 0 || pos(d) >= in->rank()) return {};
      Dims out = in->dims;
      auto size = mul(out[pos(d)], devices);
      if (!size) return {};
      out[pos(d)] = *size;
      elements.push_back(array(in->type, std::move(out)));
    }
    Shape inferred = elements.size() == 1 ? std::move(elements.front()) : tuple(std::move(elements));
    return expect(inferred, "the operands");
  }

  // XLA's verifier rules that hold whatever the dynamic sizes of the shapes (the rules of the
  // table below leave shapes with dynamic sizes alone). Each guards the maps, which take these
  // relations for granted: the structure-aware mutants (tests/fuzz/hlo_mutator.hpp) found every
  // one of them as an internal error, one as a segmentation fault.
  Outcome check_whatever_the_sizes() const {
    switch (m_opcode) {
      case Opcode::kPad:
        return m_operands.size() == 2 ? scalar_operand(1, "pad's padding value (operand 1)", false) : Outcome{};
      case Opcode::kSetDimensionSize:
        return m_operands.size() == 2 ? scalar_operand(1, "set-dimension-size's size (operand 1)", true) : Outcome{};
      case Opcode::kDynamicReshape:
        for (std::size_t k = 1; k < m_operands.size(); ++k) {
          if (Outcome problem = scalar_operand(k, fmt::format("dynamic-reshape's size operand {}", k), true))
            return problem;
        }
        return {};
      case Opcode::kGetDimensionSize:
        if (!inferring() && (m_result.is_tuple || m_result.rank() != 0 || m_result.type != ElementType::kS32))
          return fail(fmt::format("get-dimension-size returns s32[], not {}", text(m_result)));
        return {};
      case Opcode::kSend: return leading_copies_of_operand(1);       // (the data, a context, a token)
      case Opcode::kCopyStart: return leading_copies_of_operand(2);  // (destination, source, context)
      case Opcode::kScatter:  // (operands..., indices, updates...): the reducer gives the element types
        return m_operands.size() % 2 == 1 ? results_of_operand_dimensions((m_operands.size() - 1) / 2) : Outcome{};
      case Opcode::kAllToAll:  // the array form exchanges blocks of a dimension in place, the tuple form operands
        return results_of_operand_dimensions(m_operands.size());
      case Opcode::kDynamicUpdateSlice:  // the maps index the update by the operand's dimensions
        if (m_operands.size() >= 2 && operand(0) && operand(1) && operand(1)->rank() != operand(0)->rank())
          return fail(fmt::format("dynamic-update-slice update {} has rank {} but the operand {} has rank {}",
                                  text(*operand(1)), operand(1)->rank(), text(*operand(0)), operand(0)->rank()));
        return {};
      case Opcode::kConcatenate: return concatenate_ranks();
      default:
        if (hlo::op_traits(m_opcode).result == hlo::ShapeRule::kElementwise) return elementwise_ranks();
        return check_tuple_element_passthrough();
    }
  }

  // A concatenate joins operands of one rank along a dimension they have (a scalar operand
  // reached the maps as an index past its rank).
  Outcome concatenate_ranks() const {
    auto dims = int_list("dimensions");
    if (m_operands.empty() || !dims || dims->size() != 1) return {};
    const std::int64_t d = dims->front();
    for (std::size_t k = 0; k < m_operands.size(); ++k) {
      const Shape* in = operand(k);
      if (!in) continue;
      if (d < 0 || pos(d) >= in->rank())
        return fail(fmt::format("concatenate dimension {} is not a dimension of operand {} {}", d, k, text(*in)));
      if (const Shape* first = operand(0); first && in->rank() != first->rank())
        return fail(fmt::format("concatenate operand {} {} has rank {} but operand 0 {} has rank {}", k, text(*in),
                                in->rank(), text(*first), first->rank()));
    }
    return {};
  }

  // An elementwise op's array operands have the result's rank, whatever their dynamic sizes
  // (scalars aside: clamp's bounds); the maps index each operand by the result's index. Static
  // shapes are left to check_elementwise, which says more.
  Outcome elementwise_ranks() const {
    if (inferring() || m_result.is_tuple) return {};
    const bool all_static =
        is_static(m_result) &&
        std::all_of(m_operands.begin(), m_operands.end(), [](const Shape* s) { return s == nullptr || is_static(*s); });
    if (all_static) return {};
    for (std::size_t k = 0; k < m_operands.size(); ++k) {
      const Shape* in = operand(k);
      if (in && in->rank() != 0 && in->rank() != m_result.rank())
        return fail(fmt::format("{} operand {} {} has rank {} but the result {} has rank {}", m_name, k, text(*in),
                                in->rank(), text(m_result), m_result.rank()));
    }
    return {};
  }

  // Operand k a scalar (an integer one when `integer`), described in errors as `what`.
  Outcome scalar_operand(std::size_t k, std::string_view what, bool integer) const {
    const Shape* s = k < m_operands.size() ? m_operands[k] : nullptr;
    if (!s || (!s->is_tuple && s->rank() == 0 && (!integer || is_integer(s->type)))) return {};
    return fail(fmt::format("{} must be a scalar{}, not {}", what, integer ? " integer" : "", text(*s)));
  }

  // send and copy-start: the first `copies` elements of the result are the operand's shape.
  Outcome leading_copies_of_operand(std::size_t copies) const {
    if (inferring() || m_operands.empty() || !operand(0)) return {};
    if (!m_result.is_tuple || m_result.elements.size() <= copies)
      return fail(fmt::format("{} must return a tuple whose first {} its operand's shape and a context, not {}", m_name,
                              copies == 2 ? "two elements are" : "element is", text(m_result)));
    for (std::size_t k = 0; k < copies; ++k) {
      if (!hlo::compatible(m_result.elements[k], *operand(0)))
        return fail(fmt::format("{}'s result element {} is {} but its operand is {}", m_name, k,
                                text(m_result.elements[k]), text(*operand(0))));
    }
    return {};
  }

  // scatter and all-to-all: one result per operand of the first `n`, of its dimensions.
  Outcome results_of_operand_dimensions(std::size_t n) const {
    if (inferring() || n == 0) return {};
    const bool single = n == 1 && !m_result.is_tuple;
    if (!single && (!m_result.is_tuple || m_result.elements.size() != n))
      return fail(fmt::format("{} of {} operands must return {} results, not {}", m_name, n, n, text(m_result)));
    for (std::size_t k = 0; k < n; ++k) {
      const Shape& out = single ? m_result : m_result.elements[k];
      if (operand(k) && (out.is_tuple || out.dims != operand(k)->dims))
        return fail(fmt::format("{}'s result{} is {} but operand {} is {}: {} returns its operands' dimensions", m_name,
                                single ? "" : fmt::format(" element {}", k), text(out), k, text(*operand(k)),
                                m_opcode == Opcode::kScatter ? "a scatter" : "an all-to-all"));
    }
    return {};
  }

  // The ops that pass elements of a tuple operand through (op_traits' tuple_element: the
  // -done and -update of async pairs, opt-barrier, domain): their results have the
  // dimensions of the elements they pass (types may differ: recv-done's token for the context).
  Outcome check_tuple_element_passthrough() const {
    using E = hlo::TupleElement;
    const E element = hlo::op_traits(m_opcode).tuple_element;
    // recv-done is left out: XLA's own tests hold one whose data differs from its recv's
    // (import_async.hlo in the corpus), and XLA accepts it.
    if (element == E::kNone || element == E::kIndexAttribute || m_opcode == Opcode::kRecvDone || inferring() ||
        m_operands.size() != 1 || !m_operands[0])
      return {};
    const Shape& in = *m_operands[0];  // operand() gives arrays only
    auto mismatch = [&](const Shape& passed, std::string_view what) {
      return fail(fmt::format("{} result shape {} does not have the dimensions of {}, {}", m_name, text(m_result), what,
                              text(passed)));
    };
    if (element == E::kFirst || element == E::kSecond) {
      const std::size_t k = element == E::kFirst ? 0 : 1;
      if (!in.is_tuple || in.elements.size() <= k) return {};
      return same_dimensions(m_result, in.elements[k])
                 ? Outcome{}
                 : mismatch(in.elements[k], fmt::format("element {} of its operand", k));
    }
    if (!in.is_tuple) return same_dimensions(m_result, in) ? Outcome{} : mismatch(in, "its operand");
    if (!m_result.is_tuple)
      return in.elements.empty() || same_dimensions(m_result, in.elements[0])
                 ? Outcome{}
                 : mismatch(in.elements[0], "element 0 of its operand");
    for (std::size_t k = 0; k < m_result.elements.size(); ++k) {
      if (k >= in.elements.size() || !same_dimensions(m_result.elements[k], in.elements[k]))
        return mismatch(in, "the elements of its operand");
    }
    return {};
  }

  // Equal dimensions, recursively through tuples; element types are not compared.
  static bool same_dimensions(const Shape& a, const Shape& b) {
    if (a.is_tuple != b.is_tuple) return false;
    if (!a.is_tuple) return a.dims == b.dims;
    if (a.elements.size() != b.elements.size()) return false;
    for (std::size_t k = 0; k < a.elements.size(); ++k)
      if (!same_dimensions(a.elements[k], b.elements[k])) return false;
    return true;
  }

  //===--- Dispatch ---===//

  // Plain function pointers, each calling one rule directly: a call through a member-function
  // pointer takes a branch for virtual functions that reads the object's first word, which
  // GCC 12 at -O3 then reports as maybe uninitialised.
  using Rule = Outcome (*)(const Rules&);
  template <Outcome (Rules::*check)() const>
  static Outcome call(const Rules& rules) {
    return (rules.*check)();
  }

  Outcome no_rule() const { return {}; }  // iota (any shape) and the ops without a rule

  Outcome check_reverse() const { return unary_array() ? expect(*operand(0), "the operand") : Outcome{}; }

  // select-and-scatter (operand, source, init) and cholesky: operand 0's shape.
  Outcome check_operand_shape() const {
    if (m_operands.empty() || !operand(0) || m_result.is_tuple) return {};
    return expect(*operand(0), "operand 0");
  }

  // dynamic-reshape(operand, size...): operand 0's elements, one dimension per
  // size operand (whose bounds the text gives: nothing to infer them from).
  Outcome check_dynamic_reshape() const {
    if (m_operands.empty() || !operand(0) || operand(0)->is_tuple || m_result.is_tuple || inferring()) return {};
    if (m_result.rank() + 1 != m_operands.size())
      return fail(fmt::format("dynamic-reshape to {} needs {} size operands, not {}", hlo::to_string(m_result),
                              m_result.rank(), m_operands.size() - 1));

    if (m_result.type != operand(0)->type)
      return fail(fmt::format("dynamic-reshape changes the element type ({} to {})", hlo::to_string(*operand(0)),
                              hlo::to_string(m_result)));
    return {};
  }

  Outcome check_output_operand_shape() const {
    if (m_operands.size() < 2 || !operand(1) || m_result.is_tuple) return {};
    return expect(*operand(1), "operand 1 (the output buffer)");
  }

  // triangular-solve(a, b): x has b's shape.
  Outcome check_triangular_solve() const {
    if (m_operands.size() != 2 || !operand(1) || m_result.is_tuple) return {};
    return expect(*operand(1), "b (operand 1)");
  }

  // FFT/IFFT keep the shape; RFFT takes a real operand to the complex type
  // with n/2+1 elements in the innermost transformed dimension; IRFFT back,
  // to fft_length.
  Outcome check_fft() const {
    auto type_text = attribute("fft_type");
    auto lengths = int_list("fft_length");
    if (!unary_array() || !type_text || !lengths || lengths->empty() || lengths->size() > operand(0)->rank()) return {};
    const Shape& in = *operand(0);
    const std::string_view type = *type_text;
    if (type == "FFT" || type == "IFFT") return expect(in, "the operand");
    const bool forward = type == "RFFT";
    if (!forward && type != "IRFFT") return {};
    ElementType out_type;
    if (forward) {
      if (in.type != ElementType::kF32 && in.type != ElementType::kF64) return {};
      out_type = in.type == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
    } else {
      if (!is_complex(in.type)) return {};
      out_type = in.type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    }
    Dims out = in.dims;
    const std::size_t first = in.rank() - lengths->size();
    for (std::size_t i = 0; i < lengths->size(); ++i) {
      const std::int64_t n = (*lengths)[i];
      if (n < 0) return {};
      out[first + i] = forward && i + 1 == lengths->size() ? n / 2 + 1 : n;
    }
    return expect_array(out_type, out, "fft_type and fft_length", *type_text);
  }

  // The rule of each hlo::ShapeRule (op_traits.hpp says which op has which).
  static Rule rule(hlo::ShapeRule r) {
    using S = hlo::ShapeRule;
    struct Row {
      S name;
      Rule rule;
    };
    static constexpr Row k_rules[] = {
        {S::kNone, &call<&Rules::no_rule>},
        {S::kElementwise, &call<&Rules::check_elementwise>},
        {S::kBitcastConvert, &call<&Rules::check_bitcast_convert>},
        {S::kBroadcast, &call<&Rules::check_broadcast>},
        {S::kTranspose, &call<&Rules::check_transpose>},
        {S::kReverse, &call<&Rules::check_reverse>},
        {S::kSlice, &call<&Rules::check_slice>},
        {S::kReshape, &call<&Rules::check_reshape>},
        {S::kBitcast, &call<&Rules::check_bitcast>},
        {S::kConcatenate, &call<&Rules::check_concatenate>},
        {S::kDot, &call<&Rules::check_dot>},
        {S::kReduce, &call<&Rules::check_reduce>},
        {S::kPad, &call<&Rules::check_pad>},
        {S::kReduceWindow, &call<&Rules::check_reduce_window>},
        {S::kConvolution, &call<&Rules::check_convolution>},
        {S::kDynamicSlice, &call<&Rules::check_dynamic_slice>},
        {S::kDynamicUpdateSlice, &call<&Rules::check_dynamic_update_slice>},
        {S::kGather, &call<&Rules::check_gather>},
        {S::kGetTupleElement, &call<&Rules::check_get_tuple_element>},
        {S::kTuple, &call<&Rules::check_tuple>},
        {S::kAllGather, &call<&Rules::check_all_gather>},
        {S::kAllGatherStart, &call<&Rules::check_all_gather_start>},
        {S::kBatchNorm, &call<&Rules::check_batch_norm>},
        {S::kOperandShape, &call<&Rules::check_operand_shape>},
        {S::kOutputOperandShape, &call<&Rules::check_output_operand_shape>},
        {S::kTriangularSolve, &call<&Rules::check_triangular_solve>},
        {S::kFft, &call<&Rules::check_fft>},
        {S::kDynamicReshape, &call<&Rules::check_dynamic_reshape>},
    };
    static_assert(std::size(k_rules) == static_cast<std::size_t>(S::kCount), "one rule per hlo::ShapeRule");
    static_assert([] {
      for (std::size_t k = 0; k < std::size(k_rules); ++k)
        if (static_cast<std::size_t>(k_rules[k].name) != k) return false;
      return true;
    }());
    return k_rules[static_cast<std::size_t>(r)].rule;
  }

  static inline const Shape k_no_result{};

  Opcode m_opcode;
  std::optional<Shape>* m_inferred = nullptr;
  std::string_view m_name;
  const Shape& m_result;
  std::span<const Shape* const> m_operands;
  std::span<const hlo::Attribute> m_attributes;
};

// The result of an op without a result-shape rule whose shape XLA's inference
// fixes or takes from the operands unchanged; nothing for the others.
std::optional<Shape> infer_passthrough(Opcode opcode, std::span<const Shape* const> operands) {
  if (std::any_of(operands.begin(), operands.end(), [](const Shape* s) { return !s; })) return std::nullopt;
  switch (opcode) {
    case Opcode::kAfterAll: return array(ElementType::kToken, {});
    case Opcode::kPartitionId:
    case Opcode::kReplicaId: return array(ElementType::kU32, {});
    case Opcode::kGetDimensionSize: return array(ElementType::kS32, {});
    case Opcode::kAddDependency:  // the data operand
    case Opcode::kDomain:
    case Opcode::kOptBarrier:
    case Opcode::kWhile:  // the initial value
      if (operands.empty()) return std::nullopt;
      return *operands[0];
    case Opcode::kSort: {
      if (operands.size() == 1) return *operands[0];
      std::vector<Shape> elements;
      for (const Shape* s : operands) elements.push_back(*s);
      if (elements.empty()) return std::nullopt;
      return tuple(std::move(elements));
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<ResultShapeError> check_result_shape(hlo::Opcode opcode, const hlo::Shape& result,
                                                   std::span<const hlo::Shape* const> operands,
                                                   std::span<const hlo::Attribute> attributes) {
  return Rules(opcode, result, operands, attributes).check();
}

bool has_result_check(hlo::Opcode opcode) {
  return opcode != Opcode::kUnknown &&
         (hlo::op_traits(opcode).result != hlo::ShapeRule::kNone || opcode == Opcode::kGetDimensionSize ||
          opcode == Opcode::kSetDimensionSize || opcode == Opcode::kSend || opcode == Opcode::kCopyStart ||
          opcode == Opcode::kScatter || opcode == Opcode::kAllToAll ||
          hlo::op_traits(opcode).tuple_element != hlo::TupleElement::kNone);
}

std::variant<hlo::Shape, ResultShapeError, std::monostate> infer_result_shape(
    hlo::Opcode opcode, std::span<const hlo::Shape* const> operands, std::span<const hlo::Attribute> attributes) {
  if (hlo::op_traits(opcode).result == hlo::ShapeRule::kNone) {
    if (auto shape = infer_passthrough(opcode, operands)) return std::move(*shape);
    return std::monostate{};
  }
  std::optional<hlo::Shape> inferred;
  if (auto problem = Rules(opcode, operands, attributes, &inferred).check()) return std::move(*problem);
  if (!inferred) return std::monostate{};
  return std::move(*inferred);
}

}  // namespace hlo_index::parser
