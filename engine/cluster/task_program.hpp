// One task (a stage's forward, recompute or backward nodes) compiled against the buffers one
// micro-batch uses on one virtual IPU: a flat list of kernel calls with their operand views
// prepared once, so running it neither allocates nor looks anything up.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/half_round.hpp"
#include "core/ir/graph.hpp"
#include "engine/cluster/device_memory.hpp"

namespace iputrain::engine {

class TaskProgram {
 public:
  //! Compiles `nodes` (in order) reading and writing the copies micro-batch `micro_batch` uses in
  //! `memory`. Leaves (inputs, params, constants) have no kernel and are skipped. Operands found in
  //! `substitutes` are read from there instead (the half copies of the weights).
  TaskProgram(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
              int64_t micro_batch, const std::map<ir::ValueId, ir::Tensor>& substitutes = {});

  //! Runs every kernel in order. `workspace` is the device's kernel scratch. With `rounding`, each
  //! float result is rounded to the half compute type right after its kernel (stochastic rounding
  //! keyed by ctx.seed, the value and ctx.step); returns the elements that overflowed or were
  //! not finite.
  int64_t run(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding = nullptr) const;
  int64_t size() const { return static_cast<int64_t>(kernels_.size()); }

  //! Bytes of scratch the largest kernel of `nodes` asks for (OpDef::workspace).
  static size_t workspace_bytes(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes);

 private:
  struct Kernel {
    ir::ValueId value;
    const ir::Node* node;
    void (*forward)(const ir::KernelArgs&);
    uint32_t first_operand;
    uint32_t operand_count;
    ir::Tensor output;
  };
  std::vector<Kernel> kernels_;
  std::vector<ir::Tensor> operands_;
};

//! The compiled tasks of one stage and kind on one IPU: one program per distinct pattern of
//! buffer copies (micro-batch m uses program m % count()).
class TaskPrograms {
 public:
  TaskPrograms() = default;
  TaskPrograms(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
               int64_t micro_batches, const std::map<ir::ValueId, ir::Tensor>& substitutes = {});
  const TaskProgram& at(int64_t micro_batch) const {
    return programs_[static_cast<size_t>(micro_batch % static_cast<int64_t>(programs_.size()))];
  }
  bool empty() const { return programs_.empty(); }

 private:
  std::vector<TaskProgram> programs_;
};

}  // namespace iputrain::engine
