#include "indexing/analysis/source_info.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>

namespace hlo_index::analysis {

namespace {

std::optional<std::int64_t> to_int(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string unquote(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::string(text);
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\' && i + 2 < text.size()) ++i;
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace

std::string SourceInfo::location() const {
  if (source_file.empty()) return "";
  return source_line > 0 ? fmt::format("{}:{}", source_file, source_line) : source_file;
}

std::vector<std::pair<std::string, std::string>> parse_metadata(std::string_view value) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t i = 0;
  const std::size_t n = value.size();
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','; };
  if (i < n && value[i] == '{') ++i;
  while (i < n) {
    while (i < n && blank(value[i])) ++i;
    if (i >= n || value[i] == '}') break;
    const std::size_t key_start = i;
    while (i < n && value[i] != '=' && !blank(value[i]) && value[i] != '}') ++i;
    std::string key(value.substr(key_start, i - key_start));
    if (i >= n || value[i] != '=') {
      out.emplace_back(std::move(key), "");
      continue;
    }
    ++i;
    const std::size_t value_start = i;
    if (i < n && value[i] == '"') {
      for (++i; i < n && value[i] != '"'; ++i) {
        if (value[i] == '\\') ++i;
      }
      if (i < n) ++i;
    } else if (i < n && value[i] == '{') {
      int depth = 0;
      for (; i < n; ++i) {
        depth += value[i] == '{' ? 1 : (value[i] == '}' ? -1 : 0);
        if (depth == 0) {
          ++i;
          break;
        }
      }
    } else {
      while (i < n && !blank(value[i]) && value[i] != '}') ++i;
    }
    out.emplace_back(std::move(key), unquote(value.substr(value_start, std::min(i, n) - value_start)));
  }
  return out;
}

ModuleSources::ModuleSources(const hlo::Module& module) : m_module(module) {
  for (const hlo::StackFrameTable& table : module.stack_frame_tables) {
    for (const hlo::TableEntry& e : table.entries) {
      if (table.name == "FileNames") {
        m_file_names[e.id] = unquote(e.value);
        continue;
      }
      std::map<std::string, std::string> fields;
      for (auto& [k, v] : parse_metadata(e.value)) fields[k] = v;
      auto field = [&fields](const char* name) -> std::int64_t {
        auto it = fields.find(name);
        return it == fields.end() ? 0 : to_int(it->second).value_or(0);
      };
      if (table.name == "FileLocations") {
        m_locations[e.id] = {field("file_name_id"), field("line")};
      } else if (table.name == "StackFrames") {
        m_frame_locations[e.id] = field("file_location_id");
      }
    }
  }
}

SourceInfo ModuleSources::from_frame(std::int64_t frame_id) const {
  SourceInfo info;
  const auto frame = m_frame_locations.find(frame_id);
  if (frame == m_frame_locations.end()) return info;
  const auto location = m_locations.find(frame->second);
  if (location == m_locations.end()) return info;
  const auto file = m_file_names.find(location->second.first);
  if (file != m_file_names.end()) info.source_file = file->second;
  info.source_line = location->second.second;
  return info;
}

SourceInfo ModuleSources::own(const hlo::Computation& computation, const hlo::Instruction& instruction) const {
  SourceInfo info;
  std::optional<std::int64_t> frame;
  if (auto metadata = computation.attribute(instruction, "metadata")) {
    for (auto& [key, value] : parse_metadata(*metadata)) {
      if (key == "op_name") {
        info.op_name = value;
      } else if (key == "source_file") {
        info.source_file = value;
      } else if (key == "source_line") {
        info.source_line = to_int(value).value_or(0);
      } else if (key == "stack_frame_id") {
        frame = to_int(value);
      }
    }
  }
  if (!frame) {
    if (auto id = computation.attribute(instruction, "stack_frame_id")) frame = to_int(*id);
  }
  if (info.source_file.empty() && frame && *frame > 0) {
    SourceInfo located = from_frame(*frame);
    info.source_file = std::move(located.source_file);
    info.source_line = located.source_line;
  }
  return info;
}

SourceInfo ModuleSources::fused(const hlo::Computation& body, int depth) const {
  if (body.root != hlo::k_none) {
    SourceInfo root = own(body, body.instructions[body.root]);
    if (!root.empty()) return root;
  }
  // The most common op_name of the fused instructions, the first in program order on a tie.
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;  // op_name -> count, first
  std::vector<SourceInfo> infos;
  for (const hlo::Instruction& i : body.instructions) {
    if (i.opcode == hlo::Opcode::kParameter) continue;
    SourceInfo info = own(body, i);
    if (info.empty() && i.opcode == hlo::Opcode::kFusion && depth < 8) {
      if (const hlo::Computation* nested = m_module.callee(body, i)) info = fused(*nested, depth + 1);
    }
    if (info.op_name.empty()) continue;
    auto [it, inserted] = counts.try_emplace(info.op_name, 0, infos.size());
    ++it->second.first;
    if (inserted) infos.push_back(std::move(info));
  }
  const SourceInfo* best = nullptr;
  std::size_t best_count = 0, best_first = 0;
  for (const auto& [name, count_first] : counts) {
    const auto [count, first] = count_first;
    if (best == nullptr || count > best_count || (count == best_count && first < best_first)) {
      best = &infos[first];
      best_count = count;
      best_first = first;
    }
  }
  return best != nullptr ? *best : SourceInfo{};
}

SourceInfo ModuleSources::of(std::uint32_t computation, std::uint32_t instruction) const {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& i = c.instructions[instruction];
  SourceInfo info = own(c, i);
  if (!info.empty() || i.opcode != hlo::Opcode::kFusion) return info;
  const hlo::Computation* body = m_module.callee(c, i);
  return body != nullptr ? fused(*body, 0) : info;
}

}  // namespace hlo_index::analysis
