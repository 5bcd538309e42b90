// SARIF 2.1.0 output of `hlo-index lint --format sarif`, for code-scanning
// UIs: one run, every rule as a reporting descriptor, one result per finding.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/verdicts/lint_rules.hpp"

namespace hlo_index::app {

/// The SARIF log of `findings` (sorted as they should appear). `ruleIndex` is
/// the rule's position in lint_rules(); every rule is listed, enabled or not.
nlohmann::ordered_json sarif_log(const std::vector<analysis::LintFinding>& findings);

/// A path as a SARIF artifact URI: relative paths stay relative references
/// (`dumps/model.hlo`), absolute ones become `file:///...`; characters outside
/// RFC 3986's unreserved set and '/' are percent-encoded.
std::string sarif_uri(std::string_view path);

}  // namespace hlo_index::app
