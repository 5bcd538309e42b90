// The real HLO dumps the corpus tests walk. testdata/corpus (a few modules kept
// in the repository, HLO_INDEX_CORPUS_DIR) is always there; the full corpus
// (HLO_INDEX_FULL_CORPUS_DIR) is defined only when CMake found one next to the
// checkout or named by HLO_INDEX_CORPUS, so its tests exist only then.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace hlo_index::corpus {

/// Every file under `dir`, recursively, but its README.md (which says where the
/// dumps come from), sorted so that runs are repeatable.
inline std::vector<std::filesystem::path> files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() != ".md") found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

inline std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hlo_index::corpus
