// The dataflow of a while loop's state through its body and condition, by
// state leaf (tuple_leaves.hpp): which leaves the body passes on unchanged,
// which leaves each leaf of the body's result is computed from, and which the
// condition reads. Worked out once per loop and leaf: a loop of hundreds of
// leaves asks for the closure of each of them.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "indexing/ops/op_context.hpp"

namespace hlo_index::indexing {

class LoopDataflow {
public:
  /// `op` is a while; throws Unsupported when its body or condition is missing.
  explicit LoopDataflow(const OpContext& op);

  std::size_t leaves() const { return m_leaves; }
  /// Whether leaf k of the body's root is the parameter's leaf k, moved by
  /// tuple and get-tuple-element only.
  bool passes_on(std::size_t k);
  /// Leaf k and every leaf it, or what the condition reads (which decides how
  /// often the body runs), reaches through the body, iteration after
  /// iteration (a fixed point).
  std::set<std::size_t> leaves_read(std::size_t k);

private:
  /// The parameter leaves leaf `e` of the body's root is computed from.
  const std::set<std::size_t>& reached(std::size_t e);

  const hlo::Module& m_module;
  const hlo::Computation* m_body = nullptr;
  const hlo::Computation* m_condition = nullptr;
  std::size_t m_leaves = 0;
  std::set<std::size_t> m_condition_reads;
  std::vector<std::optional<std::set<std::size_t>>> m_reached;  // by leaf, worked out when asked
  std::vector<signed char> m_passes_on;                         // by leaf: -1 not yet known
};

}  // namespace hlo_index::indexing
