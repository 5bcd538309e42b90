// Where an instruction comes from in the user's program: the framework op
// (metadata op_name, e.g. `jit(train_step)/jvp()/dot_general`) and the Python
// source line (metadata source_file and source_line, or the module's
// stack-frame tables through stack_frame_id), for findings, summary rows and
// diff entries that point back to the program rather than to the dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

struct SourceInfo {
  std::string op_name;           // empty: none
  std::string source_file;       // empty: none
  std::int64_t source_line = 0;  // 0: none
  bool empty() const { return op_name.empty() && source_file.empty(); }
  /// `file:line` (or `file`), empty when there is no source file.
  std::string location() const;
};

/// The key=value pairs of a metadata attribute's value (`{op_name="a" source_line=3}`), the
/// quoted values unescaped, in order.
std::vector<std::pair<std::string, std::string>> parse_metadata(std::string_view value);

/// Source information of the instructions of one module, worked out on demand.
class ModuleSources {
public:
  explicit ModuleSources(const hlo::Module& module);
  /// The instruction's own metadata; for a fusion without any, its fused root's, else the most
  /// common op_name of its fused instructions (ties: the first in program order) with that
  /// instruction's source line.
  SourceInfo of(std::uint32_t computation, std::uint32_t instruction) const;
  /// The instruction's own metadata only.
  SourceInfo own(const hlo::Computation& computation, const hlo::Instruction& instruction) const;

private:
  SourceInfo fused(const hlo::Computation& body, int depth) const;
  SourceInfo from_frame(std::int64_t frame_id) const;

  const hlo::Module& m_module;
  std::unordered_map<std::int64_t, std::string> m_file_names;
  std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> m_locations;  // file id, line
  std::unordered_map<std::int64_t, std::int64_t> m_frame_locations;                     // frame -> location id
};

}  // namespace hlo_index::analysis
