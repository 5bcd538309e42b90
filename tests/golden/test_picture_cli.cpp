// `hlo-index picture` and `hlo-index report` as a user sees them: each
// testdata/picture/NAME.args and testdata/report/NAME.args holds one command
// line (paths relative to its folder), parsed by the command's own CLI11
// options. The document written to standard output (`-o -`) is compared with
// NAME.svg or NAME.html, byte for byte, and stderr with the exit code with
// NAME.expected. The SVGs are also parsed as XML by a ctest
// (tests/golden/check_svg.py) and the page loaded in a headless browser
// (tests/golden/check_report_in_browser.py).
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "app/picture_command.hpp"
#include "app/report_charts.hpp"
#include "app/report_command.hpp"
#include "app/svg_writer.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_picture_cli_cases {

using namespace hlo_index;

namespace {

const std::filesystem::path k_testdata = std::filesystem::path(HLO_INDEX_TESTDATA_DIR);

// The arguments of a case file with every word that names a file relative to
// the case's folder made absolute.
std::string arguments_of(const std::filesystem::path& args_file) {
  std::istringstream words(golden::read_file(args_file));
  std::string out;
  for (std::string w; words >> w;) {
    const std::filesystem::path in_dir = args_file.parent_path() / w;
    const bool file = w[0] != '-' && w[0] != '/' && std::filesystem::exists(in_dir);
    out += (out.empty() ? "" : " ") + (file ? "\"" + in_dir.string() + "\"" : w);
  }
  return out;
}

golden::CommandRun run(const std::string& command, const std::string& arguments) {
  if (command == "picture")
    return golden::run_command<app::PictureOptions>("picture", arguments, app::add_picture_options,
                                                    app::run_picture_command);
  return golden::run_command<app::ReportOptions>("report", arguments, app::add_report_options, app::run_report_command);
}

void check_cases(const std::string& command, const std::string& extension) {
  const std::filesystem::path dir = k_testdata / command;
  const auto cases = golden::files_with_extension(dir, ".args");
  CHECK(cases.size() >= 3);
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      const golden::CommandRun r = run(command, arguments_of(path));
      const std::string document = golden::replace_all(r.out, dir.string() + "/", "");
      if (!document.empty()) {
        const std::string report =
            golden::compare_or_update(std::filesystem::path(path).replace_extension(extension), document);
        INFO(report);
        CHECK(report.empty());
      }
      const std::string report = golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"),
                                                           golden::command_output("", r.err, r.code, dir));
      INFO(report);
      CHECK(report.empty());
    }
  }
}

}  // namespace

TEST_CASE("hlo-index picture: golden outputs") { check_cases("picture", ".svg"); }

TEST_CASE("hlo-index report: golden outputs") { check_cases("report", ".html"); }

TEST_CASE("hlo-index picture: the SVG is the same written to a file, and the line says what it shows") {
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "hlo_index_picture_test.svg";
  const std::string input = (k_testdata / "picture" / "pictures.hlo").string();
  const golden::CommandRun to_file =
      run("picture", "\"" + input + "\" --instruction window_sum_fusion -o \"" + out.string() + "\"");
  REQUIRE(to_file.code == 0);
  CHECK(to_file.out.rfind("wrote " + out.string() + ": %window_sum_fusion operand 0 %a f32[24,40]{1,0}: 7524 reads",
                          0) == 0);
  const golden::CommandRun to_stdout = run("picture", "\"" + input + "\" --instruction window_sum_fusion -o -");
  REQUIRE(to_stdout.code == 0);
  CHECK(golden::read_file(out) == to_stdout.out);
  std::filesystem::remove(out);
  // Every run writes the same bytes.
  CHECK(run("picture", "\"" + input + "\" --instruction window_sum_fusion -o -").out == to_stdout.out);
}

TEST_CASE("hlo-index report: no network reference, and the same bytes every run") {
  const std::string input = (k_testdata / "picture" / "pictures.hlo").string();
  const golden::CommandRun first = run("report", "\"" + input + "\" -o -");
  REQUIRE(first.code == 0);
  CHECK(run("report", "\"" + input + "\" -o -").out == first.out);
  // Nothing is fetched: no src, no href but to a place on the page, no CSS import or url() (the
  // SVG namespace is a name, not a fetch).
  CHECK_FALSE(std::regex_search(first.out, std::regex(R"(src\s*=)", std::regex::icase)));
  CHECK_FALSE(std::regex_search(first.out, std::regex(R"(href\s*=\s*"[^#])", std::regex::icase)));
  CHECK_FALSE(std::regex_search(first.out, std::regex(R"(@import|url\(\s*['"]?(https?:|//))", std::regex::icase)));
  CHECK(first.out.find("<script>") != std::string::npos);
  // Ids are unique on the page: each inlined picture has its own patterns.
  std::set<std::string> ids;
  const std::regex id(R"re( id="([^"]*)")re");
  for (auto it = std::sregex_iterator(first.out.begin(), first.out.end(), id); it != std::sregex_iterator(); ++it) {
    INFO((*it)[1].str());
    CHECK(ids.insert((*it)[1].str()).second);
  }
  CHECK(ids.size() >= 8);
  // Links on the page go to something on it: rows and roofline dots to the details they open.
  const std::regex link(R"re(href="#([^"]*)")re");
  std::size_t links = 0;
  for (auto it = std::sregex_iterator(first.out.begin(), first.out.end(), link); it != std::sregex_iterator(); ++it) {
    INFO((*it)[1].str());
    CHECK(ids.count((*it)[1].str()) == 1);
    ++links;
  }
  CHECK(links >= 4);
  CHECK(first.out.find("<table class=\"summary\">") != std::string::npos);
}

TEST_CASE("svg writer: every text escaped, control characters and bad UTF-8 replaced") {
  CHECK(app::xml_escape(R"(a<b>&"c'd)") == "a&lt;b&gt;&amp;&quot;c&#39;d");
  CHECK(app::xml_escape("tab\there\nnew") == "tab\there\nnew");
  CHECK(app::xml_escape(std::string("nul\x01\x7f", 5)) == "nul\uFFFD\uFFFD");
  CHECK(app::xml_escape("\xff\xfe") == "\uFFFD\uFFFD");
  CHECK(app::xml_escape("\u2013 \u00e9") == "\u2013 \u00e9");
  app::SvgWriter svg;
  svg.text(1, 2, "%fusion<&>.1");
  svg.rect(0, 0, 1, 1, "#fff", "<title>");
  const std::string doc = svg.document(10, 20, "a & b");
  CHECK(doc.find("%fusion&lt;&amp;&gt;.1") != std::string::npos);
  CHECK(doc.find("<title>&lt;title&gt;</title>") != std::string::npos);
  CHECK(doc.find("<title>a &amp; b</title>") != std::string::npos);
}

TEST_CASE("report's op_name tree: shares of the module's time, small ops folded, long parts cut") {
  analysis::SummaryRow big, small, config;
  big.op_name = "jit(f)/dot_general";
  big.cost.seconds = 0.9;
  small.op_name = "jit(f)/add";
  small.cost.seconds = 0.001;
  config.op_name = "jit(f)/tokamax:" + std::string(300, 'x');
  config.cost.seconds = 0.099;
  const analysis::OpNameNode tree = analysis::op_name_tree({big, small, config});
  const std::string html = app::op_tree_html(tree, 1.0);
  CHECK(html.find("90.0%</span> <span class=\"op\" title=\"dot_general\">dot_general</span>") != std::string::npos);
  CHECK(html.find("and 1 op more, each under 0.5%") != std::string::npos);
  // The 315-character part is cut to 100 characters and an ellipsis; the tooltip has it whole.
  CHECK(html.find("title=\"tokamax:" + std::string(300, 'x') + "\">tokamax:" + std::string(92, 'x') + "\u2026<") !=
        std::string::npos);
}

}  // namespace test_picture_cli_cases
