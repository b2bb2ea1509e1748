// The weights of a model that does not train (no `minimize`): the host holds them, one buffer per
// parameter, for checkpoints, `weights` and the inference cluster (engine/inference.hpp), which
// runs eval and predict. A training session keeps its weights in the training cluster instead.
#pragma once

#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"
#include "engine/cluster/device_memory.hpp"

namespace iputrain::engine {

class HostWeights {
 public:
  //! One zeroed, 64-byte aligned buffer per parameter of `graph`, carved from one block.
  explicit HostWeights(const ir::Graph& graph);

  bool has(ir::ValueId p) const;
  //! The buffer of parameter `p`; throws Error(Internal) for a value that is not a parameter.
  ir::Tensor tensor(ir::ValueId p) const;

 private:
  const ir::Graph& graph_;
  std::vector<int64_t> offset_;  // per value id; -1 = not a parameter
  AlignedBlock memory_;
};

}  // namespace iputrain::engine
