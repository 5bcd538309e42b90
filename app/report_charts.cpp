#include "app/report_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "app/svg_writer.hpp"
#include "indexing/cost/units.hpp"

namespace hlo_index::app {

using analysis::SummaryRow;

namespace {

// One dot: rows with equal FLOPs, bytes and time per run (the layers of a model) are one.
struct Dot {
  double intensity = 0, rate = 0;  // FLOP per byte, FLOP per second
  double seconds = 0;              // over every run of every row it stands for
  cost::Bound bound = cost::Bound::kNone;
  std::size_t rows = 0;
  std::string name;  // the first row's
};

constexpr int k_chart_width = 720, k_chart_height = 380;
constexpr int k_chart_left = 70, k_chart_right = 20, k_chart_top = 16, k_chart_bottom = 44;
constexpr std::size_t k_max_dots = 1500;

std::string_view bound_colour(cost::Bound bound) {
  switch (bound) {
    case cost::Bound::kCompute: return "#d62728";
    case cost::Bound::kMemory: return "#1f77b4";
    case cost::Bound::kCollective: return "#2ca02c";
    default: return "#7f7f7f";
  }
}

// A log10 axis over whole decades.
struct LogAxis {
  double low = 0, high = 1;  // exponents
  int from = 0, to = 1;      // pixels
  int at(double value) const {
    const double t = (std::log10(value) - low) / (high - low);
    return from + static_cast<int>(std::lround(t * (to - from)));
  }
};

LogAxis decades(double smallest, double largest, int from, int to) {
  double low = std::floor(std::log10(smallest)), high = std::ceil(std::log10(largest));
  if (high <= low) high = low + 1;
  return {low, high, from, to};
}

std::string decade_label(double exponent) {
  return exponent < 3 ? fmt::format("{:g}", std::pow(10.0, exponent)) : cost::human_count(std::pow(10.0, exponent));
}

}  // namespace

std::string roofline_html(const std::vector<SummaryRow>& rows, const cost::Device& device,
                          const std::map<std::string, std::string>& links, const std::string& id_prefix) {
  std::map<std::tuple<std::int64_t, std::int64_t, double>, Dot> by_cost;
  double off_seconds = 0, all_seconds = 0;
  std::size_t off_rows = 0;
  for (const SummaryRow& r : rows) {
    all_seconds += r.seconds();
    const double flops = static_cast<double>(r.cost.flops + r.cost.transcendentals);
    const std::int64_t bytes = r.cost.device_bytes();
    if (flops <= 0 || bytes <= 0 || r.cost.seconds <= 0) {
      off_seconds += r.seconds();
      ++off_rows;
      continue;
    }
    Dot& d = by_cost[{r.cost.flops + r.cost.transcendentals, bytes, r.cost.seconds}];
    if (d.rows == 0) {
      d.intensity = flops / static_cast<double>(bytes);
      d.rate = flops / r.cost.seconds;
      d.bound = r.cost.bound;
      d.name = r.name;
    }
    d.seconds += r.seconds();
    ++d.rows;
  }
  std::vector<Dot> dots;
  dots.reserve(by_cost.size());
  for (auto& [key, d] : by_cost) dots.push_back(std::move(d));
  std::stable_sort(dots.begin(), dots.end(), [](const Dot& a, const Dot& b) { return a.seconds > b.seconds; });
  const std::size_t left_out = dots.size() > k_max_dots ? dots.size() - k_max_dots : 0;
  if (left_out > 0) dots.resize(k_max_dots);

  const double bandwidth = device.memory_bandwidth;
  double matrix_peak = 0, vector_peak = 0;
  for (const cost::Peak& p : device.peaks) {
    (p.unit == cost::ComputeUnit::kMatrix ? matrix_peak : vector_peak) =
        std::max(p.unit == cost::ComputeUnit::kMatrix ? matrix_peak : vector_peak, p.flops_per_second);
  }
  const double top_peak = std::max(matrix_peak, vector_peak);
  std::string caption = fmt::format(
      "Roofline on {}: each dot a kind of {} (equal FLOPs, bytes and time), its area its share of the time; "
      "colour: what bounds it (red compute, blue memory, grey launch overhead, green collective). Lines: memory "
      "bandwidth {}/s, matrix peak {} FLOP/s, vector peak {} FLOP/s.",
      device.name, rows.empty() || rows.front().kind != "-" ? "fusion" : "instruction", cost::human_bytes(bandwidth),
      cost::human_count(matrix_peak), cost::human_count(vector_peak));
  if (off_rows > 0)
    caption += fmt::format(" Not drawn: {} without FLOPs or device bytes ({:.1f}% of the time).",
                           cost::plural(off_rows, "row"), all_seconds > 0 ? 100.0 * off_seconds / all_seconds : 0.0);
  if (left_out > 0) caption += fmt::format(" The {} smallest kinds are left out.", left_out);
  std::string out = fmt::format("<p class=\"caption\">{}</p>\n", xml_escape(caption));
  if (dots.empty() || bandwidth <= 0 || top_peak <= 0) return out;

  double low_i = dots.front().intensity, high_i = low_i, low_r = dots.front().rate;
  for (const Dot& d : dots) {
    low_i = std::min(low_i, d.intensity);
    high_i = std::max(high_i, d.intensity);
    low_r = std::min(low_r, d.rate);
  }
  for (double peak : {matrix_peak, vector_peak}) {
    if (peak > 0) high_i = std::max(high_i, peak / bandwidth * 4);  // the ridge points, with room past them
  }
  const LogAxis x = decades(low_i, high_i, k_chart_left, k_chart_width - k_chart_right);
  const LogAxis y = decades(std::min(low_r, bandwidth * std::pow(10.0, x.low)), top_peak * 1.5,
                            k_chart_height - k_chart_bottom, k_chart_top);
  SvgWriter svg;
  svg.rect(k_chart_left, k_chart_top, k_chart_width - k_chart_left - k_chart_right,
           k_chart_height - k_chart_top - k_chart_bottom, "#fff", {}, R"(stroke="#999")");
  for (int e = static_cast<int>(x.low); e <= static_cast<int>(x.high); ++e) {
    const int px = x.at(std::pow(10.0, e));
    svg.line(px, k_chart_top, px, k_chart_height - k_chart_bottom, "#eee");
    svg.text(px, k_chart_height - k_chart_bottom + 16, decade_label(e),
             {.size = 11, .anchor = "middle", .fill = "#555"});
  }
  for (int e = static_cast<int>(y.low); e <= static_cast<int>(y.high); ++e) {
    const int py = y.at(std::pow(10.0, e));
    svg.line(k_chart_left, py, k_chart_width - k_chart_right, py, "#eee");
    svg.text(k_chart_left - 6, py + 4, decade_label(e), {.size = 11, .anchor = "end", .fill = "#555"});
  }
  svg.text((k_chart_left + k_chart_width - k_chart_right) / 2, k_chart_height - 8,
           "arithmetic intensity (FLOP per byte of device memory)", {.size = 12, .anchor = "middle"});
  svg.raw(fmt::format(R"svg(<text x="16" y="{}" font-size="12" text-anchor="middle" transform="rotate(-90 16 {})">)svg"
                      "attained FLOP/s</text>\n",
                      (k_chart_top + k_chart_height - k_chart_bottom) / 2,
                      (k_chart_top + k_chart_height - k_chart_bottom) / 2));
  // The roofs: memory (rate = intensity x bandwidth) up to each peak.
  auto roof = [&](double peak, std::string_view label) {
    if (peak <= 0) return;
    const double ridge = peak / bandwidth, left = std::pow(10.0, x.low), right = std::pow(10.0, x.high);
    const double start_rate = std::max(left * bandwidth, std::pow(10.0, y.low));
    const double start_i = start_rate / bandwidth;
    svg.line(x.at(start_i), y.at(start_rate), x.at(std::min(ridge, right)), y.at(std::min(peak, right * bandwidth)),
             "#444", 2);
    if (ridge < right) svg.line(x.at(ridge), y.at(peak), x.at(right), y.at(peak), "#444", 2);
    svg.text(x.at(right) - 4, y.at(peak) - 5, label, {.size = 11, .anchor = "end", .fill = "#444"});
  };
  roof(matrix_peak, "matrix peak");
  if (vector_peak < matrix_peak) roof(vector_peak, "vector peak");
  const double most = dots.front().seconds;
  // Smallest last so they stay visible above the large ones.
  for (auto it = dots.rbegin(); it != dots.rend(); ++it) {
    const Dot& d = *it;
    const int radius = 2 + static_cast<int>(std::lround(14.0 * std::sqrt(d.seconds / most)));
    const std::string title = fmt::format("{}{}: {} FLOP/byte, {} FLOP/s, {} in all, {}", d.name,
                                          d.rows > 1 ? fmt::format(" and {} more like it", d.rows - 1) : std::string(),
                                          cost::human_count(d.intensity), cost::human_count(d.rate),
                                          cost::human_seconds(d.seconds), cost::bound_name(d.bound));
    const std::string circle = fmt::format(
        R"(<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.55" stroke="{}"><title>{}</title></circle>)",
        x.at(d.intensity), y.at(d.rate), radius, bound_colour(d.bound), bound_colour(d.bound), xml_escape(title));
    const auto link = links.find(d.name);
    svg.raw(link != links.end() ? fmt::format(R"(<a href="#{}">{}</a>)", xml_escape(link->second), circle) + "\n"
                                : circle + "\n");
  }
  std::string document = svg.document(k_chart_width, k_chart_height, "roofline");
  // Ids inside the picture are none; the prefix names the chart for links and tests.
  out += fmt::format("<div class=\"chart\" id=\"{}roofline\">{}</div>\n", xml_escape(id_prefix), document);
  return out;
}

namespace {

void node_html(const analysis::OpNameNode& node, double module_seconds, double min_share, int depth, std::string& out);

// A node's children over `min_share` of the module's time, then one line for the rest.
void children_html(const analysis::OpNameNode& node, double module_seconds, double min_share, int depth,
                   std::string& out) {
  analysis::RowTotals folded;
  std::size_t folded_nodes = 0;
  for (const analysis::OpNameNode& child : node.children) {
    if (module_seconds > 0 && child.totals.seconds / module_seconds < min_share) {
      folded.seconds += child.totals.seconds;
      folded.rows += child.totals.rows;
      ++folded_nodes;
    } else {
      node_html(child, module_seconds, min_share, depth, out);
    }
  }
  if (folded_nodes == 0) return;
  out += fmt::format(R"(<div class="leaf other"><span class="t">{}</span> and {} more, each under {:.1f}% ({})</div>)"
                     "\n",
                     xml_escape(cost::human_seconds(folded.seconds)), cost::plural(folded_nodes, "op"), 100 * min_share,
                     xml_escape(cost::plural(folded.rows, "row")));
}

void node_html(const analysis::OpNameNode& node, double module_seconds, double min_share, int depth, std::string& out) {
  const double share = module_seconds > 0 ? node.totals.seconds / module_seconds : 0;
  const int bar = static_cast<int>(std::lround(std::min(1.0, share) * 200));
  // A part can be a whole JSON config (custom ops put theirs in the name): cut, whole in the tooltip.
  constexpr std::size_t k_max_part = 100;
  std::string part = node.part;
  if (part.size() > k_max_part) {
    std::size_t cut = k_max_part;
    while (cut > 0 && (static_cast<unsigned char>(part[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    part = part.substr(0, cut) + "\u2026";
  }
  const std::string line = fmt::format(
      R"(<span class="bar" style="width:{}px"></span><span class="t">{}</span> <span class="pct">{:.1f}%</span> )"
      R"(<span class="op" title="{}">{}</span> <span class="n">{}</span>)",
      bar, xml_escape(cost::human_seconds(node.totals.seconds)), 100 * share, xml_escape(node.part), xml_escape(part),
      xml_escape(cost::plural(node.totals.rows, "row")));
  if (node.children.empty() || depth >= 12) {
    out += "<div class=\"leaf\">" + line + "</div>\n";
    return;
  }
  out += fmt::format("<details{}><summary>{}</summary>\n", depth < 2 ? " open" : "", line);
  children_html(node, module_seconds, min_share, depth + 1, out);
  out += "</details>\n";
}

}  // namespace

std::string op_tree_html(const analysis::OpNameNode& root, double module_seconds, double min_share) {
  std::string out = "<div class=\"optree\">\n";
  children_html(root, module_seconds, min_share, 0, out);
  return out + "</div>\n";
}

}  // namespace hlo_index::app
