// Measured times from a profiler's trace, joined by name to the instructions
// of a dump, so that the cost model's estimates can be shown beside them.
// Reads the Chrome trace event JSON that JAX's and TensorFlow's profilers
// write (`plugins/profile/<run>/<host>.trace.json.gz`, JAX's
// `perfetto_trace.json.gz`) and Perfetto exports, plain or gzip (recognised
// by its magic bytes, whatever the file is called). The file is streamed:
// time is linear in its size (nlohmann's SAX parser reads about 45 MB of
// JSON a second: ~6 s for a trace at xprof's cap of 1,000,000 events,
// ~250 MB), and memory grows with the number of distinct kernels, not of
// events.
//
// The steps, each with its rules: gzip_text.hpp (the text), trace_events.hpp
// (the JSON forms and the fields read), event_sums.hpp (the phases, B/E
// pairs, nesting), trace_kernels.hpp (which processes and lines count: the
// device's kernels or ops), then the join below.
//
// How a kernel joins an instruction of a module (Profile::join):
//  (a) `args.hlo_op` names the instruction exactly (GPU kernels carry it
//      from XLA's annotations; XLA:CPU's thunks too), and `args.hlo_module`,
//      when present, names the module: equal to `HloModule <name>`, where a
//      `(<program id>)` suffix (xprof's `XLA Modules` form, `jit_f(12)`) is
//      dropped. No other tolerance: XLA annotates with the module's own name,
//      the one the dump prints, and `jit_f` and `f` may be different modules.
//      When the event has a `program_id` and the dump's file name gives one
//      (`module_0012.jit_f...txt`), they must be equal too.
//  (b) an event without `hlo_op` joins by its name: an instruction of that
//      name, else the one instruction whose name sanitised as XLA names GPU
//      kernels (characters outside [A-Za-z0-9_$] become `_`: `fusion.12` ->
//      `fusion_12`) gives it; none when two instructions of the module give
//      the same kernel name.
//  (c) an event on an `XLA Ops` line (TPU) names its op: the leading name of
//      `args.long_name` when it has the form `%name = ...`, else its name,
//      and is joined as in (a); its module is `args.hlo_module`, or the
//      module of the `XLA Modules` event (`jit_f(12)`) of its `program_id`.
// An event that could join instructions of several of the modules given
// joins none (listed as unmatched with the reason); an event without a module
// joins whichever single module has the instruction.
//
// Several events of one instruction add up (a while body's fusion runs once
// per iteration; XLA may launch several kernels for one op; each device runs
// its own copy). Events nested inside another counted event of their line
// (TPU control flow: a `while` op holds its body's ops) add to their own
// instruction's time but are left out of the totals, so that the share of
// the measured time that joined is at most 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::cost {

/// A trace file that cannot be read. The message says what is wrong and
/// where, without the file name (the caller prints `file: error: ...`):
/// `line 3, column 1 (byte 78): syntax error while parsing array - unexpected '{'; expected ']'`,
/// `traceEvents[4] ("fusion_3", ph "X"): "dur" is "fast", not a number of microseconds`.
class ProfileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The measured time of one instruction.
struct MeasuredTime {
  double seconds = 0;       // the sum of its events' durations, over events, lines and devices
  std::size_t events = 0;   // how many events (a while body's fusion: one per iteration and device)
  std::size_t devices = 0;  // how many processes (devices) they ran on: seconds / devices is per device
};

/// The counted events of one kernel or op: one name, op, module and program.
struct ProfileKernel {
  std::string name;               // the event's name: `fusion_12`, `sm90_xmma_gemm_...`, `fusion.12` (TPU)
  std::string hlo_op;             // the instruction it names, (a) or (c); empty: joins by name (b)
  std::string hlo_module;         // the module it names; empty: any module
  std::string program_id;         // `args.program_id`; empty: not given
  double microseconds = 0;        // all its events
  double outer_microseconds = 0;  // its events not nested inside another counted event of their line
  std::size_t events = 0;
  std::vector<std::uint32_t> devices;  // the processes it ran on: indices into Profile::processes, sorted

  double seconds() const { return microseconds / 1e6; }
};

/// A kernel of the profile that joined no instruction, and why.
struct UnmatchedKernel {
  std::size_t kernel = 0;  // index into Profile::kernels
  std::string reason;      // "no instruction is named 'cutlass_gemm' or gives it as a kernel name"
};

/// Hashing for maps keyed by std::string that are looked up by string_view.
struct ProfileNameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A profile joined to the modules of a dump (Profile::join).
struct ProfileJoin {
  /// Per module, in the order given: the measured time of each instruction that has events.
  std::vector<std::unordered_map<std::string, MeasuredTime, ProfileNameHash, std::equal_to<>>> times;
  std::vector<UnmatchedKernel> unmatched;  // longest first, then by name
  double matched_seconds = 0;              // outer time of the kernels that joined
  /// Per module: the outer time of the kernels that joined it (events nested in another left out),
  /// over all its devices, and how many devices (processes) those ran on.
  std::vector<double> module_seconds;
  std::vector<std::size_t> module_devices;
  std::size_t matched_events = 0;
  double total_seconds = 0;  // the profile's (Profile::total_seconds)

  /// The measured time of instruction `instruction` of module `module` (an
  /// index into the modules joined), or none when no event joined it.
  std::optional<MeasuredTime> measured(std::size_t module, std::string_view instruction) const;
  /// How many runs of module `module` the trace holds, as the instructions that run once per run
  /// (`runs_once(name)`) say by their events per device: the count most of them show; 1 when none
  /// does. Measured times per run of the module divide by it.
  std::size_t runs_of_module(std::size_t module, const std::function<bool(std::string_view)>& runs_once) const;
  /// matched_seconds / total_seconds: how much of the measured time joined (0 without events).
  double matched_share() const { return total_seconds > 0 ? matched_seconds / total_seconds : 0; }
};

/// The counted events of a trace file, summed per kernel.
struct Profile {
  std::vector<ProfileKernel> kernels;  // sorted by module, op, name, program
  /// The processes whose events counted: device planes (`/device:GPU:0`), or
  /// host ones in a profile without a device; `pid 7` when unnamed. Sorted.
  std::vector<std::string> processes;
  double total_seconds = 0;         // the counted events' durations, nested events left out
  std::size_t total_events = 0;     // counted events, nested ones included
  std::size_t trace_events = 0;     // events in the file (metadata and uncounted ones included)
  std::size_t unpaired_events = 0;  // `B` without its `E` or `E` without a `B`: not counted
  bool compressed = false;          // the file was gzip
  bool host_only = false;           // no device process: host events counted (a CPU profile)

  /// Joins the kernels to the instructions of `modules` (the rules at the top of this file).
  /// Linear in the kernels times the modules, plus the instructions.
  ProfileJoin join(std::span<const hlo::Module> modules) const;
  /// The measured time of one instruction of `module` joined alone; joins
  /// the whole module each call: for many instructions, join() once.
  std::optional<MeasuredTime> measured(const hlo::Module& module, std::string_view instruction) const;
};

/// Reads a trace file (`-`: standard input); throws ProfileError when it
/// cannot be opened or read, is corrupt gzip, is not JSON, or is JSON but
/// not a trace.
Profile read_profile(const std::string& path);
/// The same for a file's bytes already in memory (gzip or not), read in
/// pieces of `piece_bytes` as a file is (0: one piece; tests split tokens
/// across pieces with small ones).
Profile parse_profile(std::string_view bytes, std::size_t piece_bytes = 0);

/// The name XLA gives the GPU kernel of instruction `name`: characters
/// outside [A-Za-z0-9_$] become `_` (`fusion.12` -> `fusion_12`).
std::string sanitized_kernel_name(std::string_view name);

}  // namespace hlo_index::cost
