#include "app/map_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "indexing/maps/count.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/non_affine.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "simplify/range.hpp"
#include "simplify/wide.hpp"

namespace hlo_index::app {
namespace {

using indexing::IndexingMap;

std::size_t arity(const std::string& operation) { return operation == "compose" || operation == "equal" ? 2 : 1; }

// Maps on standard input are separated by lines holding only `---`.
std::vector<std::string> split_stdin(std::istream& in) {
  std::vector<std::string> texts(1);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "---") {
      texts.emplace_back();
    } else {
      texts.back() += line + "\n";
    }
  }
  return texts;
}

// A count past 2^63 is a string of its decimal digits (JSON readers lose
// exactness on numbers past 2^53 or 2^64 anyway).
nlohmann::ordered_json count_json(const indexing::Count& c) {
  nlohmann::ordered_json j;
  if (c.wide <= simplify::k_int64_max_wide)
    j["value"] = static_cast<std::int64_t>(c.wide);
  else
    j["value"] = simplify::to_string(c.wide);
  j["exact"] = c.wide_exact;
  return j;
}

// Why an answer is not exact.
const char* k_isl_stopped = "isl was stopped by its budget, the time limit or too deeply nested divisions";
const char* k_non_affine_too_large =
    "isl cannot represent products of variables or divisions by variables, and the domain is too large to "
    "enumerate or its values overflow 64 bits";

std::string count_text(const indexing::Count& c, const char* reason) {
  const std::string n = simplify::to_string(c.wide);
  return c.wide_exact ? n : fmt::format("<= {} (upper bound: {})", n, reason);
}

}  // namespace

void setup_map_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<MapOptions>();
  CLI::App* cmd = app.add_subcommand("map", "Work with indexing maps in XLA's text form");
  cmd->footer(
      "Operations:\n"
      "  simplify MAP         the simplest exact form of MAP\n"
      "  compose A B          A then B: maps A's domain through A and then B (XLA's ComposeIndexingMaps(A, B))\n"
      "  inverse MAP          the inverse relation, one map per convex piece\n"
      "  count MAP            points of the domain, distinct results (image) and pairs (relation)\n"
      "  equal A B            whether A and B are the same integer relation\n\n"
      "A map is written as XLA prints it, on one line or in the multi-line form of the XLA docs:\n"
      "  '(d0, d1)[s0] -> (d0 + s0, d1), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 3]'\n"
      "Every variable needs an interval. Variables may have any names (a letter or '_', then letters, digits,\n"
      "'_' or '.'), as XLA prints the names it was given: '(th_x, bl_x)[chunk_id]{r0} -> ...'; they print back.\n"
      "Results and constraints use + and -, '*', floordiv (or '/'), ceildiv and mod (floor semantics),\n"
      "100d0 for 100 * d0, integers and parentheses. Products of variables ('s0 * s2') and floordiv,\n"
      "ceildiv or mod by a variable ('d0 floordiv s1'), which XLA accepts, are read as non-affine terms: exact\n"
      "and printed back as written, but beyond isl, so for maps holding them count and equal enumerate the\n"
      "domain (up to 2^20 points; past that, upper bounds and unknown) and inverse is approximate. A division\n"
      "by an expression whose range over its variables' intervals is not positive is refused, naming the term.\n"
      "Maps come from the arguments or, when there are none (or '-'), from standard input, separated by\n"
      "lines holding only '---'. Errors are reported as file:line:col with a caret, and exit code 2.\n\n"
      "Examples:\n"
      "  hlo-index map simplify '(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]'\n"
      "  hlo-index map count '(d0)[s0] -> (s0), domain: d0 in [0, 9], s0 in [0, 4]' --format json");
  cmd->add_option("operation", options->operation, "simplify, compose, inverse, count or equal")
      ->required()
      ->check(CLI::IsMember({"simplify", "compose", "inverse", "count", "equal"}));
  cmd->add_option("maps", options->maps, "Maps in text form ('-' or none: standard input)");
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--multi-line", options->multi_line, "Print maps in the multi-line form (domain: on its own line)");
  cmd->add_flag("!--no-simplify", options->simplify, "compose/inverse: print the result without simplifying it");
  cmd->add_flag("--verify", options->verify,
                "Check with isl that every simplification kept the relation exactly (slower)");
  add_isl_budget_option(*cmd, options->isl_max_operations);
  cmd->add_option("--time-limit", options->time_limit,
                  "Seconds the operation may take (default 0: no limit; isl's operation budget bounds it, the same "
                  "on any machine); past it isl stops as when its budget runs out: simplify prints the map less "
                  "simplified (still exact), counts become upper bounds, maps are marked approximate, equal answers "
                  "unknown")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([options, &exit_code] { exit_code = run_map_command(*options, std::cin, std::cout, std::cerr); });
}

namespace {

// The answer of one operation: maps, counts or equality.
struct MapResult {
  std::optional<std::vector<IndexingMap>> maps;
  struct Counts {
    indexing::Count domain, image, relation;
  };
  std::optional<Counts> counts;
  std::optional<std::optional<bool>> equal;  // inner nullopt: the isl budget ran out
  bool non_affine = false;                   // an input map is beyond isl
};

// The maps of the command line or standard input, parsed; errors reported.
std::optional<std::vector<IndexingMap>> read_maps(const MapOptions& options, std::istream& in, std::ostream& err) {
  std::vector<std::string> texts = options.maps;
  std::vector<std::string> names;
  if (texts.empty() || (texts.size() == 1 && texts[0] == "-")) {
    texts = split_stdin(in);
    for (std::size_t i = 0; i < texts.size(); ++i) names.push_back(fmt::format("<stdin map {}>", i + 1));
  } else {
    for (std::size_t i = 0; i < texts.size(); ++i) names.push_back(fmt::format("<map {}>", i + 1));
  }
  const std::size_t needed = arity(options.operation);
  if (texts.size() != needed) {
    err << fmt::format("hlo-index map {}: expected {} map{}, got {}\n", options.operation, needed,
                       needed == 1 ? "" : "s", texts.size());
    return std::nullopt;
  }
  std::vector<IndexingMap> maps;
  parser::DiagnosticEngine diagnostics;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    parser::SourceFile source(names[i], texts[i]);
    auto m = indexing::parse_map(source, diagnostics);
    if (m) maps.push_back(std::move(*m));
  }
  if (diagnostics.has_errors()) {
    err << parser::render(diagnostics);
    return std::nullopt;
  }
  return maps;
}

// A map computed here (a composition) is refused like a parsed one when its
// values may leave the int64 range the simplifier and counts work in.
void require_int64_range(const IndexingMap& m) {
  auto check = [&](const simplify::Expr& e) {
    if (auto what = simplify::int64_overflow(e, m.domain()))
      throw simplify::ArithmeticOverflow("values past the 64-bit range are not supported: " + *what +
                                         " over the variables' intervals");
  };
  if (!m.is_defined()) return;
  for (const simplify::Expr& e : m.results()) check(e);
  for (const simplify::Constraint& c : m.domain().constraints()) check(c.expr);
}

// Throws std::invalid_argument or simplify::ArithmeticOverflow on bad input.
MapResult apply(const MapOptions& options, std::vector<IndexingMap> maps) {
  indexing::MapSimplifyOptions simplify_options;
  simplify_options.verify = options.verify;
  MapResult result;
  for (const IndexingMap& m : maps) result.non_affine = result.non_affine || indexing::has_non_affine(m);
  if (options.operation == "simplify") {
    indexing::simplify(maps[0], simplify_options);
    result.maps = std::vector<IndexingMap>{maps[0]};
  } else if (options.operation == "compose") {
    IndexingMap c = indexing::compose(maps[0], maps[1]);
    require_int64_range(c);
    if (options.simplify) indexing::simplify(c, simplify_options);
    result.maps = std::vector<IndexingMap>{c};
  } else if (options.operation == "inverse") {
    result.maps = indexing::inverse(maps[0], options.simplify);
  } else if (options.operation == "count") {
    result.counts = MapResult::Counts{indexing::count_domain(maps[0]), indexing::count_image(maps[0]),
                                      indexing::count_relation(maps[0])};
  } else if (options.operation == "equal") {
    result.equal = indexing::are_equal(maps[0], maps[1]);
  }
  return result;
}

void render_text(const MapResult& result, const MapOptions& options, std::ostream& out) {
  indexing::MapPrintOptions print_options;
  print_options.layout = options.multi_line ? indexing::MapLayout::kMultiLine : indexing::MapLayout::kOneLine;
  for (std::size_t i = 0; result.maps && i < result.maps->size(); ++i) {
    out << (i > 0 ? "\n" : "") << indexing::print_map((*result.maps)[i], print_options) << "\n";
  }
  const char* reason = result.non_affine ? k_non_affine_too_large : k_isl_stopped;
  if (result.counts) {
    // The domain is counted by evaluating its constraints, non-affine or not.
    out << "domain points: " << count_text(result.counts->domain, k_isl_stopped) << "\n";
    out << "image points: " << count_text(result.counts->image, reason) << "\n";
    out << "relation pairs: " << count_text(result.counts->relation, reason) << "\n";
  }
  if (result.equal) {
    const std::optional<bool>& equal = *result.equal;
    if (!equal.has_value()) {
      out << "unknown (" << reason << ")\n";
    } else {
      out << (*equal ? "equal" : "not equal") << "\n";
    }
  }
}

void render_json(const MapResult& result, const MapOptions& options, std::ostream& out) {
  nlohmann::ordered_json j;
  j["operation"] = options.operation;
  if (result.counts) {
    j["domain"] = count_json(result.counts->domain);
    j["image"] = count_json(result.counts->image);
    j["relation"] = count_json(result.counts->relation);
  } else if (result.equal) {
    const std::optional<bool>& equal = *result.equal;
    j["equal"] = equal.has_value() ? nlohmann::ordered_json(*equal) : nlohmann::ordered_json(nullptr);
  } else if (result.maps) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    bool exact = true;
    for (const IndexingMap& m : *result.maps) {
      list.push_back(indexing::print_map(m));
      exact = exact && !m.approximate();
    }
    j["maps"] = list;
    j["exact"] = exact;
  }
  out << j.dump(2) << "\n";
}

}  // namespace

int run_map_command(const MapOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  ScopedIslLimit limit(options.isl_max_operations);
  // The clock starts once the maps are read: the limit bounds the operation.
  std::optional<std::vector<IndexingMap>> maps = read_maps(options, in, err);
  if (!maps) return k_exit_input_error;
  if (options.operation == "count" && (*maps)[0].is_undefined()) {
    err << "hlo-index map count: an UNDEFINED map has no points to count\n";
    return k_exit_input_error;
  }
  MapResult result;
  const auto start = std::chrono::steady_clock::now();
  const indexing::IslContext::Deadline deadline =
      options.time_limit > 0
          ? indexing::IslContext::Deadline(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(options.time_limit)))
          : std::nullopt;
  try {
    const indexing::ScopedIslDeadline scoped_deadline(deadline);
    result = apply(options, std::move(*maps));
  } catch (const std::invalid_argument& e) {
    err << "hlo-index map " << options.operation << ": error: " << e.what() << "\n";
    return k_exit_input_error;
  } catch (const simplify::ArithmeticOverflow& e) {
    err << "hlo-index map " << options.operation << ": error: " << e.what() << "\n";
    return k_exit_input_error;
  }
  if (deadline && std::chrono::steady_clock::now() >= *deadline)
    err << fmt::format(
        "hlo-index map {}: note: the time limit of {} s was reached; isl stopped where it was (see "
        "--time-limit)\n",
        options.operation, options.time_limit);
  if (options.format == "json")
    render_json(result, options, out);
  else
    render_text(result, options, out);
  return k_exit_ok;
}

}  // namespace hlo_index::app
