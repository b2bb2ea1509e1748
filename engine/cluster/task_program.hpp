// One task instruction (a stage's forward, recompute or backward nodes for one micro-batch)
// compiled against the arena copies it uses on one virtual IPU: a flat list of kernel calls with
// their operand views prepared once, so running it neither allocates nor looks anything up.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/half_round.hpp"
#include "core/ir/graph.hpp"
#include "engine/cluster/device_memory.hpp"
#include "engine/cluster/grad_tree.hpp"
#include "engine/fp_trap.hpp"
#include "planner/device_program.hpp"

namespace iputrain::engine {

//! A weight gradient a task adds to its accumulator right after its kernel has run (the buffer
//! assignment lets the next kernels reuse the gradient's memory).
struct GradPush {
  ir::ValueId grad;
  GradTree* tree;
  int64_t leaf;  //!< global micro-batch index within the update: replica * A + m
};

//! A stateful layer's state_write: its result is copied into the state's buffer (and the half copy
//! the passes read, if any) right after its kernel (planner/recurrent_states.hpp).
struct StateSink {
  ir::ValueId value;
  float* state;
  float* copy = nullptr;
};

class TaskProgram {
 public:
  //! Compiles `nodes` (in order) reading and writing the copies instruction `instr` of the IPU's
  //! program uses for micro-batch `micro_batch` in `memory`. Leaves (inputs, params, constants)
  //! have no kernel and are skipped. Operands found in `substitutes` are read from there instead
  //! (the half copies of the weights). Each of `pushes` and `sinks` happens right after its kernel.
  //! Each of `fused`, the plan's pairs of these nodes (StagePrograms::fused), runs as one kernel.
  TaskProgram(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
              int64_t micro_batch, int32_t instr, const std::map<ir::ValueId, ir::Tensor>& substitutes = {},
              const std::vector<GradPush>& pushes = {}, const std::vector<StateSink>& sinks = {},
              const std::vector<planner::FusedPair>& fused = {});

  //! Runs every kernel in order. `workspace` is the device's kernel scratch. With `rounding`, each
  //! float result is rounded to the half compute type right after its kernel (stochastic rounding
  //! keyed by ctx.seed, the value and ctx.step); returns the elements that overflowed or were
  //! not finite. With `traps`, each kernel's result is checked (before rounding) for a NaN or an
  //! infinity it made, and the first one of a trapped class throws (engine/fp_trap.hpp).
  int64_t run(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding = nullptr,
              const FpTrapSite* traps = nullptr) const;
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
    GradTree* tree = nullptr;  // non-null: push the output as leaf `leaf` after the kernel
    int64_t leaf = 0;
    const StateSink* sink = nullptr;  // non-null: copy the output into a state after the kernel
    //! The head of a pair the plan fuses (a bias add; the next kernel is the relu of its sum):
    //! both run as one bias_relu (core/ops/bias_relu.hpp) when nothing has to happen between them
    //! (no rounding, no traps). False where the run-time guard declined the plan's pair.
    bool bias_relu_with_next = false;
  };
  void fuse(const std::vector<planner::FusedPair>& fused);
  // Instantiated twice so that a run without traps does no per-kernel work for them.
  template <bool kTrap>
  int64_t run_kernels(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding,
                      const FpTrapSite* traps) const;

  const ir::Graph* graph_;
  std::vector<Kernel> kernels_;
  std::vector<ir::Tensor> operands_;
  std::vector<StateSink> sinks_;
};

}  // namespace iputrain::engine
