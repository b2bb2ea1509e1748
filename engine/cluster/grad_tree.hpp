// Gradient accumulation in the canonical pairwise tree of the execution contract
// (planner/device_program.hpp): the N global micro-batches of an update are the leaves of a
// left-complete binary tree, so the summed gradient is the same bits whatever the split of the
// leaves over replicas and accumulation steps.
//
// The tree is built like a binary counter: leaves are pushed in order and two neighbouring blocks
// of equal size merge (left + right) when the left one starts at a multiple of twice their size,
// i.e. when together they form a node of the tree. What is left on the stack at the end are
// complete subtrees of decreasing size; folding them right to left gives the root. A replica pushes
// only its own leaves; the cross-replica reduction pushes the replicas' stacks one after the other
// into the same counter, which merges exactly the nodes a single device would have merged.
//
// Partial sums are kept in f32, or rounded to f16 after every addition when the accumulation
// dtype is f16 (then every plan rounds at the same nodes, too).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/types.hpp"

namespace iputrain::engine {

//! A complete subtree: leaves first .. first + size - 1.
struct TreeBlock {
  int64_t first = 0;
  int64_t size = 1;
};

//! True when `left` and `right` are the two children of one node of the canonical tree.
inline bool siblings(const TreeBlock& left, const TreeBlock& right) {
  return left.size == right.size && left.first + left.size == right.first && left.first % (2 * left.size) == 0;
}

//! The blocks a stack holds after pushing leaves first .. first + count - 1 (the largest first).
std::vector<TreeBlock> stack_after(int64_t first, int64_t count);
//! The most blocks the stack holds at once while those leaves are pushed: the accumulator
//! buffers one parameter needs on one replica.
int32_t stack_depth(int64_t first, int64_t count);

//! One parameter's accumulators on one replica: `depth` arrays of `size` elements of `dtype`
//! (F32 or F16), owned by the caller. The first array may be the gradient buffer itself (f32,
//! one leaf per replica): pushing that buffer then copies nothing.
class GradTree {
 public:
  GradTree(DType dtype, int64_t size, std::vector<void*> slots);

  //! Forgets the partial sums (start of an update).
  void clear() { stack_.clear(); }
  //! Adds leaf `leaf` (global micro-batch index) with gradient `grad` (f32, `size` elements).
  void push(int64_t leaf, const float* grad);
  //! Folds the stack into the root, left in slot 0 (every leaf was pushed here: one replica).
  void fold();

  const std::vector<TreeBlock>& blocks() const { return stack_; }
  DType dtype() const { return dtype_; }
  int64_t size() const { return size_; }
  void* slot(size_t i) const { return slots_.at(i); }
  //! The root after fold() or a reduction, as f32 in `out` (`size` elements).
  void root_f32(float* out) const;
  //! Slot 0 when it holds f32 values (no conversion needed), else null.
  const float* root_if_f32() const { return dtype_ == DType::F32 ? static_cast<const float*>(slots_[0]) : nullptr; }

 private:
  DType dtype_;
  int64_t size_;
  std::vector<void*> slots_;
  std::vector<TreeBlock> stack_;
};

//! Working memory of reduce_slice(), sized once for the most blocks all replicas hold together.
struct ReduceScratch {
  explicit ReduceScratch(int64_t max_blocks_total);
  std::vector<float> values;
  std::vector<TreeBlock> blocks;
};

//! Continues the canonical tree over the stacks of `trees` (one per replica, in replica order) for
//! elements [lo, hi) and writes the root into slot 0 of every tree. Replicas reduce disjoint
//! ranges of the same parameter concurrently: each reads every tree's stack and writes only its
//! range. Allocates nothing.
void reduce_slice(std::span<GradTree* const> trees, int64_t lo, int64_t hi, ReduceScratch& scratch);

}  // namespace iputrain::engine
