// The kernels of a trace: which of its lines' events count (the kernels or
// ops of the device), and their sums per kernel.
//
//  * on a device process (`process_name` `/device:GPU:0`, `/device:TPU:0`):
//    the events of its `XLA Ops` lines when it has one (TPUs; xprof's derived
//    lines), else those of all its lines but xprof's summary lines (`Steps`,
//    `XLA Modules`, `Framework Ops`, `Async XLA Ops`, ...): the GPU streams;
//  * on a process that is neither `/device:` nor `/host:` (a trace without
//    process names): events carrying `args.hlo_op`;
//  * host processes (`/host:CPU`) never count when there is a device
//    process. Without one (a CPU profile) the events that name an HLO op
//    count (`args.hlo_op`, XLA:CPU's thunks, or an `XLA Ops` line), or every
//    event when none does.
//
// An event on an `XLA Ops` line without `hlo_op` names its op by the op of
// its `long_name`, else by its own name; an event without `hlo_module` whose
// `program_id` is that of an `XLA Modules` event (`jit_f(12)`) takes that
// module. A kernel's outer time leaves out its events nested inside another
// counted event of their line (among the events that carry `hlo_op` when
// only those count), so that the totals count each moment once.
#pragma once

#include <string_view>
#include <utility>

#include "indexing/cost/event_sums.hpp"
#include "indexing/cost/profile.hpp"

namespace hlo_index::cost {

/// The profile of a trace's events: the kernels that count, and the totals.
Profile counted_kernels(const TraceSums& trace);

/// `jit_f(12)` -> {`jit_f`, `12`}: xprof's name of a module with its program
/// id; {name, ""} when there is no `(digits)` suffix.
std::pair<std::string_view, std::string_view> split_program_id(std::string_view name);

}  // namespace hlo_index::cost
