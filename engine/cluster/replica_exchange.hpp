// The model's collective ops meet here (ir::ReplicaLink): the copies of one IPU on the run's
// replicas post their operand, every one gets all of them in replica order, and each kernel adds
// them up in that order itself, so the result depends on the values only, never on the threads or
// processes. With several instances (mpirun) the first local replica of the IPU trades its
// instance's operands with the others over the IPU's channel (engine/distributed/instance_link.hpp),
// in the program's order like the gradient reductions on that channel.
//
// Two staging generations alternate, as in Rendezvous: a replica that has read one exchange's
// operands may post the next one's while a slower one still reads, but can get no further ahead.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/ops/op.hpp"
#include "engine/cluster/rendezvous.hpp"

namespace iputrain::engine {

struct ClusterShared;

//! What the local replicas of one IPU share: the meeting point and the staging of both generations.
struct ExchangeStaging {
  //! `bytes`: the largest operand a collective of the plan exchanges.
  ExchangeStaging(int32_t local_replicas, int32_t replicas, size_t bytes);
  Rendezvous meet;
  std::array<std::vector<std::byte>, 2> staging;  //!< [replica x operand bytes], per generation
};

//! The largest operand any collective of the plan exchanges (0: the model has none).
size_t largest_exchange(const planner::Plan& plan);

class ReplicaExchange final : public ir::ReplicaLink {
 public:
  //! Worker `worker` (the stall detector's index) of replica `replica` on IPU `ipu`.
  ReplicaExchange(ClusterShared& shared, int32_t replica, int32_t ipu, int32_t worker);
  int32_t replica() const override { return replica_; }
  int32_t replicas() const override;
  std::span<const std::byte* const> exchange(const void* data, size_t bytes) override;
  //! The instruction running (named in a deadlock report).
  void set_at(const planner::Instr* at) { at_ = at; }

 private:
  ClusterShared& shared_;
  int32_t replica_;
  int32_t ipu_;
  int32_t worker_;
  const planner::Instr* at_ = nullptr;
  int64_t generation_ = 0;
  std::vector<const std::byte*> view_;
};

}  // namespace iputrain::engine
