#include "app/sarif.hpp"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>

namespace hlo_index::app {

using analysis::baseline_key;
using analysis::lint_rules;
using analysis::LintFinding;
using analysis::LintRuleInfo;

namespace {

using json = nlohmann::ordered_json;

json rule_descriptor(const LintRuleInfo& r) {
  std::string help;
  if (!r.thresholds.empty()) help.append("Thresholds: ").append(r.thresholds).append(". ");
  help.append("Usual fix: ").append(analysis::rule_fix(r.rule)).append(". ");
  help.append("Disable with `hlo-index lint --disable ").append(r.id).append("`; ");
  help.append("`hlo-index lint --explain ").append(r.id).append("` explains the rule.");
  return json{{"id", std::string(r.id)},
              {"shortDescription", {{"text", std::string(r.summary)}}},
              {"fullDescription", {{"text", std::string(r.description)}}},
              {"help", {{"text", help}}},
              {"defaultConfiguration", {{"level", std::string(analysis::level_name(r.level))}}}};
}

// The finding's source line (`file:line` from the instruction's metadata) as a SARIF location.
std::optional<json> source_location(const LintFinding& f) {
  const std::size_t colon = f.source.rfind(':');
  if (f.source.empty() || colon == std::string::npos || colon + 1 >= f.source.size() ||
      f.source.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return std::nullopt;
  const std::string file = f.source.substr(0, colon);
  const std::size_t line = std::stoul(f.source.substr(colon + 1));
  if (line == 0) return std::nullopt;
  return json{
      {"physicalLocation", {{"artifactLocation", {{"uri", sarif_uri(file)}}}, {"region", {{"startLine", line}}}}}};
}

json result(const LintFinding& f) {
  const auto index = static_cast<std::size_t>(f.rule);
  json physical{{"artifactLocation", {{"uri", sarif_uri(f.file)}}}};
  // SARIF lines start at 1: an instruction that is not in the text has no region.
  if (f.line > 0) physical["region"] = json{{"startLine", f.line}, {"startColumn", f.column}};
  std::string qualified = f.module;
  qualified.append("/").append(f.computation).append("/").append(f.instruction);
  json location{{"physicalLocation", std::move(physical)},
                {"logicalLocations", json::array({json{{"fullyQualifiedName", qualified}, {"kind", "object"}}})}};
  // Where the dump names the Python source line, that is where the alert points; the HLO
  // instruction is a related location.
  json locations = json::array(), related = json::array();
  if (auto source = source_location(f)) {
    locations.push_back(std::move(*source));
    location["id"] = 0;
    location["message"] = json{{"text", "the HLO instruction"}};
    related.push_back(std::move(location));
  } else {
    locations.push_back(std::move(location));
  }
  json r{{"ruleId", std::string(lint_rules()[index].id)},
         {"ruleIndex", index},
         {"level", std::string(analysis::level_name(lint_rules()[index].level))},
         {"message", {{"text", f.message}}},
         {"locations", std::move(locations)},
         // The baseline key (rule, module, the instruction's structural fingerprint, operand):
         // one alert per problem across runs that move lines, renumber or reorder.
         {"partialFingerprints", {{"hloIndexFinding/v2", baseline_key(f)}}}};
  json properties = f.values;
  if (!f.op_name.empty()) properties["op_name"] = f.op_name;
  if (!f.source.empty()) properties["source"] = f.source;
  if (!properties.empty()) r["properties"] = std::move(properties);
  if (!related.empty()) r["relatedLocations"] = std::move(related);
  return r;
}

}  // namespace

std::string sarif_uri(std::string_view path) {
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '/') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned>(c));
    }
  }
  return out;
}

json sarif_log(const std::vector<LintFinding>& findings) {
  json rules = json::array();
  for (const LintRuleInfo& r : lint_rules()) rules.push_back(rule_descriptor(r));
  json results = json::array();
  for (const LintFinding& f : findings) results.push_back(result(f));
  json driver{{"name", "hlo-index"}, {"rules", std::move(rules)}};
  json run{{"tool", {{"driver", std::move(driver)}}}, {"results", std::move(results)}};
  return json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({std::move(run)})}};
}

}  // namespace hlo_index::app
