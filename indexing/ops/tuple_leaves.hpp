// The index spaces of a tuple-shaped value are its array leaves, in depth-first
// order: leaf k of a flat tuple is its element k, leaf k of `((a, b), c)` is
// a, b, c for k = 0, 1, 2 (shape indices {0,0}, {0,1}, {1}); an array is its
// own single leaf 0 (shape index {}); an empty tuple has none. Outputs of an
// instruction, the state of a walk through a called computation and the
// first result of a map into a tuple parameter all count leaves.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "parser/hlo_module.hpp"
#include "parser/shape.hpp"

namespace hlo_index::indexing {

/// 1 for an array, the leaves of every element for a tuple (0 for `()`).
std::size_t leaf_count(const hlo::Shape& shape);

/// The first leaf of top-level element `element` of tuple `shape` (0 for an array).
std::size_t leaf_offset(const hlo::Shape& shape, std::size_t element);

/// Leaf `leaf` of `shape`; throws Unsupported when there is no such leaf.
const hlo::Shape& leaf_shape(const hlo::Shape& shape, std::size_t leaf);

/// Leaf `leaf` of `shape`, or null when there is no such leaf.
const hlo::Shape* find_leaf_shape(const hlo::Shape& shape, std::size_t leaf);

/// Every leaf of `shape`, in order (one pass: for loops over the leaves of a wide tuple).
std::vector<const hlo::Shape*> leaf_shapes(const hlo::Shape& shape);

/// The shape index of leaf `leaf`: {} for an array, {k} for element k of a flat tuple.
std::vector<std::size_t> leaf_path(const hlo::Shape& shape, std::size_t leaf);

/// The leaf at shape index `path`; none when the path does not end at an array of `shape`.
std::optional<std::size_t> leaf_at(const hlo::Shape& shape, std::span<const std::size_t> path);

/// A tuple with a tuple element: its leaves are not its top-level elements.
bool has_nested_tuple(const hlo::Shape& shape);

/// `{0,1}`: a shape index as XLA writes it.
std::string shape_index_text(std::span<const std::size_t> path);

/// One leaf of one instruction's value: (instruction, leaf).
using ValueLeaf = std::pair<std::uint32_t, std::size_t>;

/// Where tuple or get-tuple-element `at` of `c` takes its leaf `leaf` from:
/// the operand and its leaf; none for other ops (and malformed ones).
std::optional<ValueLeaf> moved_leaf(const hlo::Module& module, const hlo::Computation& c, ValueLeaf at);

/// `at` followed back through tuple and get-tuple-element, which move leaves
/// without changing them, to the first instruction that is not one of them.
ValueLeaf leaf_origin(const hlo::Module& module, const hlo::Computation& c, ValueLeaf at);

}  // namespace hlo_index::indexing
