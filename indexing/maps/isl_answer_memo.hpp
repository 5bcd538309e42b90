// Answers of isl questions kept for the process (shared_memo.hpp), with the
// isl computations each cost. A hit counts those computations again, so the
// work an instruction's budget counts is the same whether an answer was
// worked out or recalled: the output does not depend on what was analysed
// before or on another thread. Nothing is kept while a wall-clock deadline
// is set: an answer cut short by the clock depends on the machine.
#pragma once

#include <cstdint>
#include <utility>

#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/shared_memo.hpp"

namespace hlo_index::indexing {

template <typename Value>
struct IslAnswer {
  Value value;
  std::uint64_t isl_computations = 0;
};

/// `compute()`'s answer for `key`: recalled from `memo`, or computed and kept.
template <typename Key, typename Value, typename Hash, typename Compute>
Value recall_isl_answer(SharedMemo<Key, IslAnswer<Value>, Hash>& memo, Key key, Compute&& compute) {
  IslContext& context = IslContext::get();
  if (context.deadline()) return compute();
  if (std::optional<IslAnswer<Value>> known = memo.find(key)) {
    for (std::uint64_t k = 0; k < known->isl_computations; ++k) context.count_computation();
    return std::move(known->value);
  }
  const std::uint64_t before = context.computations();
  Value value = compute();
  memo.insert(std::move(key), IslAnswer<Value>{value, context.computations() - before});
  return value;
}

}  // namespace hlo_index::indexing
