// The shard rule of replicated tensor sharding (pipeline.replicated_optimizer_state_sharding and
// pipeline.replicated_weight_sharding): how the elements of one tensor are split over the R
// replicas, the one rule the memory model counts, the engine allocates and the optimizers update
// (planner/sharding.hpp has what the planner derives from it).
//
// A tensor of n elements is cut into grains of kShardGrain elements (the last grain may be
// shorter). Each replica takes q = ceil(grains / R) consecutive grains: replica r holds elements
// [r q G, (r + 1) q G) clipped to n, so the last replicas' blocks may be shorter or empty. Every
// replica reserves the largest block, min(n, q G) elements, for each state slot (the padding a
// real device would also reserve so that the replicas stay alike).
//
// Blocks start on a grain, 256 bytes of f32: the element-wise kernels see the same alignment in a
// block as in the whole tensor, and the sums of squares that clipping, LAMB and LARS take per grain
// (core/optim/tensor_sums.hpp) are the same numbers whichever replica computes them.
#pragma once

#include <algorithm>
#include <cstdint>

namespace iputrain {

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

}  // namespace iputrain
