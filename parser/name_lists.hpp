// The attributes whose values are names (calls=, to_apply=, body=, ... and
// control-predecessors), rewritten under new names. print_module prints them
// so, and rename_canonically stores them so: one rule for both.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// The name of the module (`computation == k_none`), of computation `computation`
/// (`instruction == k_none`) or of instruction `instruction` of it.
using Renaming = std::function<std::string_view(std::uint32_t computation, std::uint32_t instruction)>;

class NameListRenamer {
public:
  /// `module` must outlive the renamer and keep its names while it is used: a
  /// control-predecessors entry is found by the name it was written with.
  NameListRenamer(const hlo::Module& module, Renaming renaming);

  /// Calls `visit(attribute, renamed)` for every attribute of instruction `i` of
  /// computation `ci`, in order. `renamed` is the value under the new names,
  /// braced as written (`%a` or `{%a, %b}`), for a list of names the parser could
  /// read; otherwise it is null and the value stays as written. A call of a
  /// computation the module lacks (--allow-truncated) keeps its name as written.
  void visit_attributes(std::uint32_t ci, const hlo::Instruction& i,
                        const std::function<void(const hlo::Attribute&, const std::string* renamed)>& visit);

private:
  std::uint32_t instruction_index(std::uint32_t ci, std::string_view name);

  const hlo::Module& m_module;
  Renaming m_renaming;
  std::vector<std::string_view> m_names;   // reused: the names of one list as written
  std::string m_renamed;                   // reused: the list under the new names
  std::uint32_t m_index_of = hlo::k_none;  // the computation m_index describes
  std::unordered_map<std::string_view, std::uint32_t> m_index;
};

}  // namespace hlo_index::parser
