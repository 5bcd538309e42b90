// How many times a while loop runs, when its text says so, and which values
// its body computes from its counter. Two forms are recognised:
//  - a counter: a state leaf the body steps by a constant (add or subtract),
//    that starts at a constant and that the condition compares with a
//    constant (`compare(i, 10), direction=LT`), as JAX's fori_loop and scan
//    and XLA's own loops are written;
//  - XLA's `known_trip_count` in the while's backend_config.
// When both are there they must agree. The body's values derived from the
// counter (an offset `i`, JAX's negative-index fix `select(i < 0, i + n, i)`,
// `2 * i + 1`) are affine functions of it over the values it takes.
#pragma once

#include <cstdint>
#include <optional>

#include "parser/hlo_module.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::indexing {

/// A while's body= and condition= computations (module indices); none when
/// either is missing.
struct LoopComputations {
  std::uint32_t body = 0;
  std::uint32_t condition = 0;
};
std::optional<LoopComputations> loop_computations(const hlo::Module& module, const hlo::Computation& computation,
                                                  const hlo::Instruction& loop);

struct LoopCounter {
  std::size_t leaf = 0;    // the state leaf that holds it
  std::int64_t start = 0;  // its value when the loop starts
  std::int64_t step = 0;   // what each iteration adds (never 0)
};

struct TripCount {
  std::int64_t trips = 0;  // iterations the body runs
  std::optional<LoopCounter> counter;
  /// The values the counter takes in the iterations that run (empty when
  /// there is no counter or no iteration).
  simplify::Interval counter_values() const;
};

/// Iterations beyond this are not counted (a counter stepping to 2^62 is no loop anyone runs).
inline constexpr std::int64_t k_max_trip_count = std::int64_t{1} << 40;

/// The trip count of while instruction `instruction` of `computation`; none
/// when neither form is recognised, when they disagree, or when the counter
/// would leave its element type's range.
std::optional<TripCount> loop_trip_count(const hlo::Module& module, const hlo::Computation& computation,
                                         std::uint32_t instruction);

/// value = scale * counter + offset.
struct CounterAffine {
  std::int64_t scale = 0;
  std::int64_t offset = 0;
  bool operator==(const CounterAffine&) const = default;
};

/// An affine function of the counter over an interval of its values.
struct CounterPiece {
  simplify::Interval values;
  CounterAffine value;
  bool operator==(const CounterPiece&) const = default;
};

/// Pieces a counter-derived value is split into at most.
inline constexpr std::size_t k_max_counter_pieces = 16;

/// The value of the scalar integer instruction `instruction` of the loop's
/// body as a function of the counter's value in the same iteration, over
/// `counter_values`: disjoint pieces in increasing order of values, covering
/// them, each affine. Through the counter itself (get-tuple-element),
/// constants, add, subtract, multiply by a constant, negate,
/// convert/copy/bitcast/reshape that keep the value, and select, maximum,
/// minimum and clamp, split where their choice changes. None for anything
/// else, past k_max_counter_pieces, or when a value could leave its type.
std::optional<std::vector<CounterPiece>> counter_pieces(const hlo::Module& module, const hlo::Computation& body,
                                                        std::uint32_t instruction, const LoopCounter& counter,
                                                        simplify::Interval counter_values);

}  // namespace hlo_index::indexing
