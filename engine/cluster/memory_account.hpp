// The memory account of one virtual IPU: what it holds while it runs, by the rule the planner's
// memory model uses (planner/memory_model.hpp), at the grain of single instructions. Fixed bytes
// (weights, optimizer state, accumulators, link and feed buffers) are held throughout. The arena
// (planner/buffer_assignment.hpp) is measured as the engine uses it: its high-water mark is the
// highest arena byte any life the IPU has begun occupies, and the bytes in use follow each life
// from the instruction that begins it to the last one that reads it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "planner/buffer_assignment.hpp"

namespace iputrain::engine {

//! Bytes held for good, by kind (measured from the engine's own allocations).
struct FixedBytes {
  int64_t weights = 0;
  int64_t optimizer_state = 0;
  int64_t accumulators = 0;
  int64_t io_buffers = 0;
  int64_t total() const { return weights + optimizer_state + accumulators + io_buffers; }
};

//! Per instruction of one IPU's program: arena bytes whose lives begin at it and end after it,
//! and the end of the highest life begun at it (0 if none). Read from the planner's sweep of the
//! arena (planner::arena_use), the one its memory model reads.
struct MemoryDeltas {
  std::vector<int64_t> acquire;
  std::vector<int64_t> release;
  std::vector<int64_t> top;
};

MemoryDeltas arena_deltas(const planner::Arena& arena, size_t instructions);

//! Current bytes in use and the peak of fixed bytes plus the arena's high-water mark; updated by
//! its worker only.
class MemoryGauge {
 public:
  void set_fixed(int64_t bytes) {
    fixed_ = bytes;
    current_ = bytes;
    peak_ = std::max(peak_, fixed_ + top_);
  }
  void acquire(int64_t bytes, int64_t top) {
    current_ += bytes;
    top_ = std::max(top_, top);
    peak_ = std::max(peak_, fixed_ + top_);
  }
  void release(int64_t bytes) { current_ -= bytes; }
  int64_t current() const { return current_; }
  int64_t peak() const { return peak_; }

 private:
  int64_t fixed_ = 0;
  int64_t top_ = 0;
  int64_t current_ = 0;
  int64_t peak_ = 0;
};

}  // namespace iputrain::engine
