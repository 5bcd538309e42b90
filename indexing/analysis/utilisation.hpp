// How an instruction uses each operand, counted exactly from its
// output -> operand maps: elements read at least once, reads in total
// (pairs of output element and operand element, per map), bytes, and
// whether one operand is read through several distinct maps.
//
// An operand read through an all-gather (a map with a replica id) is counted
// as (replica, element) pairs: an output element reads the element of one
// replica's buffer, so two replicas' copies of one element are two elements
// read, and its utilisation is over the buffers of the replicas it reads.
//
// A fusion with several outputs is counted by the execution model of
// fused_reads.hpp: a fused instruction shared by the outputs is evaluated
// once per element of their loop, not once per output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/count.hpp"

namespace hlo_index::analysis {

struct OperandUtilisation {
  std::size_t operand = 0;
  std::int64_t operand_elements = 0;  // the operand's size (bounds for dynamic dimensions)
  std::int64_t element_bits = 0;
  /// Through an all-gather: the replicas whose buffers are read (the
  /// elements read and the reads are then (replica, element) pairs); else 1.
  std::int64_t replicas = 1;
  indexing::Count distinct_read;  // operand elements some output element reads
  indexing::Count total_reads;    // sum over outputs and maps of (output element, operand element) pairs
  std::size_t maps = 0;           // distinct maps the operand is read through
  /// The maps have runtime offsets: total_reads is for one value of them
  /// (each at the low end of its range; the number of reads does not depend
  /// on it for clamped offsets) and distinct_read is an upper bound, the
  /// smaller of the reads and the elements any value may reach.
  bool depends_on_runtime = false;
  std::string undefined_reason;  // non-empty: no maps to count
  /// A tuple operand: the figures of each of its array leaves (tuple_leaves.hpp),
  /// whose sums are the figures above (element_bits is then 0: the leaves'
  /// element types differ). Empty for an array operand (and for `()`).
  std::vector<OperandUtilisation> leaves;
  bool tuple = false;
  std::vector<std::size_t> shape_index;  // of a leaf, within its tuple operand ({1}, {0,2}, ...)

  bool defined() const { return undefined_reason.empty(); }
  /// distinct_read / (operand_elements * replicas) (0 for an empty operand).
  double utilisation() const;
  /// total_reads / distinct_read (0 when nothing is read).
  double multiplicity() const;
  std::int64_t bytes_read() const;          // distinct elements, packed (saturated at INT64_MAX)
  std::int64_t read_traffic_bytes() const;  // every read, in whole bytes (saturated at INT64_MAX)
  /// bytes_read in full width: exact past 2^63 (distinct_read.wide_exact says whether it is a bound).
  simplify::Wide bytes_read_wide() const;
};

struct InstructionUtilisation {
  std::vector<OperandUtilisation> operands;  // in operand order
  std::int64_t output_elements = 0;          // all outputs together
  std::int64_t bytes_written = 0;            // saturated at INT64_MAX
  simplify::Wide bytes_written_wide = 0;     // in full width
};

struct FusedBody;

/// Counts from the output -> operand sets of an analysis (`indexing` must
/// have its output_to_input part). A tuple-shaped operand is counted per
/// leaf, from the maps whose first result names the leaf. A map that several outputs share is one
/// way of reading (the outputs share the loop). With `body` (the instruction's
/// fused body, fused_reads.hpp) the reads follow its shared-loop model.
InstructionUtilisation utilisation(const hlo::Module& module, const hlo::Computation& computation,
                                   const hlo::Instruction& instruction, const indexing::InstructionIndexing& indexing,
                                   const FusedBody* body = nullptr);

/// The reads of one execution of the maps (pairs of output element and
/// operand element, runtime offsets at the low end of their ranges, replica
/// ids as part of the element); `exact` becomes false for an upper bound.
std::int64_t reads_of_one_execution(const indexing::MapSet& maps, bool& exact);
/// The same in full width (exact past 2^63).
indexing::Count wide_reads_of_one_execution(const indexing::MapSet& maps);

/// The map with its runtime offsets pinned to the low end of their ranges:
/// one execution (for dynamic slices every offset reads as many elements).
indexing::IndexingMap pinned_runtime(const indexing::IndexingMap& map);

/// The maps with their replica ids as trailing results, padded with -1 (the
/// analysing replica's own buffer) to one length; unchanged without replica ids.
indexing::MapSet with_replica_results(const indexing::MapSet& maps);

}  // namespace hlo_index::analysis
