// The text of a file, of standard input or of bytes in memory, a piece at a
// time: the bytes as they are, or what they inflate to when they begin with
// gzip's magic bytes (1f 8b), whatever the file is called. Several gzip
// members in a row (`cat a.gz b.gz`) are one text, as gzip(1) reads them.
// A piece is at most 256 KiB, so a file is never held whole. zlib inflates.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hlo_index::cost {

/// Text that cannot be read. The message says why, without the file name
/// (the caller prints `file: error: ...`): `cannot open file: No such file or
/// directory`, `corrupt gzip data: incorrect data check (after 1024 bytes of text)`.
class TextError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The text of one file or string, read in pieces with next().
class GzipText {
public:
  /// Opens file `path` (`-`: standard input); throws TextError when it
  /// cannot be opened or is a directory.
  explicit GzipText(const std::string& path);
  /// The text of `bytes`, read in pieces of `piece_bytes` as a file is
  /// (0: one piece; tests split tokens across pieces with small ones).
  GzipText(std::string_view bytes, std::size_t piece_bytes);
  GzipText(const GzipText&) = delete;
  GzipText& operator=(const GzipText&) = delete;
  ~GzipText();

  /// Whether the bytes are gzip.
  bool compressed() const;
  /// The next piece of text, valid until the next call; empty at the end.
  /// Throws TextError when the file cannot be read or its gzip data is
  /// corrupt, truncated, or followed by bytes that are not gzip.
  std::string_view next();

private:
  class Bytes;
  class Inflated;
  std::unique_ptr<Bytes> m_bytes;
  std::unique_ptr<Inflated> m_text;
};

}  // namespace hlo_index::cost
