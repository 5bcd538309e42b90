// How an instruction uses each operand, counted exactly from its
// output -> operand maps: elements read at least once, reads in total
// (pairs of output element and operand element, per map), bytes, and
// whether one operand is read through several distinct maps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "indexing/count.hpp"
#include "indexing/instruction_indexing.hpp"

namespace hlo_index::analysis {

struct OperandUtilisation {
  std::size_t operand = 0;
  std::int64_t operand_elements = 0;  // the operand's size (bounds for dynamic dimensions)
  std::int64_t element_bits = 0;
  indexing::Count distinct_read;  // operand elements some output element reads
  indexing::Count total_reads;    // sum over outputs and maps of (output element, operand element) pairs
  std::size_t maps = 0;           // distinct maps the operand is read through
  /// The maps have runtime offsets: total_reads is for one value of them
  /// (each at the low end of its range; the number of reads does not depend
  /// on it for clamped offsets) and distinct_read is an upper bound, the
  /// smaller of the reads and the elements any value may reach.
  bool depends_on_runtime = false;
  std::string undefined_reason;  // non-empty: no maps to count

  bool defined() const { return undefined_reason.empty(); }
  /// distinct_read / operand_elements (0 for an empty operand).
  double utilisation() const;
  /// total_reads / distinct_read (0 when nothing is read).
  double multiplicity() const;
  std::int64_t bytes_read() const;  // distinct elements, packed
};

struct InstructionUtilisation {
  std::vector<OperandUtilisation> operands;  // in operand order
  std::int64_t output_elements = 0;          // all outputs together
  std::int64_t bytes_written = 0;
  bool output_defined = true;  // false: a tuple output holds a token or opaque element
};

/// Counts from the output -> operand sets of an analysis (`indexing` must
/// have its output_to_input part). Tuple-shaped operands get an undefined
/// entry (they are not one array).
InstructionUtilisation utilisation(const hlo::Module& module, const hlo::Computation& computation,
                                   const hlo::Instruction& instruction, const indexing::InstructionIndexing& indexing);

}  // namespace hlo_index::analysis
