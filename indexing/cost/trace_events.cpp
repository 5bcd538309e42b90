// Reading Chrome trace events with nlohmann's SAX parser. trace_events.hpp
// states what is read.
#include "indexing/cost/trace_events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "indexing/cost/profile.hpp"  // ProfileError

namespace hlo_index::cost {
namespace {

using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// The characters of the text, for nlohmann's parser
//===----------------------------------------------------------------------===//

/// The characters of a GzipText, as nlohmann's parser reads them: an input
/// iterator (its value a char) whose end is the end of the text. The parser
/// asks for the end before each character: one compare while a piece lasts.
class TextCursor {
public:
  explicit TextCursor(GzipText& input) : m_input(input) {}
  bool at_end() { return m_pos == m_end && !refill(); }
  /// Whether the text has ended (the parser asked past its last character).
  bool ended() const { return m_ended; }

  class Iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;

    Iterator() = default;  // the end
    explicit Iterator(TextCursor* cursor) : m_cursor(cursor) {}
    char operator*() const { return *m_cursor->m_pos; }
    Iterator& operator++() {
      ++m_cursor->m_pos;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++m_cursor->m_pos;
      return before;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.done() == b.done(); }

  private:
    bool done() const { return m_cursor == nullptr || m_cursor->at_end(); }
    TextCursor* m_cursor = nullptr;
  };

private:
  [[gnu::noinline]] bool refill() {
    const std::string_view piece = m_input.next();
    m_pos = piece.data();
    m_end = piece.data() + piece.size();
    m_ended = piece.empty();
    return !m_ended;
  }

  GzipText& m_input;
  const char* m_pos = nullptr;
  const char* m_end = nullptr;
  bool m_ended = false;
};

//===----------------------------------------------------------------------===//
// Keys and values
//===----------------------------------------------------------------------===//

/// Whether `key` is `word`: the length, then a compare of a known size that the compiler unrolls.
template <std::size_t N>
bool is(std::string_view key, const char (&word)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), word, N - 1) == 0;
}

/// `%fusion.12 = f32[8]{0} fusion(...)` -> `fusion.12`; "" when `long_name` is not of that form.
std::string_view op_of_long_name(std::string_view long_name) {
  if (!long_name.empty() && long_name.front() == '%') long_name.remove_prefix(1);
  const std::size_t space = long_name.find(' ');
  if (space == 0 || space == std::string_view::npos || long_name.substr(space, 3) != " = ") return {};
  return long_name.substr(0, space);
}

/// A number's value from its text (a JSON number, or a string holding one),
/// or none. In a long double, since an epoch timestamp in microseconds keeps
/// its nanoseconds only so (1700000000000000.125 needs 54 bits); the whole
/// and fraction digits are read apart, as from_chars on a long double goes
/// through strtold and the locale.
std::optional<long double> precise_value(std::string_view text) {
  static constexpr long double k_powers[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L, 1e9L,
                                             1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L};
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view t = text;
  const bool negative = t.starts_with('-');
  if (negative) t.remove_prefix(1);
  const std::size_t dot = t.find('.');
  const std::string_view whole = t.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : t.substr(dot + 1);
  if (!whole.empty() && whole.size() <= 18 && digits(whole) && digits(fraction) &&
      (dot == std::string_view::npos || !fraction.empty())) {
    std::uint64_t w = 0, f = 0;
    std::from_chars(whole.data(), whole.data() + whole.size(), w);
    const std::string_view kept = fraction.substr(0, 18);
    if (!kept.empty()) std::from_chars(kept.data(), kept.data() + kept.size(), f);
    const long double value = static_cast<long double>(w) + static_cast<long double>(f) / k_powers[kept.size()];
    return negative ? -value : value;
  }
  long double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// A number's value as a double (durations), or none.
std::optional<long double> double_value(std::string_view text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

//===----------------------------------------------------------------------===//
// The SAX handler
//===----------------------------------------------------------------------===//

/// Receives nlohmann's SAX events for a trace file and gives its events to
/// EventSums. It keeps only what it uses: the fields of events and the args
/// above, in strings it reuses; the values of other keys pass by without a
/// copy (their subtrees are counted in depth only).
class TraceReader {
public:
  TraceReader(TextCursor& cursor, bool compressed) : m_cursor(cursor), m_compressed(compressed) {}

  // nlohmann's SAX interface.
  bool null() { return skipped() || scalar({Kind::kNull, "null"}); }
  bool boolean(bool value) { return skipped() || scalar({Kind::kBool, value ? "true" : "false"}); }
  bool number_integer(json::number_integer_t value) { return skipped() || integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return skipped() || integer(value); }
  bool number_float(json::number_float_t value, const json::string_t& text) {
    return skipped() || scalar({Kind::kNumber, text, static_cast<long double>(value), true});
  }
  bool string(json::string_t& value) { return skipped() || scalar({Kind::kString, value}); }
  bool binary(json::binary_t& /*value*/) { return true; }  // not in JSON
  bool key(json::string_t& key);
  bool start_object(std::size_t /*elements*/);
  bool end_object();
  bool start_array(std::size_t /*elements*/);
  bool end_array();
  bool parse_error(std::size_t position, const std::string& last_token, const json::exception& error);

  /// Whether the text ended inside the top-level array, between events:
  /// Chrome's array form may leave out the closing `]` (a trace cut short).
  bool ended_open() const { return m_ended_open; }
  /// The sums, once the text is read.
  TraceSums finish() { return m_sums.finish(m_index, m_compressed); }

private:
  enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString };
  struct Scalar {
    Kind kind;
    std::string_view text;  // a string's value, a number as written
    long double number = 0;
    bool fraction = false;  // a number with a fraction or exponent: `number` is a double's
  };
  enum class Where : std::uint8_t { kStart, kTop, kEvents, kEvent, kArgs, kDone };
  enum class Field : std::uint8_t {
    kOther,  // a key whose value is not read
    kValue,  // no key: the top-level value, an element of the events
    kTraceEvents,
    kPh,
    kName,
    kPid,
    kTid,
    kTs,
    kDur,
    kArgs,  // top level and events
    kHloOp,
    kHloModule,
    kProgramId,
    kLongName,
    kArgName  // args
  };

  static Field event_field(std::string_view key);
  static Field arg_field(std::string_view key);
  /// Whether the value that comes is not read: inside a value skipped whole, or of a key not read.
  bool skipped() const { return m_skip > 0 || m_field == Field::kOther; }
  template <class Integer>
  bool integer(Integer value) {
    const char* end = std::to_chars(m_digits, m_digits + sizeof m_digits, value).ptr;
    return scalar({Kind::kNumber, std::string_view(m_digits, static_cast<std::size_t>(end - m_digits)),
                   static_cast<long double>(value)});
  }
  bool scalar(const Scalar& value);
  static void set_number(NumberField& field, const Scalar& value, bool precise);
  static std::string_view kind_name(Kind kind);

  TextCursor& m_cursor;
  bool m_compressed;
  char m_digits[24] = {};
  Where m_where = Where::kStart;
  Field m_field = Field::kValue;
  std::size_t m_skip = 0;  // depth inside a value that is skipped whole
  bool m_array_form = false, m_saw_events = false, m_ended_open = false;
  std::size_t m_index = 0;  // events read, the current one's index + 1
  TraceEvent m_event;
  EventSums m_sums;
};

std::string_view TraceReader::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
  }
  return "a value";
}

// This runs for every key of every event.
TraceReader::Field TraceReader::event_field(std::string_view key) {
  return is(key, "ph")     ? Field::kPh
         : is(key, "ts")   ? Field::kTs
         : is(key, "dur")  ? Field::kDur
         : is(key, "pid")  ? Field::kPid
         : is(key, "tid")  ? Field::kTid
         : is(key, "name") ? Field::kName
         : is(key, "args") ? Field::kArgs
                           : Field::kOther;
}

TraceReader::Field TraceReader::arg_field(std::string_view key) {
  return is(key, "hlo_op")                                   ? Field::kHloOp
         : is(key, "hlo_module")                             ? Field::kHloModule
         : is(key, "program_id") || is(key, "hlo_module_id") ? Field::kProgramId
         : is(key, "long_name")                              ? Field::kLongName
         : is(key, "name")                                   ? Field::kArgName
                                                             : Field::kOther;
}

bool TraceReader::key(json::string_t& key) {
  if (m_skip > 0) return true;
  switch (m_where) {
    case Where::kEvent: m_field = event_field(key); break;
    case Where::kArgs: m_field = arg_field(key); break;
    case Where::kTop: m_field = is(key, "traceEvents") ? Field::kTraceEvents : Field::kOther; break;
    default: break;
  }
  return true;
}

bool TraceReader::start_object(std::size_t /*elements*/) {
  if (m_skip > 0) {
    ++m_skip;
    return true;
  }
  switch (m_where) {
    case Where::kStart: m_where = Where::kTop; break;
    case Where::kTop:
      if (m_field == Field::kTraceEvents) throw ProfileError("\"traceEvents\" is an object, not an array of events");
      m_skip = 1;
      break;
    case Where::kEvents:
      ++m_index;
      m_event.clear();
      m_where = Where::kEvent;
      break;
    case Where::kEvent:
      if (m_field == Field::kArgs) {
        m_where = Where::kArgs;
      } else {
        m_skip = 1;
      }
      break;
    case Where::kArgs:
    case Where::kDone: m_skip = 1; break;
  }
  m_field = Field::kOther;  // until a key
  return true;
}

bool TraceReader::end_object() {
  if (m_skip > 0) {
    --m_skip;
    return true;
  }
  switch (m_where) {
    case Where::kTop:
      if (!m_saw_events) throw ProfileError("no \"traceEvents\" array in the top-level object: not a trace");
      m_where = Where::kDone;
      break;
    case Where::kEvent:
      m_sums.add(m_event, m_index - 1);
      m_where = Where::kEvents;
      m_field = Field::kValue;
      break;
    case Where::kArgs:
      m_where = Where::kEvent;
      m_field = Field::kOther;
      break;
    default: break;
  }
  return true;
}

bool TraceReader::start_array(std::size_t /*elements*/) {
  if (m_skip > 0) {
    ++m_skip;
    return true;
  }
  switch (m_where) {
    case Where::kStart:
      m_array_form = true;
      m_sums.set_array_form(true);
      m_where = Where::kEvents;
      break;
    case Where::kTop:
      if (m_field == Field::kTraceEvents && !m_saw_events) {
        m_saw_events = true;
        m_where = Where::kEvents;
        m_field = Field::kValue;
      } else {
        m_skip = 1;
      }
      break;
    case Where::kEvents:
      throw ProfileError(fmt::format("{} is an array, not an event object", m_sums.event_name(m_index)));
    default: m_skip = 1; break;
  }
  return true;
}

bool TraceReader::end_array() {
  if (m_skip > 0) {
    --m_skip;
    return true;
  }
  if (m_where == Where::kEvents) m_where = m_array_form ? Where::kDone : Where::kTop;
  m_field = Field::kOther;
  return true;
}

bool TraceReader::scalar(const Scalar& value) {
  switch (m_where) {
    case Where::kStart:
      throw ProfileError(
          fmt::format("the file is {} in JSON, not a trace (an object with \"traceEvents\", or an "
                      "array of events)",
                      kind_name(value.kind)));
    case Where::kTop:
      if (m_field == Field::kTraceEvents) {
        throw ProfileError(fmt::format("\"traceEvents\" is {}, not an array of events", kind_name(value.kind)));
      }
      break;
    case Where::kEvents:
      throw ProfileError(
          fmt::format("{} is {}, not an event object", m_sums.event_name(m_index), kind_name(value.kind)));
    case Where::kEvent: {
      if (value.kind == Kind::kNull) break;
      switch (m_field) {
        case Field::kPh: m_event.ph = value.text; break;
        case Field::kName: m_event.name = value.text; break;
        case Field::kPid: m_event.pid = value.text; break;
        case Field::kTid: m_event.tid = value.text; break;
        case Field::kTs: set_number(m_event.ts, value, /*precise=*/true); break;
        case Field::kDur: set_number(m_event.dur, value, /*precise=*/false); break;
        default: break;
      }
      break;
    }
    case Where::kArgs: {
      if (value.kind != Kind::kString && value.kind != Kind::kNumber) break;
      switch (m_field) {
        case Field::kHloOp: m_event.hlo_op = value.text; break;
        case Field::kHloModule: m_event.hlo_module = value.text; break;
        case Field::kProgramId: m_event.program_id = value.text; break;
        case Field::kLongName: m_event.long_name_op = op_of_long_name(value.text); break;
        case Field::kArgName: m_event.arg_name = value.text; break;
        default: break;
      }
      break;
    }
    case Where::kDone: break;
  }
  return true;
}

// A number, or a string holding one (some writers quote timestamps to keep their digits). A
// number's value is nlohmann's (an integer's exactly, a fraction's as a double) but for a
// timestamp with a fraction, read again from its digits.
void TraceReader::set_number(NumberField& field, const Scalar& value, bool precise) {
  std::optional<long double> number;
  if (value.kind == Kind::kNumber) {
    number = precise && value.fraction ? precise_value(value.text) : value.number;
  } else if (value.kind == Kind::kString) {
    number = precise ? precise_value(value.text) : double_value(value.text);
  }
  if (number) {
    field.state = NumberField::State::kNumber;
    field.value = *number;
  } else {
    field.state = NumberField::State::kBad;
    field.shown = value.kind == Kind::kString ? fmt::format("\"{}\"", value.text) : std::string(value.text);
  }
}

// nlohmann's `[json.exception.parse_error.101] parse error at line 3, column 17: syntax error
// while parsing ...` -> `line 3, column 17 (byte 57): syntax error while parsing ...`; the bytes
// it quotes (`last read: '...'`) need not be UTF-8, and those outside ASCII are shown `<0xEF>`.
bool TraceReader::parse_error(std::size_t position, const std::string& /*last_token*/, const json::exception& error) {
  std::string_view what = error.what();
  const bool at_end = m_cursor.ended() && what.find("unexpected end of input") != std::string_view::npos;
  if (at_end && m_array_form && m_where == Where::kEvents && m_skip == 0) {
    m_ended_open = true;  // `[{...}, {...},` and nothing more: Chrome's array form without its `]`
    return false;
  }
  if (at_end && m_where == Where::kStart) throw ProfileError("empty file, not a trace");
  if (const std::size_t id_end = what.find("] "); what.starts_with("[json.exception.") && id_end != what.npos) {
    what.remove_prefix(id_end + 2);
  }
  const std::string_view prefix = "parse error at ";
  if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
  // nlohmann counts the end of the text as a byte.
  const std::string byte =
      at_end ? fmt::format("at the end, after {} bytes", position - 1) : fmt::format("byte {}", position);
  const std::string_view of_text = m_compressed ? " of the decompressed text" : "";
  const std::size_t colon = what.find(": ");
  std::string message = what.starts_with("line ") && colon != std::string_view::npos
                            ? fmt::format("{} ({}{}){}", what.substr(0, colon), byte, of_text, what.substr(colon))
                            : fmt::format("{}{}: {}", byte, of_text, what);
  std::string shown = m_where == Where::kStart ? "not JSON: " : "";
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80) {
      shown += c;
    } else {
      shown += fmt::format("<0x{:02X}>", u);
    }
  }
  throw ProfileError(shown);
}

}  // namespace

TraceSums read_trace_events(GzipText& text) {
  TextCursor cursor(text);
  TraceReader reader(cursor, text.compressed());
  const bool ok = json::sax_parse(TextCursor::Iterator(&cursor), TextCursor::Iterator(), &reader,
                                  json::input_format_t::json, /*strict=*/true);
  if (!ok && !reader.ended_open()) throw ProfileError("cannot read the trace");  // parse_error throws first
  return reader.finish();
}

}  // namespace hlo_index::cost
