// The memory of one virtual IPU of one replica: every buffer of its row of the plan's buffer
// table (planner/device_program.hpp), allocated once in one aligned block. Parameters and
// in-task values have one copy; a Carried value has `slots` copies and micro-batch m uses copy
// m % slots, so micro-batches in flight at the same time never share a buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ir/graph.hpp"
#include "planner/device_program.hpp"

namespace iputrain::engine {

class DeviceMemory {
 public:
  //! Allocates `buffers` (zeroed) and fills the constants among them.
  DeviceMemory(int32_t id, const ir::Graph& graph, const std::vector<planner::Buffer>& buffers);

  int32_t id() const { return id_; }
  bool has(ir::ValueId v) const;
  int32_t slots(ir::ValueId v) const;
  //! The copy of `v` that micro-batch `micro_batch` uses; throws Error(Internal) if `v` has no buffer.
  ir::Tensor tensor(ir::ValueId v, int64_t micro_batch = 0) const;
  //! Bytes of the block (all buffers and slots, with alignment padding).
  int64_t bytes_allocated() const { return static_cast<int64_t>(bytes_); }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  struct Place {
    int64_t offset = -1;
    int64_t stride = 0;
    int32_t slots = 0;
  };

  int32_t id_;
  const ir::Graph& graph_;
  std::vector<Place> place_;  // per value id
  std::unique_ptr<std::byte, Free> memory_;
  size_t bytes_ = 0;
};

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

}  // namespace iputrain::engine
