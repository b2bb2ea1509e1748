// Replicated tensor sharding (pipeline.replicated_optimizer_state_sharding and
// pipeline.replicated_weight_sharding): how the elements of one tensor are split over the R
// replicas, the one rule the memory model counts and the engine allocates and updates.
//
// A tensor of n elements is cut into grains of kShardGrain elements (the last grain may be
// shorter). Each replica takes q = ceil(grains / R) consecutive grains: replica r holds elements
// [r q G, (r + 1) q G) clipped to n, so the last replicas' blocks may be shorter or empty. Every
// replica reserves the largest block, min(n, q G) elements, for each state slot (the padding a
// real device would also reserve so that the replicas stay alike).
//
// Blocks start on a grain, 256 bytes of f32: the element-wise kernels see the same alignment in a
// block as in the whole tensor, and the sums of squares that clipping and LAMB take per grain
// (engine/optim/tensor_sums.hpp) are the same numbers whichever replica computes them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Elements per grain of a sharded tensor.
inline constexpr int64_t kShardGrain = 64;

//! Grains of a tensor of `n` elements.
inline int64_t shard_grains(int64_t n) { return (n + kShardGrain - 1) / kShardGrain; }

//! Elements each replica reserves for its block of an `n`-element tensor split over `replicas`.
inline int64_t shard_capacity(int64_t n, int32_t replicas) {
  if (replicas <= 1) {
    return n;
  }
  const int64_t per = (shard_grains(n) + replicas - 1) / replicas;
  return std::min(n, per * kShardGrain);
}

//! Elements [begin, end) of an `n`-element tensor that `replica` of `replicas` holds.
struct ShardRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
};

inline ShardRange shard_range(int64_t n, int32_t replicas, int32_t replica) {
  if (replicas <= 1) {
    return {0, n};
  }
  const int64_t block = ((shard_grains(n) + replicas - 1) / replicas) * kShardGrain;
  return {std::min(n, replica * block), std::min(n, (replica + 1) * block)};
}

//! Each replica keeps and updates one block of every trained tensor's optimizer state (R > 1; on
//! under replicated_optimizer_state_sharding and under replicated_weight_sharding).
bool state_sharded(const Plan& plan);
//! Each replica keeps only its block of every trained weight between uses; a task gathers the
//! full weights it reads into the IPU's gather buffer first (replicated_weight_sharding, R > 1).
bool weights_sharded(const Plan& plan);

//! Whether parameter `p` is trained (it has a gradient): what sharding splits.
bool sharded_param(const Plan& plan, ir::ValueId p);

//! The trained weights a Forward, Recompute or Backward task of `stage` reads, in the graph's
//! parameter order: what weight sharding gathers before the task.
std::vector<ir::ValueId> task_weights(const Plan& plan, int32_t stage, InstrKind kind);

//! Device bytes one full copy of `p` takes in the gather buffer: what the passes read (the compute type).
int64_t gathered_bytes(const Plan& plan, ir::ValueId p);
//! Bytes of the gathered weights of one task (0 unless the weights are sharded).
int64_t task_gather_bytes(const Plan& plan, int32_t stage, InstrKind kind);
//! IPU `ipu`'s gather buffer: the most bytes one of its tasks gathers (0 unless weights are sharded).
int64_t gather_buffer_bytes(const Plan& plan, int32_t ipu);

//! Device bytes parameter `p` keeps between uses: device_weight_bytes(), or under weight sharding
//! for a trained weight the replica's reserved block of it (shard_capacity()) at the same bytes
//! per element.
//! 0 when those blocks are offloaded (pipeline.offload_weights): they stay in remote memory.
int64_t resident_weight_bytes(const Plan& plan, ir::ValueId p);
//! Device bytes of the block of `p` kept in remote memory (0 unless offloaded).
int64_t remote_weight_bytes(const Plan& plan, ir::ValueId p);

}  // namespace iputrain::planner
