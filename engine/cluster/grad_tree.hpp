// Gradient accumulation in the order of the execution contract (planner/device_program.hpp).
//
// Canonical order: the N global micro-batches of an update are the leaves of a left-complete
// binary tree, so the summed gradient is the same bits whatever the split of the leaves over
// replicas and accumulation steps. The tree is built like a binary counter: leaves are pushed in
// order and two neighbouring blocks of equal size merge (left + right) when the left one starts at
// a multiple of twice their size, i.e. when together they form a node of the tree. What is left on
// the stack at the end are complete subtrees of decreasing size; folding them right to left gives
// the root. A replica pushes only its own leaves; the cross-replica reduction pushes the replicas'
// stacks one after the other into the same counter, which merges exactly the nodes a single device
// would have merged.
//
// Sequential order: the same counter with another merge rule, "a block absorbs the block right
// after it". Every leaf is added at once to the replica's one running sum, and the reduction adds
// the replicas' sums left to right. One buffer per parameter, but the bits depend on how the
// leaves are split over replicas (not on the schedule or the stages' placement).
//
// Partial sums are kept in f32, or rounded to f16 after every addition when the accumulation
// dtype is f16 (then every plan rounds at the same nodes, too).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/types.hpp"
#include "planner/device_program.hpp"

namespace iputrain::engine {

//! A block of consecutive leaves summed into one partial sum: leaves first .. first + size - 1.
struct TreeBlock {
  int64_t first = 0;
  int64_t size = 1;
};

//! True when `left` and `right` are the two children of one node of the canonical tree.
inline bool siblings(const TreeBlock& left, const TreeBlock& right) {
  return left.size == right.size && left.first + left.size == right.first && left.first % (2 * left.size) == 0;
}

//! True when `left` and `right` become one partial sum as soon as both exist: siblings in the
//! canonical order, neighbours in the sequential order.
inline bool merges(GradientAccumulationOrder order, const TreeBlock& left, const TreeBlock& right) {
  if (order == GradientAccumulationOrder::Sequential) {
    return left.first + left.size == right.first;
  }
  return siblings(left, right);
}

//! One parameter's accumulators on one replica: `slots` arrays of `size` elements of `dtype`
//! (F32 or F16), owned by the caller, as many as planner::accumulator_buffers() gives for `order`.
//! The first array may be the gradient buffer itself (f32, one leaf per replica): pushing that
//! buffer then copies nothing.
class GradTree {
 public:
  GradTree(DType dtype, int64_t size, std::vector<void*> slots,
           GradientAccumulationOrder order = GradientAccumulationOrder::Canonical);

  //! Forgets the partial sums (start of an update).
  void clear() { stack_.clear(); }
  //! Adds leaf `leaf` (global micro-batch index) with gradient `grad` (f32, `size` elements).
  //! Leaves come in order; one that needs more partial sums than there are slots is an Internal error.
  void push(int64_t leaf, const float* grad);
  //! Folds the stack into the root, left in slot 0 (every leaf was pushed here: one replica).
  void fold();

  const std::vector<TreeBlock>& blocks() const { return stack_; }
  //! Another instance's replica: its tree's partial sums as they came over the link.
  void set_blocks(std::vector<TreeBlock> blocks) { stack_ = std::move(blocks); }
  size_t slot_count() const { return slots_.size(); }
  DType dtype() const { return dtype_; }
  GradientAccumulationOrder order() const { return order_; }
  int64_t size() const { return size_; }
  void* slot(size_t i) const { return slots_.at(i); }
  //! The root after fold() or a reduction, as f32 in `out` (`size` elements), or only elements
  //! [lo, hi) of it (a replica's block after a reduce-scatter), at out[lo .. hi).
  void root_f32(float* out) const { root_f32(out, 0, size_); }
  void root_f32(float* out, int64_t lo, int64_t hi) const;
  //! Adds the root, widened to f32, to `out` (`size` elements, or elements [lo, hi)): the next
  //! part of a gradient kept in parts (planner/autodiff.hpp).
  void add_root_f32(float* out) const { add_root_f32(out, 0, size_); }
  void add_root_f32(float* out, int64_t lo, int64_t hi) const;
  //! Slot 0 when it holds f32 values (no conversion needed), else null.
  const float* root_if_f32() const { return dtype_ == DType::F32 ? static_cast<const float*>(slots_[0]) : nullptr; }

 private:
  DType dtype_;
  GradientAccumulationOrder order_;
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

//! Continues the trees' order over the stacks of `trees` (one per replica, in replica order, all
//! of one order and dtype) for elements [lo, hi) and writes the root into slot 0 of every tree,
//! or of `only` when given (a reduce-scatter: the replica that reduces a block keeps it).
//! Replicas reduce disjoint ranges of the same parameter concurrently: each reads every tree's
//! stack and writes only its range. Allocates nothing.
void reduce_slice(std::span<GradTree* const> trees, int64_t lo, int64_t hi, ReduceScratch& scratch,
                  GradTree* only = nullptr);

}  // namespace iputrain::engine
