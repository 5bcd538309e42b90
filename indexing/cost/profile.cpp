// Joining a profile's kernels to the instructions of modules (profile.hpp
// states the rules), and reading a trace file into a profile.
#include "indexing/cost/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_set>
#include <utility>

#include "indexing/cost/gzip_text.hpp"
#include "indexing/cost/trace_events.hpp"
#include "indexing/cost/trace_kernels.hpp"

namespace hlo_index::cost {
namespace {

/// The program id in a dump file's name (`module_0012.jit_f.sm_8.0_gpu_after_optimizations.txt` -> 12).
std::optional<std::uint64_t> program_id_of_file(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!base.starts_with("module_")) return std::nullopt;
  base.remove_prefix(7);
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(base.data(), base.data() + base.size(), id);
  if (ec != std::errc() || ptr == base.data() || ptr == base.data() + base.size() || *ptr != '.') return std::nullopt;
  return id;
}

std::optional<std::uint64_t> parse_id(std::string_view text) {
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return id;
}

/// A module's instruction names, and the kernel names they give.
struct ModuleNames {
  const hlo::Module* module = nullptr;
  std::optional<std::uint64_t> program_id;  // from the dump file's name, when the file holds this module alone
  std::unordered_set<std::string_view> names;
  /// Sanitised name -> the instructions that give it (filled on first use).
  std::unordered_map<std::string, std::vector<std::string_view>> kernel_names;
  bool kernel_names_built = false;

  const std::vector<std::string_view>* giving(const std::string& kernel) {
    if (!kernel_names_built) {
      for (std::string_view name : names) kernel_names[sanitized_kernel_name(name)].push_back(name);
      for (auto& [k, list] : kernel_names) std::sort(list.begin(), list.end());
      kernel_names_built = true;
    }
    const auto it = kernel_names.find(kernel);
    return it == kernel_names.end() ? nullptr : &it->second;
  }
};

/// Whether `kernel` may come from `m` by module name and program id.
bool module_matches(const ProfileKernel& kernel, const ModuleNames& m) {
  if (kernel.hlo_module.empty()) return true;
  const auto [name, program] = split_program_id(kernel.hlo_module);
  if (name != m.module->name) return false;
  const std::optional<std::uint64_t> id = parse_id(kernel.program_id.empty() ? program : kernel.program_id);
  return !id || !m.program_id || *id == *m.program_id;
}

/// The instruction of `m` that `kernel` names, or why none: the reason, in `why`.
std::optional<std::string_view> instruction_of(const ProfileKernel& kernel, ModuleNames& m, std::string& why) {
  if (!kernel.hlo_op.empty()) {
    if (const auto it = m.names.find(kernel.hlo_op); it != m.names.end()) return *it;
    why = fmt::format("module '{}' has no instruction '{}'", m.module->name, kernel.hlo_op);
    return std::nullopt;
  }
  if (const auto it = m.names.find(kernel.name); it != m.names.end()) return *it;
  const std::vector<std::string_view>* giving = m.giving(kernel.name);
  if (giving == nullptr) {
    why = fmt::format("no instruction is named '{}' or gives it as a kernel name", kernel.name);
    return std::nullopt;
  }
  if (giving->size() > 1) {
    why = fmt::format("instructions {} of module '{}' all give the kernel name '{}'", fmt::join(*giving, ", "),
                      m.module->name, kernel.name);
    return std::nullopt;
  }
  return giving->front();
}

}  // namespace

std::string sanitized_kernel_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
    if (!keep) c = '_';
  }
  return out;
}

std::optional<MeasuredTime> ProfileJoin::measured(std::size_t module, std::string_view instruction) const {
  if (module >= times.size()) return std::nullopt;
  const auto it = times[module].find(instruction);
  if (it == times[module].end()) return std::nullopt;
  return it->second;
}

std::size_t ProfileJoin::runs_of_module(std::size_t module,
                                        const std::function<bool(std::string_view)>& runs_once) const {
  if (module >= times.size()) return 1;
  std::map<std::size_t, std::size_t> votes;
  for (const auto& [name, time] : times[module]) {
    if (time.devices == 0 || !runs_once(name)) continue;
    ++votes[std::max<std::size_t>(1, time.events / time.devices)];
  }
  std::size_t steps = 1, most = 0;
  for (const auto& [count, instructions] : votes) {
    if (instructions > most) {
      most = instructions;
      steps = count;
    }
  }
  return steps;
}

ProfileJoin Profile::join(std::span<const hlo::Module> modules) const {
  std::vector<ModuleNames> names(modules.size());
  std::map<const parser::SourceFile*, std::size_t> modules_per_file;
  for (const hlo::Module& module : modules) ++modules_per_file[module.source.get()];
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const hlo::Module& module = modules[i];
    names[i].module = &module;
    if (module.source != nullptr && modules_per_file[module.source.get()] == 1) {
      names[i].program_id = program_id_of_file(module.source->name());
    }
    for (const hlo::Computation& computation : module.computations) {
      for (const hlo::Instruction& instruction : computation.instructions) names[i].names.insert(instruction.name);
    }
  }

  // Per instruction: microseconds, events, devices; summed in kernel order.
  struct Sum {
    double microseconds = 0;
    std::size_t events = 0;
    std::vector<std::uint32_t> devices;
  };
  std::vector<std::map<std::string_view, Sum>> sums(modules.size());
  std::vector<std::vector<std::uint32_t>> module_devices(modules.size());
  ProfileJoin join;
  join.module_seconds.assign(modules.size(), 0);
  double matched = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const ProfileKernel& kernel = kernels[k];
    std::vector<std::pair<std::size_t, std::string_view>> found;  // (module, instruction)
    std::string why;
    bool any_module = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!module_matches(kernel, names[i])) continue;
      any_module = true;
      if (const std::optional<std::string_view> instruction = instruction_of(kernel, names[i], why)) {
        found.emplace_back(i, *instruction);
      }
    }
    if (found.size() == 1) {
      Sum& sum = sums[found[0].first][found[0].second];
      sum.microseconds += kernel.microseconds;
      sum.events += kernel.events;
      sum.devices.insert(sum.devices.end(), kernel.devices.begin(), kernel.devices.end());
      matched += kernel.outer_microseconds;
      join.module_seconds[found[0].first] += kernel.outer_microseconds / 1e6;
      module_devices[found[0].first].insert(module_devices[found[0].first].end(), kernel.devices.begin(),
                                            kernel.devices.end());
      join.matched_events += kernel.events;
      continue;
    }
    if (found.size() > 1) {
      std::vector<std::string_view> where;
      where.reserve(found.size());
      for (const auto& [i, instruction] : found) where.push_back(modules[i].name);
      why = fmt::format("its instruction is in several modules: {}", fmt::join(where, ", "));
    } else if (modules.empty()) {
      why = "no module to join";
    } else if (!any_module) {
      // Not a structured binding: clang 14 (clang-tidy) cannot capture one.
      const std::pair<std::string_view, std::string_view> split = split_program_id(kernel.hlo_module);
      const std::string_view name = split.first, program = split.second;
      const bool named =
          std::any_of(modules.begin(), modules.end(), [&](const hlo::Module& m) { return m.name == name; });
      why = named ? fmt::format("program {} of module '{}' is not the one read (the dump's file name gives another)",
                                kernel.program_id.empty() ? program : std::string_view(kernel.program_id), name)
                  : fmt::format("module '{}' is not among the modules read", kernel.hlo_module);
    }
    join.unmatched.push_back({k, std::move(why)});
  }

  join.times.resize(modules.size());
  join.module_devices.assign(modules.size(), 0);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    std::vector<std::uint32_t>& d = module_devices[i];
    std::sort(d.begin(), d.end());
    join.module_devices[i] = static_cast<std::size_t>(std::unique(d.begin(), d.end()) - d.begin());
  }
  for (std::size_t i = 0; i < modules.size(); ++i) {
    for (auto& [instruction, sum] : sums[i]) {
      std::sort(sum.devices.begin(), sum.devices.end());
      const auto devices =
          static_cast<std::size_t>(std::unique(sum.devices.begin(), sum.devices.end()) - sum.devices.begin());
      join.times[i].emplace(std::string(instruction), MeasuredTime{sum.microseconds / 1e6, sum.events, devices});
    }
  }
  std::sort(join.unmatched.begin(), join.unmatched.end(), [&](const UnmatchedKernel& a, const UnmatchedKernel& b) {
    const ProfileKernel &ka = kernels[a.kernel], &kb = kernels[b.kernel];
    if (ka.microseconds != kb.microseconds) return ka.microseconds > kb.microseconds;
    return std::tie(ka.name, a.kernel) < std::tie(kb.name, b.kernel);
  });
  join.matched_seconds = matched / 1e6;
  join.total_seconds = total_seconds;
  return join;
}

std::optional<MeasuredTime> Profile::measured(const hlo::Module& module, std::string_view instruction) const {
  return join(std::span<const hlo::Module>(&module, 1)).measured(0, instruction);
}

Profile read_profile(const std::string& path) {
  try {
    GzipText text(path);
    return counted_kernels(read_trace_events(text));
  } catch (const TextError& error) {
    throw ProfileError(error.what());
  }
}

Profile parse_profile(std::string_view bytes, std::size_t piece_bytes) {
  try {
    GzipText text(bytes, piece_bytes);
    return counted_kernels(read_trace_events(text));
  } catch (const TextError& error) {
    throw ProfileError(error.what());
  }
}

}  // namespace hlo_index::cost
