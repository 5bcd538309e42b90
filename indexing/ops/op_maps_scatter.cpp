// scatter: scatter(operands..., indices, updates...). Output element d
// starts as operand element d and is combined (to_apply, which sees every
// operand and every update) with each update element whose window lands on
// d. The window of update batch position G starts at S: S[k] is entry m of
// the index vector at G when scatter_dims_to_operand_dims[m] = k, else 0. A
// window that does not fit in the operand is skipped (XLA's semantics leave
// it to the implementation; XLA's CPU and GPU emitters skip the whole
// window), so each start offset is a runtime variable read from the indices
// operand that may hold any value of the index type, with the in-bounds
// starts [0, dim - window size] as a condition on it. An operand batching
// dimension (input_batching_dims) is written at the batch index of the
// indices' dimension paired with it (scatter_indices_batching_dims): exact.
#include <algorithm>
#include <optional>

#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

bool contains(const std::vector<std::int64_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), static_cast<std::int64_t>(x)) != v.end();
}

struct Scatter {
  std::size_t inputs = 0;  // N operands, N updates
  std::vector<std::int64_t> operand, indices, updates;
  std::vector<std::int64_t> update_window_dims, inserted_window_dims, to_operand_dims;
  std::size_t index_vector_dim = 0;       // == indices.size(): an implicit trailing vector of one
  std::vector<std::size_t> batch_dims;    // update dimensions not in update_window_dims
  std::vector<std::size_t> window_dims;   // operand dimensions neither inserted nor batching, in order
  std::vector<std::int64_t> window_size;  // per operand dimension (1 for inserted and batching ones)
  // Operand batching dimension (input_batching_dims) -> the position in
  // batch_dims of the indices' batching dimension paired with it.
  std::vector<std::pair<std::size_t, std::size_t>> batching;

  /// The operand batching dimension batch position q is paired with, if any.
  std::optional<std::size_t> batching_dim_of(std::size_t q) const {
    for (const auto& [k, b] : batching)
      if (b == q) return k;
    return std::nullopt;
  }

  std::size_t indices_operand() const { return inputs; }
};

Scatter scatter(const OpContext& op) {
  Scatter s;
  if (op.operand_count() < 3 || op.operand_count() % 2 == 0) throw Unsupported("expected operands, indices, updates");
  s.inputs = (op.operand_count() - 1) / 2;
  s.operand = op.operand_dims(0);
  s.indices = op.operand_dims(s.inputs);
  s.updates = op.operand_dims(s.inputs + 1);
  for (std::size_t j = 1; j < s.inputs; ++j) {
    if (op.operand_dims(j) != s.operand || op.operand_dims(s.inputs + 1 + j) != s.updates)
      throw Unsupported("the operands (or updates) of a variadic scatter differ in shape");
  }
  const std::vector<std::int64_t> input_batching =
      op.attribute("input_batching_dims") ? op.required_int_list("input_batching_dims") : std::vector<std::int64_t>{};
  const std::vector<std::int64_t> indices_batching = op.attribute("scatter_indices_batching_dims")
                                                         ? op.required_int_list("scatter_indices_batching_dims")
                                                         : std::vector<std::int64_t>{};
  if (input_batching.size() != indices_batching.size())
    throw Unsupported("input_batching_dims and scatter_indices_batching_dims differ in length");
  s.update_window_dims = op.required_int_list("update_window_dims");
  s.inserted_window_dims = op.required_int_list("inserted_window_dims");
  s.to_operand_dims = op.required_int_list("scatter_dims_to_operand_dims");
  s.index_vector_dim = sz(op.int_attribute("index_vector_dim").value_or(static_cast<std::int64_t>(s.indices.size())));
  if (s.index_vector_dim > s.indices.size()) throw Unsupported("index_vector_dim out of range");
  const std::int64_t vector_size = s.index_vector_dim == s.indices.size() ? 1 : s.indices[s.index_vector_dim];
  if (static_cast<std::int64_t>(s.to_operand_dims.size()) != vector_size)
    throw Unsupported("scatter_dims_to_operand_dims does not match the index vector");
  for (std::size_t u = 0; u < s.updates.size(); ++u) {
    if (!contains(s.update_window_dims, u)) s.batch_dims.push_back(u);
  }
  s.window_size.assign(s.operand.size(), 1);
  for (std::size_t k = 0; k < s.operand.size(); ++k) {
    if (contains(s.inserted_window_dims, k) || contains(input_batching, k)) continue;
    const std::size_t w = s.window_dims.size();
    if (w >= s.update_window_dims.size() || sz(s.update_window_dims[w]) >= s.updates.size())
      throw Unsupported("scatter dimensions do not match the shapes");
    s.window_size[k] = s.updates[sz(s.update_window_dims[w])];
    s.window_dims.push_back(k);
  }
  const std::size_t batch_rank = s.indices.size() - (s.index_vector_dim < s.indices.size() ? 1 : 0);
  if (s.window_dims.size() != s.update_window_dims.size() || s.batch_dims.size() != batch_rank)
    throw Unsupported("scatter dimensions do not match the shapes");
  for (std::int64_t k : s.to_operand_dims) {
    if (k < 0 || sz(k) >= s.operand.size()) throw Unsupported("scatter_dims_to_operand_dims out of range");
    if (s.window_size[sz(k)] > s.operand[sz(k)]) throw Unsupported("the update window is larger than the operand");
  }
  for (std::size_t i = 0; i < input_batching.size(); ++i) {
    const std::int64_t k = input_batching[i], t = indices_batching[i];
    if (k < 0 || sz(k) >= s.operand.size() || t < 0 || sz(t) >= s.indices.size() || sz(t) == s.index_vector_dim ||
        contains(s.to_operand_dims, sz(k)))
      throw Unsupported("scatter batching dimensions out of range");
    // The indices' dimensions other than the index vector are the update's batch dimensions, in order.
    s.batching.emplace_back(sz(k), sz(t) - (sz(t) > s.index_vector_dim ? 1 : 0));
  }
  return s;
}

// The index into the indices operand of index-vector entry `entry` at batch position `batch`.
std::vector<Expr> indices_index(const Scatter& s, const std::vector<Expr>& batch, const Expr& entry) {
  std::vector<Expr> out;
  std::size_t b = 0;
  for (std::size_t t = 0; t < s.indices.size(); ++t) out.push_back(t == s.index_vector_dim ? entry : batch[b++]);
  return out;
}

std::string source_name(const OpContext& op, std::size_t operand) {
  const hlo::Instruction& producer = op.operand(operand);
  if (producer.opcode == hlo::Opcode::kParameter) return "parameter(" + std::to_string(producer.parameter_number) + ")";
  return std::string(producer.name);
}

// The window starts of one update batch position, as runtime variables of a
// map over `dims` x `ranges` (whose expressions `batch` name the position):
// start[k] for every operand dimension k.
struct Starts {
  std::vector<Variable> runtime;
  std::vector<RuntimeSource> sources;
  std::vector<Expr> start;
};

Starts starts(const OpContext& op, const Scatter& s, const std::vector<std::int64_t>& dims,
              const std::vector<std::int64_t>& ranges, const std::vector<Expr>& batch) {
  Starts out;
  out.start.assign(s.operand.size(), Expr::constant(0));
  // Unlike a gather's start, a scatter's is not clamped: any value of the index type may
  // arrive, and the in-bounds starts are a condition on it (the others read nothing).
  const int bits = hlo::element_type_bits(op.operand_shape(s.indices_operand()).type);
  const std::int64_t type_max = bits >= 64 || bits < 2 ? std::int64_t{1} << 62 : (std::int64_t{1} << (bits - 1)) - 1;
  const Interval feasible{-type_max - 1, type_max};
  for (std::size_t m = 0; m < s.to_operand_dims.size(); ++m) {
    const std::size_t k = sz(s.to_operand_dims[m]);
    out.start[k] = Expr::runtime(u32(m));
    out.runtime.push_back(Variable{Interval{0, s.operand[k] - s.window_size[k]}, {}});
    RuntimeSource source;
    source.source = source_name(op, s.indices_operand());
    source.map = std::make_shared<const IndexingMap>(
        build::map(dims, indices_index(s, batch, Expr::constant(static_cast<std::int64_t>(m))), ranges));
    source.operand = static_cast<std::int64_t>(s.indices_operand());
    source.instruction = op.operand_index(s.indices_operand());
    source.feasible = feasible;
    out.sources.push_back(std::move(source));
  }
  return out;
}

// Output d reads update U when U's window, started at its batch position's
// offsets, lands on d: the batch dimensions are range variables, the window
// dimensions d - start, and inserted dimensions must equal their start.
IndexingMap updates_read(const OpContext& op, const Scatter& s) {
  std::vector<std::int64_t> ranges;
  std::vector<Expr> batch;
  for (std::size_t q = 0; q < s.batch_dims.size(); ++q) {
    // A batch position paired with an operand batching dimension is that dimension of the output.
    if (const auto k = s.batching_dim_of(q)) {
      batch.push_back(Expr::dim(u32(*k)));
      continue;
    }
    batch.push_back(Expr::range(u32(ranges.size())));
    ranges.push_back(s.updates[s.batch_dims[q]]);
  }
  Starts st = starts(op, s, s.operand, ranges, batch);
  IndexingMap map(Domain(build::variables(s.operand), build::variables(ranges), st.runtime), {});
  std::vector<Expr> results(s.updates.size());
  for (std::size_t q = 0; q < s.batch_dims.size(); ++q) results[s.batch_dims[q]] = batch[q];
  for (std::size_t w = 0; w < s.window_dims.size(); ++w) {
    const std::size_t k = s.window_dims[w];
    const Expr offset = Expr::dim(u32(k)) - st.start[k];
    results[sz(s.update_window_dims[w])] = offset;
    map.add_constraint(offset, Interval{0, s.window_size[k] - 1});
  }
  for (std::int64_t k : s.inserted_window_dims)
    map.add_constraint(Expr::dim(u32(sz(k))) - st.start[sz(k)], Interval::point(0));
  map.results() = std::move(results);
  map.runtime_sources() = std::move(st.sources);
  // One runtime value per start stands for the starts of every batch position: exact only
  // when there is one.
  if (build::product(ranges) > 1 && !s.to_operand_dims.empty())
    map.mark_approximate("one runtime value stands for the start indices of every update");
  return map;
}

// Update U lands on output start + window offset (its batch position's starts).
IndexingMap update_lands(const OpContext& op, const Scatter& s) {
  std::vector<Expr> batch;
  for (std::size_t b : s.batch_dims) batch.push_back(Expr::dim(u32(b)));
  Starts st = starts(op, s, s.updates, {}, batch);
  std::vector<Expr> results = st.start;
  for (std::size_t w = 0; w < s.window_dims.size(); ++w) {
    const std::size_t k = s.window_dims[w];
    results[k] = results[k] + Expr::dim(u32(sz(s.update_window_dims[w])));
  }
  for (const auto& [k, q] : s.batching) results[k] = batch[q];
  IndexingMap map(Domain(build::variables(s.updates), {}, st.runtime), std::move(results));
  map.runtime_sources() = std::move(st.sources);
  return map;
}

}  // namespace

std::vector<MapSet> o2i_scatter(const OpContext& op, std::size_t) {
  const Scatter s = scatter(op);
  std::vector<MapSet> sets(op.operand_count());
  for (std::size_t j = 0; j < op.operand_count(); ++j) {
    if (j < s.inputs) {
      sets[j].push_back(IndexingMap::identity(s.operand));
    } else if (j == s.indices_operand()) {
      sets[j].push_back(whole(s.operand, s.indices));
    } else {
      sets[j].push_back(updates_read(op, s));
    }
  }
  return sets;
}

std::vector<MapSet> i2o_scatter(const OpContext& op, std::size_t operand) {
  const Scatter s = scatter(op);
  IndexingMap map = operand < s.inputs               ? IndexingMap::identity(s.operand)
                    : operand == s.indices_operand() ? whole(s.indices, s.operand)
                                                     : update_lands(op, s);
  return std::vector<MapSet>(op.output_count(), MapSet{map});
}

}  // namespace hlo_index::indexing::detail
