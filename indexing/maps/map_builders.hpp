// Small constructors shared by the per-op map builders (op_maps_*.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing::build {

/// One variable per size, with the interval [0, size - 1].
std::vector<Variable> variables(const std::vector<std::int64_t>& sizes);
/// d0, ..., dn-1 (or s0, ...) as expressions.
std::vector<Expr> dims(std::size_t n);
std::vector<Expr> ranges(std::size_t n, std::uint32_t first = 0);

/// (d..)[s..] -> (results) over the box `dims` x `ranges`.
IndexingMap map(const std::vector<std::int64_t>& dim_sizes, std::vector<Expr> results,
                const std::vector<std::int64_t>& range_sizes = {});
/// Marks every range variable of `m` as contracted (a dot's or convolution's operand map):
/// compositions carry the mark, so a fusion's tiles know which dimensions a K step splits.
void mark_contracted(IndexingMap& m);
/// (d..) -> (): every element of the domain reads the one scalar element.
IndexingMap scalar(const std::vector<std::int64_t>& dim_sizes);
/// ()[s..] -> (s..): a scalar feeds every element of `sizes`.
IndexingMap to_every_element(const std::vector<std::int64_t>& sizes);
/// A map (d..) -> () with constraints, turned around: ()[s..] -> (s..) with
/// the same constraints on s. For scalars that only some elements read.
IndexingMap turned_scalar(const IndexingMap& scalar_map);

/// Index `from_exprs` of an array of shape `from` (row-major) as an index of
/// an array of shape `to` with the same element count, grouping dimensions
/// the way XLA's reshape analysis does so that unchanged and simply merged
/// or split dimensions keep simple expressions.
std::vector<Expr> reshape_index(const std::vector<std::int64_t>& from, const std::vector<Expr>& from_exprs,
                                const std::vector<std::int64_t>& to);

std::int64_t product(const std::vector<std::int64_t>& sizes);

}  // namespace hlo_index::indexing::build
