#include "app/report_html.hpp"

#include <fmt/format.h>

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
figure { background: #fff; margin: 12px 0; padding: 10px; box-shadow: 0 1px 2px #ccc; display: inline-block; }
figcaption { font-size: 12px; color: #444; max-width: 760px; margin-bottom: 6px; }
p.none { color: #555; font-size: 13px; }
)css";

// Sorts a table by the column whose header is clicked (numbers by their data-v
// value, descending first; text ascending first); `#sort=COLUMN` in the URL
// sorts on load (the browser test uses it).
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
std::string table_html(const std::vector<SummaryRow>& rows, bool profile) {
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
      out += fmt::format(R"(<td{} data-v="{}">{}</td>)", cls.empty() ? "" : fmt::format(R"( class="{}")", cls),
                         xml_escape(keys[k]), xml_escape(cells[k]));
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

std::string module_html(const ReportModule& m, const ReportPage& page) {
  const std::string what = page.all_instructions ? "instruction" : "fusion";
  std::string out = fmt::format(R"(<section class="module"><h2>module {}</h2>)"
                                "\n"
                                R"(<p class="meta">{}</p>)"
                                "\n",
                                xml_escape(m.name), xml_escape(m.file));
  out += fmt::format(
      R"(<p class="totals">{}{}: the module's estimated time on {} is {}{} ({} FLOP, {} moved to and from device memory); read {}, written {}; {}</p>)"
      "\n",
      cost::plural(m.total_rows, what),
      m.rows.size() < m.total_rows ? fmt::format(" (the first {} shown)", m.rows.size()) : "", xml_escape(m.device),
      m.totals.exact ? "" : "~", cost::human_seconds(m.totals.seconds),
      cost::human_count(m.totals.flops + m.totals.transcendentals), cost::human_bytes(m.totals.device_bytes),
      cost::human_bytes(m.read), cost::human_bytes(m.written), cost::plural(m.findings.size(), "lint finding"));
  out += fmt::format("<h3>Summary, sorted by {} (click a header to sort)</h3>\n", xml_escape(page.sort));
  if (m.rows.empty()) {
    out += fmt::format(R"(<p class="none">No {} in this module{}.</p>)"
                       "\n",
                       what, page.all_instructions ? "" : " (a dump from before fusion: --all-instructions)");
  } else {
    out += table_html(m.rows, page.profile);
  }
  if (page.profile)
    out += fmt::format(R"(<p class="profile">{}</p>)"
                       "\n",
                       xml_escape(measured_line(m.measured_seconds, m.estimated_seconds_measured, m.profile_steps)));
  out += "<h3>Lint findings</h3>\n" + findings_html(m.findings);
  if (!m.pictures.empty())
    out += m.pictures.size() == 1 ? fmt::format("<h3>Picture of the heaviest {}</h3>\n", what)
                                  : fmt::format("<h3>Pictures of the {} heaviest {}s</h3>\n", m.pictures.size(), what);
  for (const ReportPicture& p : m.pictures) {
    out += fmt::format("<figure><figcaption>{}</figcaption>\n{}</figure>\n", xml_escape(p.summary), p.svg);
  }
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
