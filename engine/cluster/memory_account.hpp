// The memory account of one virtual IPU: what it holds while it runs, by the rule the planner's
// memory model uses (planner/memory_model.hpp) but at the grain of single instructions instead of
// timesteps. Fixed bytes (weights, optimizer state, accumulators, one copy of every in-task
// value, link and feed buffers) are held throughout; a Carried value's copy for micro-batch m is
// acquired just before the instruction that makes it (a task, Recv or Infeed) and released just
// after the last instruction that reads it (a recomputed value lives twice).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "planner/plan.hpp"

namespace iputrain::engine {

//! Bytes held for good, by kind (measured from the engine's own allocations).
struct FixedBytes {
  int64_t weights = 0;
  int64_t optimizer_state = 0;
  int64_t accumulators = 0;
  int64_t transient = 0;
  int64_t io_buffers = 0;
  int64_t total() const { return weights + optimizer_state + accumulators + transient + io_buffers; }
};

//! Per instruction of one IPU's program: Carried bytes acquired before it and released after it.
struct MemoryDeltas {
  std::vector<int64_t> acquire;
  std::vector<int64_t> release;
};

MemoryDeltas carried_deltas(const planner::Plan& plan, int32_t ipu);

//! Current and peak bytes of one IPU; updated by its worker only.
class MemoryGauge {
 public:
  void set_fixed(int64_t bytes) {
    current_ = bytes;
    peak_ = std::max(peak_, current_);
  }
  void acquire(int64_t bytes) {
    current_ += bytes;
    peak_ = std::max(peak_, current_);
  }
  void release(int64_t bytes) { current_ -= bytes; }
  int64_t current() const { return current_; }
  int64_t peak() const { return peak_; }

 private:
  int64_t current_ = 0;
  int64_t peak_ = 0;
};

}  // namespace iputrain::engine
