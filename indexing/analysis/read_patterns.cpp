#include "indexing/analysis/read_patterns.hpp"

#include <functional>

#include "indexing/maps/shared_memo.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;

namespace {

struct SharedPatternKey {
  IndexingMap map;
  AccessModel model;
  std::int64_t output_slots, operand_bits, unit_bits, group_outputs;
  std::vector<std::int64_t> output_steps;
  bool operator==(const SharedPatternKey& other) const = default;
};

struct SharedPatternKeyHash {
  std::size_t operator()(const SharedPatternKey& key) const {
    std::size_t seed = indexing::MapHash()(key.map);
    auto mix = [&](std::int64_t v) {
      seed ^= std::hash<std::int64_t>()(v) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    };
    mix(static_cast<std::int64_t>(key.model));
    mix(key.output_slots);
    mix(key.operand_bits);
    mix(key.unit_bits);
    mix(key.group_outputs);
    for (std::int64_t s : key.output_steps) mix(s);
    return seed;
  }
};

}  // namespace

const Coalescing& ReadPatternMemo::of(const IndexingMap& physical, const AccessSetup& setup) {
  Key key{m_maps.intern(physical), setup.model,     setup.output_slots,
          setup.operand_bits,      setup.unit_bits, setup.output_steps};
  auto it = m_patterns.find(key);
  if (it != m_patterns.end()) return *it->second;
  // Never dropped nor destroyed (shared_memo.hpp), so entries stay where they are (node-based) and pointers to them
  // stay valid.
  static auto& shared = *new indexing::SharedMemo<SharedPatternKey, Coalescing, SharedPatternKeyHash>(0);
  SharedPatternKey shared_key{physical,        setup.model,         setup.output_slots, setup.operand_bits,
                              setup.unit_bits, setup.group_outputs, setup.output_steps};
  const Coalescing* found = shared.find_stable(shared_key);
  if (found == nullptr) found = &shared.insert(std::move(shared_key), coalescing({physical}, setup));
  m_patterns.emplace(std::move(key), found);
  return *found;
}

Target ReadPatternMemo::target(const hlo::Module& module) {
  if (!m_target) m_target = detect_target(module);
  return *m_target;
}

AccessModel access_model(Target target, const hlo::Module& module, const hlo::Computation& computation,
                         const hlo::Instruction& instruction) {
  switch (target) {
    case Target::kTpu: return AccessModel::kTpuTiles;
    case Target::kCpu: return AccessModel::kCpuLines;
    case Target::kGpu: break;
  }
  return gpu_emitter(module, computation, instruction);
}

namespace {

std::int64_t outer_tile_elements(const hlo::Tile& tile) {
  std::int64_t n = 1;
  for (std::int64_t d : tile.dims)
    if (d > 0) n *= d;
  return n;
}

// Elements of the outermost tile of a tiled layout, else 0.
std::int64_t outer_tile_elements(const hlo::Shape& shape) {
  return shape.layout && !shape.layout->tiles.empty() ? outer_tile_elements(shape.layout->tiles[0]) : 0;
}

}  // namespace

AccessSetup operand_access(AccessModel model, const layout::PhysicalLayout& output, const hlo::Shape& operand) {
  const std::int64_t tile_elements = outer_tile_elements(operand);
  const std::int64_t output_tile_elements = output.has_tiles() ? outer_tile_elements(output.tiles()[0]) : 0;
  const std::int64_t bits = operand.layout && operand.layout->element_size_bits != 0
                                ? operand.layout->element_size_bits
                                : hlo::element_type_bits(operand.type);
  AccessSetup setup = access_setup(model, output.allocated_elements(), bits, tile_elements, output_tile_elements);
  if (model == AccessModel::kGpuTiledTranspose) {
    // Strides of the output's physical dimensions, minor to major.
    const auto& dims = output.physical_dims();
    std::int64_t stride = 1;
    for (std::size_t k = dims.size(); k-- > 1;) {
      stride *= dims[k];
      setup.output_steps.push_back(stride);
    }
  }
  return setup;
}

ReadPatternTable read_patterns(const hlo::Module& module, const hlo::Computation& computation,
                               const hlo::Instruction& instruction, const indexing::InstructionIndexing& logical,
                               PhysicalIndexing& offsets, ReadPatternMemo& memo) {
  const hlo::Shape& shape = module.shape_of(instruction);
  const auto operands = computation.operands_of(instruction);
  const AccessModel model = access_model(memo.target(module), module, computation, instruction);
  ReadPatternTable table(logical.output_to_input.size());
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  for (std::size_t k = 0; k < logical.output_to_input.size() && k < leaves.size(); ++k) {
    const hlo::Shape& out = *leaves[k];
    const layout::PhysicalLayout* out_layout = offsets.layout(out);
    // Operands the output does not read (a wide tuple: all but one) get no entry.
    for (const auto& [j, maps] : logical.output_to_input[k].stored()) {
      if (j >= operands.size() || maps.empty()) continue;
      const hlo::Shape& operand = module.shape_of(computation.instructions[operands[j]]);
      if (out_layout == nullptr || offsets.layout(operand) == nullptr) continue;
      const AccessSetup setup = operand_access(model, *out_layout, operand);
      std::vector<Coalescing>& patterns = table[k][j];
      for (const IndexingMap& m : offsets.convert(maps, out, operand)) patterns.push_back(memo.of(m, setup));
    }
  }
  return table;
}

}  // namespace hlo_index::analysis
