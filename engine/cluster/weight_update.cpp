// The WeightUpdate's setup: its parameters' accumulation trees and optimizer state, the moving
// statistics, the half copies of the weights, and what program compilation reads of them (the
// update itself: weight_update_step.cpp; sharded state and weights: weight_sharding.cpp).
#include "engine/cluster/weight_update.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/optim/tensor_sums.hpp"
#include "core/optim_table.hpp"
#include "engine/cluster/worker.hpp"
#include "iputrain/error.hpp"
#include "planner/host_tables.hpp"
#include "planner/memory_model.hpp"
#include "planner/moving_statistics.hpp"
#include "planner/precision.hpp"

namespace iputrain::engine {

WeightUpdate::WeightUpdate(ClusterShared& shared, int32_t replica, int32_t ipu, const DeviceMemory& memory,
                           const WorkerObserver& observer, const std::optional<HalfRounding>& rounding)
    : shared_(shared),
      plan_(shared.plan),
      replica_(replica),
      ipu_(ipu),
      index_(shared.local(replica) * shared.ipus + ipu),
      local_(shared.local(replica)),
      memory_(memory),
      observer_(observer),
      rounding_(rounding),
      loss_scale_(initial_loss_scale(shared.settings)) {
  const ir::Graph& g = plan_.graph;
  if (g.loss_seed != ir::kNoValue && memory_.has(g.loss_seed)) {
    loss_seed_ = memory_.tensor(g.loss_seed);
  }
  build_params();
  build_statistics();
  build_weight_copies();
}

namespace {

// The optimizer reads the f32 root of a lone f32 tree, or a lone gradient buffer, in place; f16
// roots are widened and several parts summed into a host buffer first.
bool summed(size_t parts, int32_t depth, DType acc) { return parts > 1 || (depth > 0 && acc == DType::F16); }

size_t aligned_floats(int64_t n) { return buffer_aligned(static_cast<size_t>(n) * sizeof(float)); }

}  // namespace

void WeightUpdate::build_params() {
  const ir::Graph& g = plan_.graph;
  // What the memory model counts; 0: the optimizer reads the gradient buffer, nothing accumulates.
  const int32_t depth = planner::accumulator_buffers(plan_);
  const DType acc = planner::accumulation_dtype(plan_.settings);
  if (acc != DType::F16 && acc != DType::F32) {
    throw Error(ErrorKind::Internal, fmt::format("gradient accumulation in {} is not implemented", dtype_name(acc)));
  }
  optimizer_ = make_optimizer(shared_.settings.optimizer);
  // Sharded state: this replica's block of each tensor, and the largest block it reserves.
  const int32_t shards = shared_.shard_state ? shared_.replicas : 1;
  std::vector<size_t> updated;
  int64_t state_floats = 0;   // what the account counts (no alignment padding)
  int64_t part_elements = 0;  // once per gradient part (what the accumulators hold)
  size_t acc_bytes = 0, state_bytes = 0, widened_bytes = 0, shard_bytes = 0;
  for (size_t k = 0; k < g.params.size(); ++k) {
    if (plan_.placement.param_ipu[k] != ipu_ || k >= plan_.grads.size() || plan_.grads[k].empty()) {
      continue;
    }
    updated.push_back(k);
    const int64_t n = g.type(g.params[k]).numel();
    const size_t parts = plan_.grads[k].size();
    const int64_t state = planner::state_floats_held(plan_, g.params[k]);
    // A host table's state and accumulators are the host's memory: not in the IPU's account.
    const bool host = planner::is_host_table(g.node(g.params[k]));
    state_floats += host ? 0 : state;
    part_elements += host ? 0 : n * static_cast<int64_t>(parts);
    acc_bytes += parts * static_cast<size_t>(depth) * buffer_aligned(static_cast<size_t>(n) * dtype_size(acc));
    state_bytes += aligned_floats(state);
    widened_bytes += summed(parts, depth, acc) ? aligned_floats(n) : 0;
    shard_bytes += shared_.shard_weights ? aligned_floats(planner::shard_capacity(n, shards)) : 0;
  }
  shards_ = AlignedBlock(shard_bytes);
  accumulators_ = AlignedBlock(acc_bytes);
  optimizer_state_ = AlignedBlock(state_bytes);
  widened_roots_ = AlignedBlock(widened_bytes);
  accumulator_bytes_ =
      plan_.decided.offload_accumulators ? 0 : depth * part_elements * static_cast<int64_t>(dtype_size(acc));
  state_bytes_ = plan_.decided.offload_optimizer_state
                     ? 0
                     : planner::optimizer_state_bytes(1, state_floats, planner::state_dtype_of(plan_.settings));
  Cursors next{accumulators_.data(), optimizer_state_.data(), widened_roots_.data(), shards_.data(), 0};
  for (size_t k : updated) {
    add_param(k, depth, acc, shards, next);
  }
  reduce_scratch_ = std::make_unique<ReduceScratch>(static_cast<int64_t>(shared_.replicas) * std::max(1, depth));
  optimizer_->reserve(slots_);
  clip_grains_.assign(static_cast<size_t>(next.grains), 0.0);
  clip_totals_.assign(slots_.size(), 0.0);
  if (shared_.shard_state) {
    sums_ = std::make_unique<ShardSums>(*this);
    auto& table = shared_.grain_sums.at(static_cast<size_t>(ipu_));
    table.resize(std::max(table.size(), static_cast<size_t>(2 * next.grains)));  // LAMB: two quantities
  } else {
    sums_ = std::make_unique<LocalSums>();
  }
}

void WeightUpdate::add_param(size_t k, int32_t depth, DType acc, int32_t shards, Cursors& next) {
  const ir::Graph& g = plan_.graph;
  const ir::ValueId p = g.params[k];
  const int64_t n = g.type(p).numel();
  const auto last = static_cast<int32_t>(plan_.programs.ipus[ipu_].size()) - 1;
  ParamState ps;
  ps.param = p;
  ps.index = static_cast<int64_t>(k);
  ps.parts = plan_.grads[k];
  ps.block = planner::shard_range(n, shards, replica_);
  ps.grain_base = next.grains;
  next.grains += planner::shard_grains(n);
  for (ir::ValueId part : ps.parts) {
    if (depth == 0) {
      // Without accumulators the optimizer reads micro-batch 0's gradient, kept to the cycle's end.
      ps.unaccumulated.push_back(memory_.tensor(part, 0, last).f32());
      continue;
    }
    std::vector<void*> slots;
    for (int32_t d = 0; d < depth; ++d) {
      slots.push_back(next.accumulators);
      next.accumulators += buffer_aligned(static_cast<size_t>(n) * dtype_size(acc));
    }
    ps.trees.push_back(std::make_unique<GradTree>(acc, n, std::move(slots),
                                                  plan_.settings.plain.pipeline_gradient_accumulation_order));
  }
  const float* grad = nullptr;
  if (summed(ps.parts.size(), depth, acc)) {
    ps.sum_f32 = reinterpret_cast<float*>(next.widened);
    next.widened += aligned_floats(n);
    grad = ps.sum_f32;
  } else {
    grad = depth == 0 ? ps.unaccumulated.front() : ps.trees.front()->root_if_f32();
  }
  auto* state = reinterpret_cast<float*>(next.state);
  next.state += aligned_floats(planner::state_floats_held(plan_, p));
  // Sharded state is element-wise: a block of each copy of the weight, one after the other.
  for (const Shape& array : optimizer_state_shapes(shared_.settings.optimizer, g.type(p).shape)) {
    ps.state_arrays.push_back(shared_.shard_state ? ps.block.size() : numel(array));
    ps.state_floats += ps.state_arrays.back();
  }
  const int64_t lo = ps.block.begin;
  float* weights = memory_.tensor(p).f32() + lo;
  if (shared_.shard_weights) {
    // The update works on the shard; the weight's buffer only receives gathers.
    ps.shard = reinterpret_cast<float*>(next.shard);
    next.shard += aligned_floats(planner::shard_capacity(n, shards));
    weights = ps.shard;
  }
  ps.slot.push_back(ParamSlot{weights, grad + lo, state, ps.block.size(), 0, g.type(p).shape});
  optimizer_->init_state(ps.slot.front());
  slots_.push_back(ps.slot.front());
  params_.push_back(std::move(ps));
}

void WeightUpdate::build_statistics() {
  const ir::Graph& g = plan_.graph;
  std::vector<const planner::MovingStatistic*> held;
  size_t bytes = 0;
  for (const planner::MovingStatistic& m : plan_.moving_statistics) {
    if (memory_.has(m.state)) {
      held.push_back(&m);
      bytes += static_cast<size_t>(planner::statistic_buffers(plan_)) *
               buffer_aligned(static_cast<size_t>(g.type(m.state).numel()) * sizeof(float));
    }
  }
  if (held.empty()) {
    return;
  }
  statistic_sums_ = AlignedBlock(bytes);
  std::byte* next = statistic_sums_.data();
  for (const planner::MovingStatistic* m : held) {
    const int64_t n = g.type(m->state).numel();
    std::vector<void*> slots;
    for (int32_t d = 0; d < planner::statistic_buffers(plan_); ++d) {
      slots.push_back(next);
      next += buffer_aligned(static_cast<size_t>(n) * sizeof(float));
    }
    // Always the canonical tree, so that every split of the micro-batches sums the same bits.
    statistics_.push_back({m->state, m->statistic, m->momentum, memory_.tensor(m->state).f32(),
                           std::make_unique<GradTree>(DType::F32, n, std::move(slots))});
  }
  statistic_scratch_ =
      std::make_unique<ReduceScratch>(static_cast<int64_t>(shared_.replicas) * planner::statistic_buffers(plan_));
}

void WeightUpdate::publish_trees() {
  auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
  for (StatisticState& st : statistics_) {
    auto& list = trees[st.statistic];
    list.resize(static_cast<size_t>(shared_.replicas), nullptr);
    list[static_cast<size_t>(replica_)] = st.tree.get();
  }
  for (ParamState& ps : params_) {
    auto& weights = shared_.replica_weights[static_cast<size_t>(ipu_)][ps.param];
    weights.resize(static_cast<size_t>(shared_.replicas), nullptr);
    weights[static_cast<size_t>(replica_)] = ps.shard != nullptr ? ps.shard : memory_.tensor(ps.param).f32();
    for (size_t j = 0; j < ps.trees.size(); ++j) {
      auto& list = trees[ps.parts[j]];
      list.resize(static_cast<size_t>(shared_.replicas), nullptr);
      list[static_cast<size_t>(replica_)] = ps.trees[j].get();
    }
  }
}

void WeightUpdate::build_weight_copies() {
  if (!rounding_) {
    return;
  }
  const ir::Graph& g = plan_.graph;
  std::vector<ir::ValueId> params;
  size_t bytes = 0;
  for (const planner::Buffer& b : plan_.programs.buffers[static_cast<size_t>(ipu_)]) {
    if (b.cls == planner::BufferClass::Param || b.cls == planner::BufferClass::HostTable) {
      params.push_back(b.value);
      bytes += buffer_aligned(static_cast<size_t>(g.type(b.value).numel()) * sizeof(float));
    }
  }
  weight_copy_memory_ = AlignedBlock(bytes);
  std::byte* next = weight_copy_memory_.data();
  for (ir::ValueId p : params) {
    const ir::Tensor master = memory_.tensor(p);
    auto* copy = reinterpret_cast<float*>(next);
    next += buffer_aligned(static_cast<size_t>(master.numel()) * sizeof(float));
    weight_copies_.push_back({p, master.f32(), copy, master.numel()});
  }
  if (!shared_.shard_weights) {
    return;
  }
  // A sharded weight's copy is made where the weight is gathered, not at the update's start.
  for (ParamState& ps : params_) {
    const float* master = memory_.tensor(ps.param).f32();
    for (size_t k = 0; k < weight_copies_.size(); ++k) {
      if (weight_copies_[k].master == master) {
        ps.copy = static_cast<int32_t>(k);
        weight_copies_[k].gathered = true;
      }
    }
  }
}

std::vector<WeightUpdate::Accumulator> WeightUpdate::accumulators() const {
  std::vector<Accumulator> out;
  for (const ParamState& ps : params_) {
    for (size_t j = 0; j < ps.trees.size(); ++j) {
      out.push_back({ps.param, ps.parts[j], ps.trees[j].get(), planner::is_host_table(plan_.graph.node(ps.param))});
    }
  }
  return out;
}

std::vector<WeightUpdate::StatisticTree> WeightUpdate::statistics() const {
  std::vector<StatisticTree> out;
  for (const StatisticState& st : statistics_) {
    out.push_back({st.state, st.statistic, st.tree.get()});
  }
  return out;
}

std::map<ir::ValueId, ir::Tensor> WeightUpdate::weight_copies() const {
  std::map<ir::ValueId, ir::Tensor> substitutes;
  for (const WeightCopy& w : weight_copies_) {
    substitutes.emplace(w.param, ir::Tensor{memory_.tensor(w.param).type, w.copy});
  }
  return substitutes;
}

std::optional<size_t> WeightUpdate::find(ir::ValueId p) const {
  for (size_t k = 0; k < params_.size(); ++k) {
    if (params_[k].param == p) {
      return k;
    }
  }
  return std::nullopt;
}

}  // namespace iputrain::engine
