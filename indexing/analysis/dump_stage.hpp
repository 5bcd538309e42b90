// Whether a module is a dump taken before XLA's optimisation passes (the
// HLO a framework hands XLA, or a `before_optimizations` dump): no fusion
// anywhere, and ops that every backend fuses or re-lays out still standing
// on their own. Its costs are those of running each op as its own kernel,
// and its layouts are not final, so fusion decisions are not judged on it
// and access verdicts say that layout assignment and fusion would change them.
#pragma once

#include <string>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

struct DumpStage {
  bool before_optimisation = false;
  std::string evidence;  // what says so, for the one line each command prints about it
};

/// Before optimisation when the module has no fusion and one of: an op
/// every backend wraps in a fusion (elementwise ops, broadcasts, reshapes,
/// transposes, slices, pads, reduces, ...) standing alone outside the
/// scalar computations ops apply, an array shape with no layout, or an
/// elementwise op whose operand is laid out differently from its result
/// (layout assignment makes them agree).
DumpStage dump_stage(const hlo::Module& module);

}  // namespace hlo_index::analysis
