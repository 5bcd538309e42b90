#include "app/report_html.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "app/summary_command.hpp"
#include "app/svg_writer.hpp"
#include "indexing/cost/units.hpp"

namespace hlo_index::app {

using analysis::LintFinding;
using analysis::SummaryRow;

namespace {

constexpr std::string_view k_style = R"css(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px 32px; color: #222; background: #fafafa; }
h1 { font-size: 22px; margin: 0 0 4px 0; }
h2 { font-size: 18px; margin: 28px 0 6px 0; border-bottom: 2px solid #c33; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 18px 0 6px 0; }
p.meta, p.totals { color: #555; font-size: 13px; margin: 2px 0; }
table.summary { border-collapse: collapse; font-size: 12px; background: #fff; box-shadow: 0 1px 2px #ccc; }
table.summary th { background: #333; color: #fff; padding: 5px 8px; text-align: left; cursor: pointer;
  position: sticky; top: 0; white-space: nowrap; user-select: none; }
table.summary th:hover { background: #555; }
table.summary th[aria-sort=ascending]::after { content: " \25B2"; }
table.summary th[aria-sort=descending]::after { content: " \25BC"; }
table.summary td { padding: 3px 8px; border-bottom: 1px solid #eee; white-space: nowrap; }
table.summary td.num { text-align: right; font-family: "DejaVu Sans Mono", monospace; }
table.summary tr:hover td { background: #fff4e0; }
td.bad { color: #b00; font-weight: bold; }
ul.findings { font-size: 12px; background: #fff; padding: 8px 8px 8px 28px; box-shadow: 0 1px 2px #ccc; }
ul.findings li { margin: 4px 0; }
span.rule { display: inline-block; background: #c33; color: #fff; border-radius: 3px; padding: 0 5px; font-size: 11px; }
span.where { font-family: "DejaVu Sans Mono", monospace; color: #555; }
figure { background: #fff; margin: 8px 0; padding: 10px; box-shadow: 0 1px 2px #ccc; display: block; width: fit-content; }
p.caption { font-size: 12px; color: #444; max-width: 720px; margin: 4px 0; }
div.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
div.chart { background: #fff; box-shadow: 0 1px 2px #ccc; display: inline-block; }
div.boundbar { display: flex; width: 720px; height: 18px; box-shadow: 0 1px 2px #ccc; }
div.boundbar span { display: block; height: 100%; }
p.legend { font-size: 12px; color: #444; margin: 4px 0 10px 0; }
span.key { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 8px; }
div.optree { font-size: 12px; background: #fff; box-shadow: 0 1px 2px #ccc; padding: 6px 10px; min-width: 520px; }
div.optree details { margin-left: 14px; }
div.optree > details { margin-left: 0; }
div.optree div.leaf { margin-left: 28px; padding: 1px 0; }
div.optree span.bar { display: inline-block; height: 9px; background: #c33; margin-right: 6px; vertical-align: middle; }
div.optree span.t { display: inline-block; min-width: 64px; font-family: "DejaVu Sans Mono", monospace; }
div.optree span.pct { display: inline-block; min-width: 44px; text-align: right; color: #555; }
div.optree span.n { color: #777; }
details.detail { background: #fff; box-shadow: 0 1px 2px #ccc; margin: 6px 0; padding: 6px 10px; font-size: 13px; max-width: 1200px; }
details.detail > summary { cursor: pointer; }
details.detail div.body { margin-top: 6px; }
details.identical { font-size: 12px; color: #555; }
p.figures { font-size: 12px; color: #333; margin: 4px 0; }
pre.hlo { font-size: 11px; background: #f4f4f4; padding: 6px; overflow-x: auto; max-height: 420px; }
pre.hlo span.ln { color: #999; }
ul.operands { font-size: 12px; padding-left: 18px; }
table.summary td a { color: #03c; }
figcaption { font-size: 12px; color: #444; max-width: 760px; margin-bottom: 6px; }
p.none { color: #555; font-size: 13px; }
)css";

// Sorts a table by the column whose header is clicked (numbers by their data-v
// value, descending first; text ascending first); `#sort=COLUMN` in the URL
// sorts on load (the browser test uses it); `#ID` opens the detail ID.
constexpr std::string_view k_script = R"js(
(function () {
  function sortBy(table, k, descending) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var th = table.tHead.rows[0].cells[k], numeric = th.getAttribute('data-type') === 'num';
    rows.sort(function (a, b) {
      var x = a.cells[k].getAttribute('data-v'), y = b.cells[k].getAttribute('data-v');
      if (x === '' || y === '') return (x === '') - (y === '');
      var c = numeric ? Number(x) - Number(y) : (x < y ? -1 : x > y ? 1 : 0);
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    table.setAttribute('data-sorted', th.getAttribute('data-key') + (descending ? ' descending' : ' ascending'));
  }
  var tables = document.querySelectorAll('table.summary');
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, k) {
      th.addEventListener('click', function () {
        var numeric = th.getAttribute('data-type') === 'num', now = th.getAttribute('aria-sort');
        sortBy(table, k, now ? now === 'ascending' : numeric);
      });
    });
  });
  // A link to a detail (from the table or the roofline) opens it, and what encloses it.
  function openTarget() {
    var id = location.hash.slice(1), target = id && id.indexOf('sort=') !== 0 ? document.getElementById(id) : null;
    for (var e = target; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  var wanted = /#sort=([a-z]+)/.exec(location.hash);
  if (wanted) {
    Array.prototype.forEach.call(tables, function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, k) {
        if (th.getAttribute('data-key') === wanted[1]) sortBy(table, k, th.getAttribute('data-type') === 'num');
      });
    });
  }
})();
)js";

// The sort key of each column (data-v), in summary_headers() order; numbers
// as plain integers or fixed decimals, text as is; '' for no value.
std::vector<std::string> sort_keys(const SummaryRow& r) {
  auto optional = [](const std::optional<double>& v) { return v ? fmt::format("{:.6f}", *v) : std::string(); };
  return {fmt::format("{:.12e}", r.seconds()),
          fmt::format("{:.6f}", r.share),
          std::string(cost::bound_name(r.cost.bound)),
          std::to_string(r.cost.flops + r.cost.transcendentals),
          std::to_string(r.cost.device_bytes()),
          fmt::format("{:.6e}", r.cost.intensity()),
          optional(r.worst_utilisation),
          optional(r.highest_multiplicity),
          fmt::format("{}.{:06d}", r.access.rank, static_cast<int>((1.0 - r.access.used_fraction) * 999999)),
          std::to_string(r.lint_findings),
          std::to_string(r.line),
          r.kind != "-" ? r.kind : r.opcode,
          r.computation,
          r.name};
}

constexpr bool k_numeric[] = {true, true, false, true, true, true, true, true, true, true, true, false, false, false};

// With a profile, a `measured` column follows `time` (summary's order).
std::string table_html(const std::vector<SummaryRow>& rows, bool profile,
                       const std::map<std::string, std::string>& links) {
  std::string out = R"(<table class="summary"><thead><tr>)";
  std::vector<std::string> headers = summary_headers();
  std::vector<bool> numeric(std::begin(k_numeric), std::end(k_numeric));
  if (profile) {
    headers.insert(headers.begin() + 1, "measured");
    numeric.insert(numeric.begin() + 1, true);
  }
  const std::size_t shift = profile ? 1 : 0, access = 8 + shift, lint = 9 + shift;
  for (std::size_t k = 0; k < headers.size(); ++k)
    out += fmt::format(R"(<th data-key="{0}" data-type="{1}" title="sort by {0}">{0}</th>)", xml_escape(headers[k]),
                       numeric[k] ? "num" : "text");
  out += "</tr></thead>\n<tbody>\n";
  for (const SummaryRow& r : rows) {
    std::vector<std::string> cells = summary_cells(r), keys = sort_keys(r);
    if (profile) {
      cells.insert(cells.begin() + 1, measured_cell(r));
      keys.insert(keys.begin() + 1, r.measured_seconds ? fmt::format("{:.12e}", *r.measured_seconds) : std::string());
    }
    out += "<tr>";
    for (std::size_t k = 0; k < cells.size(); ++k) {
      // Columns of summary_headers(): 8 access, 9 lint (one further with a profile).
      const bool bad = (k == access && r.access.rank >= 3) || (k == lint && r.lint_findings > 0);
      const std::string cls = fmt::format("{}{}", numeric[k] && k != access ? "num" : "", bad ? " bad" : "");
      const auto link = k + 1 == cells.size() ? links.find(r.name) : links.end();
      const std::string text =
          link != links.end() ? fmt::format(R"(<a href="#{}">{}</a>)", xml_escape(link->second), xml_escape(cells[k]))
                              : xml_escape(cells[k]);
      out += fmt::format(R"(<td{} data-v="{}">{}</td>)", cls.empty() ? "" : fmt::format(R"( class="{}")", cls),
                         xml_escape(keys[k]), text);
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string findings_html(const std::vector<LintFinding>& findings) {
  if (findings.empty())
    return R"(<p class="none">No lint findings.</p>)"
           "\n";
  std::string out = R"(<ul class="findings">)"
                    "\n";
  for (const LintFinding& f : findings) {
    out += fmt::format(R"(<li><span class="rule">{}</span> <span class="where">{}:{}</span> {}</li>)"
                       "\n",
                       xml_escape(analysis::rule_info(f.rule).id), xml_escape(f.file), f.line, xml_escape(f.message));
  }
  return out + "</ul>\n";
}

// The rows' time by what bounds it, as one stacked bar with a legend.
std::string bound_bar_html(const ReportModule& m) {
  static constexpr std::array<std::string_view, 5> k_colours = {"#bbb", "#d62728", "#1f77b4", "#7f7f7f", "#2ca02c"};
  double all = 0;
  for (double s : m.seconds_by_bound) all += s;
  if (all <= 0) return {};
  std::string bar = R"(<div class="boundbar">)", legend = R"(<p class="legend">)";
  for (std::size_t k = 0; k < m.seconds_by_bound.size(); ++k) {
    const double share = m.seconds_by_bound[k] / all;
    if (share <= 0) continue;
    const std::string_view name =
        k == 0 ? std::string_view("no estimate") : cost::bound_name(static_cast<cost::Bound>(k));
    bar += fmt::format(R"(<span style="width:{:.2f}%;background:{}" title="{} bound: {:.1f}%"></span>)", 100 * share,
                       k_colours[k], name, 100 * share);
    legend += fmt::format(R"(<span class="key" style="background:{}"></span>{} bound {:.1f}% ({}) )", k_colours[k],
                          name, 100 * share, xml_escape(cost::human_seconds(m.seconds_by_bound[k])));
  }
  return bar + "</div>\n" + legend + "</p>\n";
}

std::string detail_html(const ReportDetail& d, const ReportModule& m) {
  const SummaryRow& r = d.row;
  std::string head = fmt::format("{} {:.1f}% {} {}", cost::human_seconds(d.seconds), 100 * d.share,
                                 cost::bound_name(r.cost.bound), r.name);
  if (d.copies > 1) head += fmt::format(" \u00d7{}", d.copies);
  std::string out = fmt::format(R"(<details class="detail" id="{}"><summary><b>{}</b> <span class="where">{}</span>)",
                                xml_escape(d.anchor), xml_escape(head),
                                xml_escape(r.op_name.empty() ? r.kind != "-" ? r.kind : r.opcode : r.op_name));
  if (r.lint_findings > 0)
    out += fmt::format(R"( <span class="rule">{}</span>)", xml_escape(cost::plural(r.lint_findings, "finding")));
  out += "</summary>\n<div class=\"body\">\n";
  out += fmt::format(
      R"(<p class="figures">{} per run, {} runs; {} FLOP, {} read and {} written to device memory (AI {:.3g}); access {}{}{}</p>)"
      "\n",
      xml_escape(cost::human_seconds(r.cost.seconds)), r.runs.count,
      xml_escape(cost::human_count(static_cast<double>(r.cost.flops + r.cost.transcendentals))),
      xml_escape(cost::human_bytes(r.cost.device_bytes_read)),
      xml_escape(cost::human_bytes(r.cost.device_bytes_written)), r.cost.intensity(), xml_escape(r.access.text),
      r.source.empty() ? "" : "; source ", xml_escape(r.source));
  if (d.copies > 1) {
    out += fmt::format(R"(<p class="figures">The same computation {} more times: {}{}</p>)"
                       "\n",
                       d.copies - 1, xml_escape(fmt::format("{}", fmt::join(d.others, ", "))),
                       d.copies - 1 > d.others.size() ? ", \u2026" : "");
  }
  if (!d.hlo.empty()) {
    out += "<pre class=\"hlo\">";
    for (const auto& [line, text] : d.hlo)
      out += fmt::format("<span class=\"ln\">{:>6}</span> {}\n", line, xml_escape(text));
    if (d.hlo_left_out > 0)
      out += fmt::format("       \u2026 {} more lines in {}\n", d.hlo_left_out, xml_escape(m.file));
    out += "</pre>\n";
  }
  if (!d.operands.empty()) {
    out += "<ul class=\"operands\">\n";
    for (const ReportOperand& o : d.operands) {
      out += fmt::format(R"(<li><span class="where">{} {}</span>: {})", xml_escape(o.name), xml_escape(o.shape),
                         xml_escape(o.reads));
      if (!o.svg.empty())
        out += fmt::format("<figure><figcaption>{}</figcaption>\n{}</figure>", xml_escape(o.picture_summary), o.svg);
      out += "</li>\n";
    }
    out += "</ul>\n";
  }
  if (!r.findings.empty()) out += findings_html(r.findings);
  return out + "</div></details>\n";
}

std::string module_html(const ReportModule& m, const ReportPage& page) {
  const std::string what =
      page.all_instructions || (!m.rows.empty() && m.rows.front().kind == "-") ? "instruction" : "fusion";
  std::string out = fmt::format(R"(<section class="module"><h2>module {}</h2>)"
                                "\n"
                                R"(<p class="meta">{}</p>)"
                                "\n",
                                xml_escape(m.name), xml_escape(m.file));
  if (!m.identical.empty()) {
    out += fmt::format(R"(<details class="identical"><summary>and {} of the same structure, shown once</summary><ul>)",
                       xml_escape(cost::plural(m.identical.size(), "more module")));
    for (const std::string& name : m.identical) out += "<li>" + xml_escape(name) + "</li>";
    out += "</ul></details>\n";
  }
  out += fmt::format(
      R"(<p class="totals">Estimated time on {}: <b>{}{}</b> per run of the module; {} FLOP, {} moved to and from device memory; {}, {}</p>)"
      "\n",
      xml_escape(m.device), m.totals.exact ? "" : "~", cost::human_seconds(m.totals.seconds),
      cost::human_count(m.totals.flops + m.totals.transcendentals), cost::human_bytes(m.totals.device_bytes),
      cost::plural(m.total_rows, what), cost::plural(m.findings.size(), "lint finding"));
  if (page.profile)
    out += fmt::format(R"(<p class="profile">{}</p>)"
                       "\n",
                       xml_escape(measured_line(m.measured_seconds, m.estimated_seconds_measured, m.profile_steps)));
  if (m.rows.empty()) {
    out += fmt::format(R"(<p class="none">No {} in this module{}.</p>)"
                       "\n",
                       what, page.all_instructions ? "" : " (a dump from before fusion: --all-instructions)");
    return out + "<h3>Lint findings</h3>\n" + findings_html(m.findings) + "</section>\n";
  }
  out += "<h3>Where the time goes</h3>\n" + bound_bar_html(m);
  out += "<div class=\"charts\"><div>" + m.roofline + "</div>\n";
  out += "<div><p class=\"caption\">Estimated time by framework op (metadata op_name; click to open):</p>\n" +
         m.op_tree + "</div></div>\n";
  out += fmt::format("<h3>The {} heaviest kinds of {} by {} (click to open)</h3>\n", m.details.size(), what,
                     xml_escape(page.sort));
  for (const ReportDetail& d : m.details) out += detail_html(d, m);
  out +=
      fmt::format("<h3>Every {}, sorted by {}{} (click a header to sort)</h3>\n", what, xml_escape(page.sort),
                  m.rows.size() < m.total_rows ? fmt::format(", the first {} of {}", m.rows.size(), m.total_rows) : "");
  out += table_html(m.rows, page.profile, m.links);
  out += "<h3>Lint findings</h3>\n" + findings_html(m.findings);
  return out + "</section>\n";
}

}  // namespace

std::string report_html(const ReportPage& page) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out +=
      fmt::format("<title>hlo-index report: {}</title>\n", xml_escape(fmt::format("{}", fmt::join(page.files, " "))));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", k_style);
  out += fmt::format("<h1>hlo-index report</h1>\n<p class=\"meta\">{}; target {}; {}</p>\n",
                     xml_escape(fmt::format("{}", fmt::join(page.files, ", "))), xml_escape(page.target),
                     cost::plural(page.modules.size(), "module"));
  for (const ReportModule& m : page.modules) out += module_html(m, page);
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", k_script);
  return out;
}

}  // namespace hlo_index::app
