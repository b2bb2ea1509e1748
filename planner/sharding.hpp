// Replicated tensor sharding in the plan: which tensors are sharded and what their blocks cost.
// The rule that splits a tensor over the replicas is core/shard_rule.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/shard_rule.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

using iputrain::kShardGrain;
using iputrain::shard_capacity;
using iputrain::shard_grains;
using iputrain::shard_range;
using iputrain::ShardRange;

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
