// What the collective ops (cross_replica_sum, all_gather, reduce_scatter, all_to_all) share: the
// replica group a node's `group` attribute names, and its members' operands exchanged through
// ExecContext::replicas. Groups are consecutive replicas: with groups of G, replica r is member
// r % G of group r / G (the seed's replica groups). Without a link the run has one replica.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

//! The group's members' copies of one operand, as the kernel of one node sees them.
class GroupOperands {
 public:
  //! Exchanges `x` with the other replicas of the node's group (`group` 0: all of the run's).
  GroupOperands(const KernelArgs& args, const Tensor& x, int64_t group);
  int32_t size() const { return size_; }    //!< G
  int32_t index() const { return index_; }  //!< this replica within its group
  //! Member k's copy of the operand (k = index() is this replica's own).
  const std::byte* member(int32_t k) const { return all_.empty() ? self_ : all_[static_cast<size_t>(first_ + k)]; }
  //! Element i of the f32 operand summed over the members: in double, from member 0's value (one
  //! member passes it unchanged, -0 included) in replica order, so the bits depend on the group's
  //! values only. The one sum the collectives' kernels use.
  double sum_f32(int64_t i) const {
    double acc = reinterpret_cast<const float*>(member(0))[i];
    for (int32_t k = 1; k < size_; ++k) {
      acc += static_cast<double>(reinterpret_cast<const float*>(member(k))[i]);
    }
    return acc;
  }

 private:
  const std::byte* self_;
  std::span<const std::byte* const> all_;
  int32_t size_ = 1;
  int32_t first_ = 0;
  int32_t index_ = 0;
};

//! The group size a node's `group` attribute asks for (0: all replicas), checked against the run's
//! `replicas`: 0 when it does not divide them (the planner refuses such a plan, planner/collectives.hpp).
int64_t group_size(int64_t group, int64_t replicas);

//! Element bytes of `t`.
inline size_t element_bytes(const TensorType& t) { return dtype_size(t.dtype); }

}  // namespace iputrain::ir
