// The charts of `hlo-index report`: a roofline of a module's rows (arithmetic
// intensity against attained FLOP rate under the device model, the device's
// roofs drawn, one dot per kind of fusion sized by its time) and the
// estimated time by framework op (the op_name hierarchy, as nested HTML
// disclosure elements). Deterministic bytes: integer coordinates only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "indexing/cost/device.hpp"
#include "indexing/verdicts/summary.hpp"
#include "indexing/verdicts/summary_groups.hpp"

namespace hlo_index::app {

/// The roofline as an inline SVG with a one-line caption before it (HTML).
/// `links` maps a row's name to the id of its detail on the page (its dot links there).
std::string roofline_html(const std::vector<analysis::SummaryRow>& rows, const cost::Device& device,
                          const std::map<std::string, std::string>& links, const std::string& id_prefix);

/// The op_name tree as nested <details>: nodes under `min_share` of the
/// module's time folded into one `other` line per parent.
std::string op_tree_html(const analysis::OpNameNode& root, double module_seconds, double min_share = 0.005);

}  // namespace hlo_index::app
