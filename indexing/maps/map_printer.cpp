#include <algorithm>
#include <set>
#include <vector>

#include "indexing/maps/map_printer.hpp"
#include "simplify/expr_print.hpp"

namespace hlo_index::indexing {

namespace {

// True when two variables would print under one name: a named variable and
// one left to its default name (`s0`), as when a map composed from a map
// with written names and one without them.
bool names_clash(const Domain& domain) {
  bool named = false;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    for (const simplify::Variable& v : domain.variables(static_cast<VarKind>(k))) named = named || !v.name.empty();
  }
  if (!named) return false;  // the maps the analysis builds: default names only
  std::set<std::string> seen;
  for (Var v : domain.all_variables()) {
    std::string name = domain.variables(v.kind)[v.index].name;
    if (name.empty()) simplify::default_var_name(v, name);
    if (!seen.insert(std::move(name)).second) return true;
  }
  return false;
}

simplify::VarNamer namer_for(const Domain& domain) {
  // Default names for all rather than an ambiguous text.
  if (names_clash(domain)) return simplify::default_var_name;
  return [&domain](Var v, std::string& out) {
    const std::string& name = domain.variables(v.kind)[v.index].name;
    if (name.empty()) {
      simplify::default_var_name(v, out);
    } else {
      out += name;
    }
  };
}

void append_interval(std::string& out, Interval i) {
  out += " in [";
  out += std::to_string(i.lo);
  out += ", ";
  out += std::to_string(i.hi);
  out += ']';
}

void append_names(std::string& out, const Domain& d, VarKind kind, const simplify::VarNamer& namer) {
  for (std::uint32_t i = 0; i < d.count(kind); ++i) {
    if (i > 0) out += ", ";
    namer({kind, i}, out);
  }
}

// `(d0, d1)[s0]{rt0} -> (results)`
void append_signature(std::string& out, const IndexingMap& map, const simplify::VarNamer& namer) {
  const Domain& d = map.domain();
  out += '(';
  append_names(out, d, VarKind::kDim, namer);
  out += ')';
  if (d.count(VarKind::kRange) > 0) {
    out += '[';
    append_names(out, d, VarKind::kRange, namer);
    out += ']';
  }
  if (d.count(VarKind::kRuntime) > 0) {
    out += '{';
    append_names(out, d, VarKind::kRuntime, namer);
    out += '}';
  }
  out += " -> (";
  for (std::size_t i = 0; i < map.results().size(); ++i) {
    if (i > 0) out += ", ";
    simplify::print(map.results()[i], out, namer);
  }
  out += ')';
}

// The variables' intervals in order, then the constraints (XLA sorts them
// by their printed text).
std::vector<std::string> domain_items(const Domain& d, const simplify::VarNamer& namer) {
  std::vector<std::string> items;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    auto kind = static_cast<VarKind>(k);
    for (std::uint32_t i = 0; i < d.count(kind); ++i) {
      std::string item;
      namer({kind, i}, item);
      append_interval(item, d.bounds({kind, i}));
      items.push_back(std::move(item));
    }
  }
  std::vector<std::string> constraints;
  for (const Constraint& c : d.constraints()) {
    std::string item;
    simplify::print(c.expr, item, namer);
    append_interval(item, c.interval);
    constraints.push_back(std::move(item));
  }
  std::sort(constraints.begin(), constraints.end());
  items.insert(items.end(), constraints.begin(), constraints.end());
  return items;
}

void append_domain(std::string& out, const std::vector<std::string>& items, const MapPrintOptions& options) {
  if (items.empty()) return;
  if (options.layout == MapLayout::kMultiLine) {
    out += '\n' + options.indent + "domain:";
    for (const std::string& item : items) out += '\n' + options.indent + item;
  } else {
    out += ", domain: ";
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      out += items[i];
    }
  }
}

MapPrintOptions nested_options(const MapPrintOptions& options) {
  MapPrintOptions nested;
  nested.runtime_sources = false;
  nested.replica_id = false;
  nested.approximate_marker = options.approximate_marker;
  return nested;
}

void append_runtime_sources(std::string& out, const IndexingMap& map, const MapPrintOptions& options,
                            const simplify::VarNamer& namer) {
  const MapPrintOptions nested = nested_options(options);
  out += '\n' + options.indent + "runtime variables:";
  for (std::size_t i = 0; i < map.runtime_sources().size(); ++i) {
    const RuntimeSource& s = map.runtime_sources()[i];
    out += '\n' + options.indent + "  ";
    namer({VarKind::kRuntime, static_cast<std::uint32_t>(i)}, out);
    out += ": " + s.source;
    if (!s.map) continue;
    out += "; " + print_map(*s.map, nested);
    if (s.map->is_defined() && s.map->has_replica_id()) {
      out += "; replica id: " + print_map(s.map->replica_id_map(), nested);
    }
  }
}

}  // namespace

std::string print_map(const IndexingMap& map, const MapPrintOptions& options) {
  const bool multi = options.layout == MapLayout::kMultiLine;
  std::string out = multi ? options.indent : std::string();
  if (map.is_undefined()) return out + "UNDEFINED";
  if (map.is_known_empty()) return out + "KNOWN EMPTY";
  simplify::VarNamer namer = namer_for(map.domain());
  append_signature(out, map, namer);
  append_domain(out, domain_items(map.domain(), namer), options);
  if (map.approximate() && options.approximate_marker) {
    const std::string& why = map.approximation_reason();
    const std::string marker = why.empty() ? "(approximate)" : "(approximate: " + why + ")";
    out += multi ? '\n' + options.indent + marker : ' ' + marker;
  }
  if (options.runtime_sources && !map.runtime_sources().empty()) append_runtime_sources(out, map, options, namer);
  if (options.replica_id && map.has_replica_id()) {
    out += '\n' + options.indent + "replica id:";
    out += '\n' + options.indent + "  " + print_map(map.replica_id_map(), nested_options(options));
  }
  return out;
}

}  // namespace hlo_index::indexing
