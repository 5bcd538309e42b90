// Golden files for `hlo-index analyze --expect GOLDEN [--update]`: the output is
// compared with a file and a unified diff printed when they differ, or the file
// is rewritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace hlo_index::app {

/// The exit code of `--expect` when the output differs from the golden file.
inline constexpr int k_exit_golden_differs = 1;

struct TextDiffOptions {
  std::string_view old_label = "a";  // `--- a`
  std::string_view new_label = "b";  // `+++ b`
  std::size_t context = 3;           // unchanged lines around each change
  /// Each search for the middle of a shortest edit script is exact up to this
  /// many edits from either end; beyond, it splits the texts at the furthest
  /// point it reached (GNU diff's heuristic for costly diffs). The diff stays
  /// correct, only not always minimal, and costs O((N+M)·max_exact_edits) when
  /// N and M lines differ by many more changed lines than that.
  std::size_t max_exact_edits = 256;
  /// Budget of the whole search, in steps. When it runs out, the regions not
  /// matched yet are replaced whole: still a correct diff.
  std::uint64_t max_steps = 500'000'000;
};

/// The unified diff (`diff -u`) of two texts, line by line; empty when they are
/// equal. Minimal when the searches stay under max_exact_edits (Myers'
/// O((N+M)·D) algorithm in linear space), in GNU diff's format without
/// timestamps: `--- a`, `+++ b`, then hunks
///   @@ -3,7 +3,6 @@
///    context
///   -removed line
///   +added line
/// with `context` unchanged lines around each change; changes separated by at
/// most 2·context unchanged lines share a hunk. A range of one line is written
/// `-3`, an empty one `-2,0` (the line before it). A last line without a
/// newline is followed by `\ No newline at end of file`.
std::string unified_diff(std::string_view old_text, std::string_view new_text, const TextDiffOptions& options = {});

/// Compares `actual` with the file `golden` (a path as the user gave it).
/// - equal: returns 0 and prints nothing;
/// - different: prints the unified diff from the file to `actual` (`--- GOLDEN`,
///   `+++ actual`) on `out`, a one-line note on `err`, and returns 1;
/// - with `update`: writes `actual` to the file when it differs or is missing
///   (a one-line note on `err`) and returns 0;
/// - the file is missing (without `update`) or cannot be read or written: an
///   error on `err`, returns 2.
int check_golden_file(const std::string& golden, std::string_view actual, bool update, std::ostream& out,
                      std::ostream& err);

}  // namespace hlo_index::app
