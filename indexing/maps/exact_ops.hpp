// Exact (isl-decided) questions about indexing maps. Each runs under an isl
// operation budget; std::nullopt means the budget ran out. Also the
// variable clean-ups that need such a question. Calls map_ops and isl,
// never the simplification pipeline (simplify_map.hpp, above it).
#pragma once

#include <cstdint>
#include <optional>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// True if the domain has no integer point. nullopt for UNDEFINED maps and
/// when the budget ran out.
std::optional<bool> is_empty(const IndexingMap& map);

/// Semantic equality: same relation { (d, rt) -> r } (range variables are
/// existential), same runtime-variable sources. Two UNDEFINED maps are
/// equal; UNDEFINED never equals a defined map. Empty relations are equal
/// whatever their arity (a KNOWN EMPTY typed as text has none).
std::optional<bool> are_equal(const IndexingMap& a, const IndexingMap& b);

/// A sound proof that the relations of two defined maps differ, without
/// isl: their images differ at a corner of either domain box (dimensions
/// and runtime variables at their bounds), each image enumerated over at
/// most `limit` combinations of range variables. False: not proved.
/// Assumes the same variable counts.
bool differ_at_a_corner(const IndexingMap& a, const IndexingMap& b, std::int64_t limit);

/// True when one map relates a point the other does not: an integer point of
/// a's domain (isl's sample of it, kept per domain) whose image b lacks at the
/// same dimension and runtime values, or the reverse. A proof of inequality
/// where differ_at_a_corner finds none: pieces whose domains differ inside the
/// box agree at its corners (outside both). False proves nothing; past `limit`
/// range-variable combinations, or isl's budget, it is false.
bool differ_at_a_sample(const IndexingMap& a, const IndexingMap& b, std::int64_t limit);

/// A hash of a defined map's images at two fixed points (every dimension and runtime value 0,
/// then every one 1), each enumerated over at most `limit` combinations of range variables,
/// with its variable and result counts: maps of equal relations have equal signatures, so
/// different signatures prove the relations differ, with one enumeration per map instead of
/// one per pair (a deduplication compares every pair of a set). None past `limit`, for maps
/// with replica ids, UNDEFINED or KNOWN EMPTY ones, or on overflow.
std::optional<std::uint64_t> image_signature(const IndexingMap& map, std::int64_t limit);

/// Variable clean-ups that ask isl whether what they drop can hold.
/// Drops range variables (and runtime variables when `runtime_too`) that
/// neither the results nor a constraint involving a used variable mention
/// (with the constraints that only mention unused ones, after checking they
/// can hold), renumbering the rest. Returns true if something was removed.
/// Runtime variables are kept by default: they are inputs of the relation
/// { (d, rt) -> r }, so dropping one changes what the map is a function of
/// (XLA drops them; its compatibility mode asks for that).
bool remove_unused_symbols(IndexingMap& map, bool runtime_too = false);

/// A range variable fixed by an equality constraint `s + e in [c, c]`
/// (coefficient +-1, e free of s) is replaced by `c - e` everywhere, and
/// its interval becomes a constraint on `c - e`. Returns true on change.
bool eliminate_determined_symbols(IndexingMap& map);

/// Makes the domain exact where rules cannot (reached through simplify()'s
/// policies by everything but the pipeline itself): KNOWN EMPTY if it has no
/// integer point, constraints implied by the others removed, every variable
/// interval narrowed to the exact projection of the domain. Returns true on
/// change; leaves the map alone when the budget runs out.
bool tighten_domain(IndexingMap& map);

}  // namespace hlo_index::indexing
