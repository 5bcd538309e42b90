// Reading the events of a Chrome trace event file: nlohmann's SAX parser
// reads the JSON as it streams in (the document is never held whole), and
// each event goes to EventSums (event_sums.hpp) as soon as it is read.
//
// The forms: `{"traceEvents": [...], ...}` or a bare array of events, whose
// closing `]` may be missing (a trace cut short, as Chrome allows); a UTF-8
// byte order mark may come first. Of an event, `ph`, `name`, `pid`, `tid`,
// `ts`, `dur` and these args are read: `hlo_op`, `hlo_module`, `program_id`
// (or `hlo_module_id`), the op `long_name` names (`%fusion.12 = ...` ->
// `fusion.12`), and a metadata event's `name`; the values of other keys are
// passed over. A timestamp keeps its digits (an epoch `ts` in microseconds
// with a fraction of a nanosecond), and a number may be quoted.
#pragma once

#include "indexing/cost/event_sums.hpp"
#include "indexing/cost/gzip_text.hpp"

namespace hlo_index::cost {

/// The events of the trace event JSON of `text`, summed. Throws
/// ProfileError when it is not JSON (`line 3, column 1 (byte 78): syntax
/// error while parsing array - ...`) or not a trace, and TextError when it
/// cannot be read.
TraceSums read_trace_events(GzipText& text);

}  // namespace hlo_index::cost
