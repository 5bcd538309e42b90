#include "indexing/ops/backend_config.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace hlo_index::indexing::detail {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 10> k_epilogues = {
    "DEFAULT", "BIAS", "RELU", "BIAS_RELU", "GELU", "GELU_AUX", "BIAS_GELU", "BIAS_GELU_AUX", "SILU", "BIAS_SILU"};

[[noreturn]] void malformed(const std::string& why) { throw Unsupported("backend_config: " + why); }

// lowerCamelCase to the proto field name: older XLA printed backend_config
// with proto3 JSON's default names ("cudnnConvBackendConfig",
// "sideInputScale"), which a proto3 parser accepts as well as the field names.
void field_names(Json& j) {
  if (j.is_array()) {
    for (Json& e : j) field_names(e);
    return;
  }
  if (!j.is_object()) return;
  Json renamed = Json::object();
  for (auto& [key, value] : j.items()) {
    field_names(value);
    std::string name;
    if (key.find('_') == std::string::npos) {
      for (const char c : key) {
        if (c >= 'A' && c <= 'Z') {
          name.push_back('_');
          name.push_back(static_cast<char>(c - 'A' + 'a'));
        } else {
          name.push_back(c);
        }
      }
    } else {
      name = key;
    }
    if (!renamed.contains(name) || name == key) renamed[name] = std::move(value);
  }
  j = std::move(renamed);
}

// The attribute as JSON: `backend_config={...}` as XLA prints it now, or
// `backend_config="{\"...\"}"`, a JSON document in an escaped string; field
// names as the proto spells them.
Json backend_config(const OpContext& op) {
  const std::string_view text = op.attribute("backend_config").value_or("");
  if (text.empty()) malformed("missing");
  std::string document(text);
  if (text.front() == '"') {
    const Json quoted = Json::parse(text, nullptr, false);
    if (quoted.is_discarded() || !quoted.is_string()) malformed("not a valid quoted string");
    document = quoted.get<std::string>();
  }
  Json j = Json::parse(document, nullptr, false);
  if (j.is_discarded()) malformed("not valid JSON");
  if (!j.is_object()) malformed("not a JSON object");
  field_names(j);
  return j;
}

// GpuBackendConfig's `key`, or the top level when it holds `field` (a config
// printed on its own, before GpuBackendConfig wrapped it).
const Json& sub_config(const Json& j, const char* key, const char* field) {
  if (const auto it = j.find(key); it != j.end()) {
    if (!it->is_object()) malformed(std::string(key) + " is not an object");
    return *it;
  }
  if (j.contains(field)) return j;
  malformed(std::string("no ") + key);
}

double number_field(const Json& j, const char* path, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {  // proto3 JSON writes NaN and the infinities as strings
    const auto& s = it->get_ref<const std::string&>();
    if (s == "NaN") return std::nan("");
    if (s == "Infinity" || s == "-Infinity") return s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    double value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size()) return value;
  }
  malformed(std::string(path) + key + " is not a number");
}

bool bool_field(const Json& j, const char* path, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return false;
  if (!it->is_boolean()) malformed(std::string(path) + key + " is not a boolean");
  return it->get<bool>();
}

// One int64 of a field: proto3 JSON writes int64 as a string ("1"), some writers as a number.
std::int64_t int_value(const Json& e, const char* path, const char* key) {
  if (e.is_number_integer()) return e.get<std::int64_t>();
  if (!e.is_string()) malformed(std::string(path) + key + " holds a non-integer");
  const auto& s = e.get_ref<const std::string&>();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    malformed(std::string(path) + key + " holds '" + s + "', not an integer");
  return value;
}

// A repeated int64 field; absent means empty.
std::vector<std::int64_t> int_list(const Json& j, const char* path, const char* key) {
  std::vector<std::int64_t> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array()) malformed(std::string(path) + key + " is not a list");
  for (const Json& e : *it) out.push_back(int_value(e, path, key));
  return out;
}

// A scalar int64 field; none when absent.
std::optional<std::int64_t> int_field(const Json& j, const char* path, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  return int_value(*it, path, key);
}

GemmEpilogue epilogue_field(const Json& j) {
  const auto it = j.find("epilogue");
  if (it == j.end()) return GemmEpilogue::kDefault;
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    for (std::size_t i = 0; i < k_epilogues.size(); ++i)
      if (k_epilogues[i] == s) return static_cast<GemmEpilogue>(i);
    malformed("gemm_backend_config.epilogue '" + s + "' is not a known epilogue");
  }
  if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    if (v >= 0 && v < static_cast<std::int64_t>(k_epilogues.size())) return static_cast<GemmEpilogue>(v);
  }
  malformed("gemm_backend_config.epilogue is not a known epilogue");
}

}  // namespace

bool adds_vector_bias(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::kBias:
    case GemmEpilogue::kBiasRelu:
    case GemmEpilogue::kBiasGelu:
    case GemmEpilogue::kBiasGeluAux:
    case GemmEpilogue::kBiasSilu: return true;
    default: return false;
  }
}

bool has_aux_output(GemmEpilogue e) { return e == GemmEpilogue::kGeluAux || e == GemmEpilogue::kBiasGeluAux; }

std::string_view epilogue_name(GemmEpilogue e) { return k_epilogues.at(static_cast<std::size_t>(e)); }

GemmConfig gemm_config(const OpContext& op) {
  const Json j = backend_config(op);
  const Json& gemm = sub_config(j, "gemm_backend_config", "dot_dimension_numbers");
  const auto dims = gemm.find("dot_dimension_numbers");
  if (dims == gemm.end() || !dims->is_object()) malformed("gemm_backend_config has no dot_dimension_numbers");
  constexpr const char* path = "dot_dimension_numbers.";
  GemmConfig c;
  c.dot.lhs_batch = int_list(*dims, path, "lhs_batch_dimensions");
  c.dot.rhs_batch = int_list(*dims, path, "rhs_batch_dimensions");
  c.dot.lhs_contracting = int_list(*dims, path, "lhs_contracting_dimensions");
  c.dot.rhs_contracting = int_list(*dims, path, "rhs_contracting_dimensions");
  c.beta = number_field(gemm, "gemm_backend_config.", "beta");
  c.epilogue = epilogue_field(gemm);
  c.damax_output = bool_field(gemm, "gemm_backend_config.", "damax_output");
  return c;
}

TriangularSolveOptions triangular_solve_options(const OpContext& op) {
  const Json j = backend_config(op);
  TriangularSolveOptions o;
  o.left_side = bool_field(j, "", "left_side");
  o.lower = bool_field(j, "", "lower");
  o.unit_diagonal = bool_field(j, "", "unit_diagonal");
  // TriangularSolveOptions.Transpose: TRANSPOSE_INVALID, NO_TRANSPOSE, TRANSPOSE, ADJOINT.
  constexpr std::array<std::string_view, 4> names = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  const auto it = j.find("transpose_a");
  if (it == j.end()) malformed("no transpose_a");
  if (it->is_string())
    o.transpose_a = it->get<std::string>();
  else if (it->is_number_integer() && it->get<std::int64_t>() >= 1 && it->get<std::int64_t>() <= 3)
    o.transpose_a = names.at(static_cast<std::size_t>(it->get<std::int64_t>()));
  else
    malformed("transpose_a is not a known transpose");
  if (o.transpose_a != names[1] && o.transpose_a != names[2] && o.transpose_a != names[3])
    malformed("transpose_a '" + o.transpose_a + "' is not a known transpose");
  return o;
}

double cudnn_side_input_scale(const OpContext& op) {
  const Json j = backend_config(op);
  return number_field(sub_config(j, "cudnn_conv_backend_config", "conv_result_scale"), "cudnn_conv_backend_config.",
                      "side_input_scale");
}

std::optional<WhileLoopConfig> while_loop_config(const OpContext& op) {
  if (!op.attribute("backend_config")) return std::nullopt;
  const Json j = backend_config(op);
  WhileLoopConfig c;
  auto sub = [&](const char* key) -> const Json* {
    const auto it = j.find(key);
    if (it == j.end()) return nullptr;
    if (!it->is_object()) malformed(std::string(key) + " is not an object");
    return &*it;
  };
  if (const Json* trips = sub("known_trip_count")) c.trip_count = int_field(*trips, "known_trip_count.", "n");
  if (const Json* init_step = sub("known_init_step")) {
    c.init = int_field(*init_step, "known_init_step.", "init");
    c.step = int_field(*init_step, "known_init_step.", "step");
  }
  if (const Json* variable = sub("known_induction_variable"))
    c.induction_element = int_field(*variable, "known_induction_variable.", "tuple_index");
  return c;
}

}  // namespace hlo_index::indexing::detail
