#include "golden.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hlo_index::golden {

bool g_update = false;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir,
                                                        const std::string& extension) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string compare_or_update(const std::filesystem::path& expected_path, const std::string& actual) {
  if (g_update) {
    if (!std::filesystem::exists(expected_path) || read_file(expected_path) != actual) {
      std::ofstream(expected_path, std::ios::binary) << actual;
      return "";
    }
  }
  if (!std::filesystem::exists(expected_path)) return "missing " + expected_path.string() + " (run with --update)";
  std::string expected = read_file(expected_path);
  if (expected == actual) return "";
  std::size_t line = 1, i = 0;
  for (; i < expected.size() && i < actual.size() && expected[i] == actual[i]; ++i)
    if (expected[i] == '\n') ++line;
  return "differs from " + expected_path.string() + " at line " + std::to_string(line) + "\n--- expected:\n" +
         expected + "\n--- actual:\n" + actual;
}

std::string command_output(const std::string& out, std::string err, int exit_code, const std::filesystem::path& dir) {
  const std::string prefix = dir.string() + "/";
  for (std::size_t at; (at = err.find(prefix)) != std::string::npos;) err.erase(at, prefix.size());
  return out + err + "exit: " + std::to_string(exit_code) + "\n";
}

}  // namespace hlo_index::golden
