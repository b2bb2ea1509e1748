// The memory of one virtual IPU of one replica: its parameters (one copy each) and its arena, the
// block where every other value lives at the offset the planner's buffer assignment gave each of
// its lives (planner/buffer_assignment.hpp). Offsets are the plan's device offsets times the
// plan's host scale, since the host keeps every float in f32. A host table (planner/host_tables.hpp)
// and its gradient are not the IPU's: they live in a block of host memory beside it, which
// bytes_allocated() leaves out; tensor() finds them as it finds the parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ir/graph.hpp"
#include "engine/cluster/alignment.hpp"
#include "planner/device_program.hpp"

namespace iputrain::engine {

//! 64-byte aligned, zeroed heap memory (buffers that live outside the buffer table: accumulators,
//! optimizer state, kernel scratch).
class AlignedBlock {
 public:
  AlignedBlock() = default;
  explicit AlignedBlock(size_t bytes);
  std::byte* data() const { return memory_.get(); }
  size_t size() const { return bytes_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> memory_;
  size_t bytes_ = 0;
};

class DeviceMemory {
 public:
  //! Allocates the parameters among `buffers` and the arena (zeroed) and fills the constants.
  DeviceMemory(int32_t id, const ir::Graph& graph, const std::vector<planner::Buffer>& buffers,
               const planner::Arena& arena, int64_t host_scale);

  int32_t id() const { return id_; }
  bool has(ir::ValueId v) const;
  //! A parameter, or a value that lives for the whole cycle (a constant).
  ir::Tensor tensor(ir::ValueId v) const;
  //! The copy of `v` instruction `instr` of the program uses for micro-batch `micro_batch`;
  //! throws Error(Internal) if there is none.
  ir::Tensor tensor(ir::ValueId v, int64_t micro_batch, int32_t instr) const;
  //! Bytes of the parameters' block and the arena (with alignment padding), host storage.
  int64_t bytes_allocated() const { return static_cast<int64_t>(param_bytes_ + arena_bytes_); }
  const planner::Arena& arena() const { return arena_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };

  ir::Tensor life_tensor(int32_t life) const;

  int32_t id_;
  const ir::Graph& graph_;
  const planner::Arena& arena_;
  int64_t scale_;
  std::vector<int64_t> param_offset_;  // per value id, -1 if not a parameter here; -2 - k: host_ + k
  std::unique_ptr<std::byte, Free> params_;
  std::unique_ptr<std::byte, Free> arena_memory_;
  size_t param_bytes_ = 0;
  size_t arena_bytes_ = 0;
  AlignedBlock host_;  // host tables and their gradients: the host's memory, not the IPU's
};

}  // namespace iputrain::engine
