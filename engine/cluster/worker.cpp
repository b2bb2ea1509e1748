#include "engine/cluster/worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/cluster/moving_average_update.hpp"
#include "engine/optim/clipping.hpp"
#include "engine/optim/lr_schedule.hpp"
#include "engine/optim/tensor_sums.hpp"
#include "engine/cluster/instance_reduce.hpp"
#include "engine/scalar_mean.hpp"
#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/moving_statistics.hpp"
#include "planner/precision.hpp"
#include "planner/simulate.hpp"

namespace iputrain::engine {

using planner::InstrKind;

namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Kernel work, for busy time and utilisation: tasks, gradient sums and the weight update.
bool is_busy(InstrKind k) { return planner::is_task(k) || k == InstrKind::Accumulate || k == InstrKind::UpdateWeights; }

// The pipelined part of a cycle, where the bubble is measured: every instruction but the
// reduction and the update (a task's transfers and accumulation count as its work), as the
// planner's cycle model counts it (planner/simulate.cpp).
bool in_pipeline(InstrKind k) { return k != InstrKind::ReduceReplicas && k != InstrKind::UpdateWeights; }

}  // namespace

int32_t feeding_ipus(const planner::Plan& plan) {
  int32_t n = 0;
  for (const auto& program : plan.programs.ipus) {
    n += std::any_of(program.begin(), program.end(),
                     [](const planner::Instr& in) { return in.kind == InstrKind::Infeed; })
             ? 1
             : 0;
  }
  return n;
}

ClusterShared::ClusterShared(const planner::Plan& p, Settings c, int32_t instance)
    : plan(p),
      settings(std::move(c)),
      replicas(p.placement.replicas),
      first_replica(instance * p.placement.replicas_per_instance()),
      local_replicas(p.placement.replicas_per_instance()),
      ipus(p.placement.pipeline.ipus_per_replica),
      micro_batches(std::max<int64_t>(1, p.settings.accumulation_count)),
      micro_batch_size(p.micro_batch()),
      max_updates(std::max<int64_t>(1, settings.steps_per_execution) * std::max<int64_t>(1, settings.repeat_count)),
      prefetch_depth(settings.prefetch_depth),
      overflow_meet(std::make_unique<Rendezvous>(p.placement.replicas_per_instance() * p.placement.pipeline.ipus_per_replica)),
      recorder(p.num_ipus(), p.placement.replicas * feeding_ipus(p), false) {
  shard_state = planner::state_sharded(p);
  shard_weights = planner::weights_sharded(p);
  replica_weights.resize(static_cast<size_t>(ipus));
  grain_sums.resize(static_cast<size_t>(ipus));
  std::vector<int32_t> ids;
  for (const auto& replica : p.placement.physical) {
    ids.insert(ids.end(), replica.begin(), replica.end());
  }
  std::vector<int32_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t id : ids) {
    slot.push_back(static_cast<int32_t>(std::lower_bound(sorted.begin(), sorted.end(), id) - sorted.begin()));
  }
}

Mailbox& ClusterShared::mailbox(int32_t replica, int32_t from, int32_t to) const {
  const auto it = channel_index.find({from, to});
  if (it == channel_index.end()) {
    throw Error(ErrorKind::Internal, fmt::format("no channel from IPU {} to IPU {} in the plan", from, to));
  }
  return *mailboxes[static_cast<size_t>(local(replica)) * plan.programs.channels.size() + static_cast<size_t>(it->second)];
}

Worker::Worker(ClusterShared& shared, int32_t replica, int32_t ipu)
    : shared_(shared),
      plan_(shared.plan),
      replica_(replica),
      ipu_(ipu),
      index_(shared.local(replica) * shared.ipus + ipu),
      local_(shared.local(replica)),
      physical_(shared.plan.placement.physical.at(static_cast<size_t>(replica)).at(static_cast<size_t>(ipu))),
      memory_(physical_, shared.plan.graph, shared.plan.programs.buffers.at(static_cast<size_t>(ipu)),
              shared.plan.programs.arenas.at(static_cast<size_t>(ipu)), planner::host_scale(shared.plan)) {
  const ir::Graph& g = plan_.graph;
  const DType compute = plan_.settings.device.compute;
  if (planner::is_half(compute)) {
    const auto& fp = shared.settings.floating_point;
    rounding_ = HalfRounding{compute, fp.esr, fp.nanoo};
  }
  traps_ = fp_traps(shared.settings.floating_point);
  loss_scale_ = initial_loss_scale(shared.settings.optimizer);
  if (g.loss_seed != ir::kNoValue && memory_.has(g.loss_seed)) {
    loss_seed_ = memory_.tensor(g.loss_seed);
  }
  size_t workspace = 0;
  for (const planner::Instr& in : plan_.programs.ipus.at(static_cast<size_t>(ipu))) {
    if (planner::is_task(in.kind)) {
      const auto& nodes = plan_.programs.stages.at(static_cast<size_t>(in.stage)).nodes(in.kind);
      workspace = std::max(workspace, TaskProgram::workspace_bytes(g, nodes));
    }
  }
  if (workspace > 0) {
    workspace_ = AlignedBlock(workspace);
  }
  build_params();
  build_statistics();
  build_ops(build_weight_copies());
  build_gathers();
  records_.assign(static_cast<size_t>(shared.max_updates * shared.outputs), 0.0);
  windows_.assign(static_cast<size_t>(shared.max_updates), UpdateWindow{});

  // Counted as a device holding the compute type would hold them (planner/precision.hpp), the
  // rule the memory model uses; the host's own buffers stay f32.
  for (const planner::Buffer& b : plan_.programs.buffers[static_cast<size_t>(ipu)]) {
    if (b.cls == planner::BufferClass::Param) {
      fixed_.weights += planner::resident_weight_bytes(plan_, b.value) + planner::statistic_sum_bytes(plan_, b.value);
    }
  }
  fixed_.weights += planner::gather_buffer_bytes(plan_, ipu);
  for (const planner::Channel& c : plan_.programs.channels) {
    if (c.to == ipu) {
      const Mailbox& box = shared.mailbox(replica, c.from, c.to);
      fixed_.io_buffers += box.capacity() * planner::device_message_bytes(g, plan_.programs, c, compute);
    }
  }
  int64_t infeed = 0;
  int64_t outfeed = 0;
  for (const Op& op : ops_) {
    int64_t bytes = 0;
    if (op.kind == InstrKind::Infeed || op.kind == InstrKind::Outfeed) {
      for (ir::ValueId v : op.instr->values) {
        bytes += planner::device_bytes(g, v, compute);
      }
    }
    if (op.kind == InstrKind::Infeed) {
      infeed = std::max(infeed, bytes);
    } else if (op.kind == InstrKind::Outfeed) {
      outfeed = std::max(outfeed, bytes);
    }
  }
  fixed_.io_buffers += shared.prefetch_depth * infeed + outfeed;
  capacity_ = plan_.settings.device.memory_bytes();
  gauge_.set_fixed(fixed_.total());
  track_ = &shared.recorder.track(slot());
  track_->name = fmt::format("IPU {} (replica {}, ipu {})", physical_, replica, ipu);
  if (!infeed_inputs_.empty()) {
    // Feed tracks follow the IPU tracks, per replica in IPU order.
    int32_t k = 0;
    for (int32_t i = 0; i < ipu; ++i) {
      const auto& prog = plan_.programs.ipus[static_cast<size_t>(i)];
      k += std::any_of(prog.begin(), prog.end(), [](const planner::Instr& in) { return in.kind == InstrKind::Infeed; })
               ? 1
               : 0;
    }
    feed_track_ = plan_.num_ipus() + replica * feeding_ipus(plan_) + k;
    shared.recorder.track(feed_track_).name = fmt::format("infeed of IPU {} (replica {}, ipu {})", physical_, replica, ipu);
  }
}

std::map<ir::ValueId, ir::Tensor> Worker::build_weight_copies() {
  std::map<ir::ValueId, ir::Tensor> substitutes;
  if (!rounding_) {
    return substitutes;
  }
  const ir::Graph& g = plan_.graph;
  std::vector<ir::ValueId> params;
  size_t bytes = 0;
  for (const planner::Buffer& b : plan_.programs.buffers[static_cast<size_t>(ipu_)]) {
    if (b.cls == planner::BufferClass::Param) {
      params.push_back(b.value);
      bytes += align_up(static_cast<size_t>(g.type(b.value).numel()) * sizeof(float));
    }
  }
  weight_copy_memory_ = AlignedBlock(bytes);
  std::byte* next = weight_copy_memory_.data();
  for (ir::ValueId p : params) {
    const ir::Tensor master = memory_.tensor(p);
    auto* copy = reinterpret_cast<float*>(next);
    next += align_up(static_cast<size_t>(master.numel()) * sizeof(float));
    weight_copies_.push_back({master.f32(), copy, master.numel()});
    substitutes.emplace(p, ir::Tensor{master.type, copy});
  }
  return substitutes;
}

void Worker::build_params() {
  const ir::Graph& g = plan_.graph;
  const int32_t r = shared_.replicas;
  // What the memory model counts; 0: the optimizer reads the gradient buffer, nothing accumulates.
  const int32_t depth = planner::accumulator_buffers(plan_);
  const DType acc = plan_.settings.accumulation_dtype == DType::F16 ? DType::F16 : DType::F32;
  if (plan_.settings.accumulation_dtype != DType::F16 && plan_.settings.accumulation_dtype != DType::F32) {
    throw Error(ErrorKind::Internal, fmt::format("gradient accumulation in {} is not implemented",
                                                 dtype_name(plan_.settings.accumulation_dtype)));
  }
  optimizer_ = make_optimizer(shared_.settings.optimizer);
  const int64_t state_floats = optimizer_->state_slots();

  // Sharded state: this replica's block of each tensor, and the largest block it reserves.
  const int32_t shards = shared_.shard_state ? r : 1;
  std::vector<size_t> updated;
  int64_t elements = 0;      // of the state per slot: what the account counts (no alignment padding)
  int64_t part_elements = 0;  // the same, once per gradient part (what the accumulators hold)
  size_t acc_bytes = 0;
  size_t state_bytes = 0;
  size_t widened_bytes = 0;
  size_t shard_bytes = 0;
  // The optimizer reads the f32 root of a lone f32 tree, or a lone gradient buffer, in place; f16
  // roots are widened and several parts summed into a host buffer first.
  auto summed = [&](size_t parts) { return parts > 1 || (depth > 0 && acc == DType::F16); };
  for (size_t k = 0; k < g.params.size(); ++k) {
    if (plan_.placement.param_ipu[k] != ipu_ || k >= plan_.grads.size() || plan_.grads[k].empty()) {
      continue;
    }
    updated.push_back(k);
    const size_t n = static_cast<size_t>(g.type(g.params[k]).numel());
    const size_t parts = plan_.grads[k].size();
    const auto reserved = static_cast<size_t>(planner::shard_capacity(static_cast<int64_t>(n), shards));
    elements += static_cast<int64_t>(reserved);
    part_elements += static_cast<int64_t>(n * parts);
    acc_bytes += parts * static_cast<size_t>(depth) * align_up(n * dtype_size(acc));
    state_bytes += align_up(static_cast<size_t>(state_floats) * reserved * sizeof(float));
    widened_bytes += summed(parts) ? align_up(n * sizeof(float)) : 0;
    shard_bytes += shared_.shard_weights ? align_up(reserved * sizeof(float)) : 0;
  }
  shards_ = AlignedBlock(shard_bytes);
  std::byte* shard_next = shards_.data();
  accumulators_ = AlignedBlock(acc_bytes);
  optimizer_state_ = AlignedBlock(state_bytes);
  widened_roots_ = AlignedBlock(widened_bytes);
  fixed_.accumulators =
      plan_.settings.offload_accumulators ? 0 : depth * part_elements * static_cast<int64_t>(dtype_size(acc));
  fixed_.optimizer_state =
      plan_.settings.offload_optimizer_state
          ? 0
          : planner::optimizer_state_bytes(static_cast<int32_t>(state_floats), elements, plan_.settings.optimizer_state_dtype);

  std::byte* acc_next = accumulators_.data();
  std::byte* state_next = optimizer_state_.data();
  std::byte* widened_next = widened_roots_.data();
  const auto last = static_cast<int32_t>(plan_.programs.ipus[ipu_].size()) - 1;
  int64_t grains = 0;
  for (size_t k : updated) {
    const ir::ValueId p = g.params[k];
    const int64_t n = g.type(p).numel();
    ParamState ps;
    ps.param = p;
    ps.index = static_cast<int64_t>(k);
    ps.parts = plan_.grads[k];
    ps.block = planner::shard_range(n, shards, replica_);
    ps.grain_base = grains;
    grains += planner::shard_grains(n);
    for (ir::ValueId part : ps.parts) {
      if (depth == 0) {
        // Without accumulators the optimizer reads micro-batch 0's gradient, kept to the cycle's end.
        ps.unaccumulated.push_back(memory_.tensor(part, 0, last).f32());
        continue;
      }
      std::vector<void*> slots;
      for (int32_t d = 0; d < depth; ++d) {
        slots.push_back(acc_next);
        acc_next += align_up(static_cast<size_t>(n) * dtype_size(acc));
      }
      ps.trees.push_back(std::make_unique<GradTree>(acc, n, std::move(slots), plan_.settings.accumulation_order));
    }
    const float* grad = nullptr;
    if (summed(ps.parts.size())) {
      ps.sum_f32 = reinterpret_cast<float*>(widened_next);
      widened_next += align_up(static_cast<size_t>(n) * sizeof(float));
      grad = ps.sum_f32;
    } else {
      grad = depth == 0 ? ps.unaccumulated.front() : ps.trees.front()->root_if_f32();
    }
    auto* state = reinterpret_cast<float*>(state_next);
    state_next += align_up(static_cast<size_t>(state_floats * planner::shard_capacity(n, shards)) * sizeof(float));
    const int64_t lo = ps.block.begin;
    float* weights = memory_.tensor(p).f32() + lo;
    if (shared_.shard_weights) {
      // The update works on the shard; the weight's buffer only receives gathers.
      ps.shard = reinterpret_cast<float*>(shard_next);
      shard_next += align_up(static_cast<size_t>(planner::shard_capacity(n, shards)) * sizeof(float));
      weights = ps.shard;
    }
    ps.slot.push_back(ParamSlot{weights, grad + lo, state, ps.block.size()});
    optimizer_->init_state(ps.slot.front());
    slots_.push_back(ps.slot.front());
    params_.push_back(std::move(ps));
  }
  const int64_t blocks = static_cast<int64_t>(r) * std::max(1, depth);
  reduce_scratch_ = std::make_unique<ReduceScratch>(blocks);
  optimizer_->reserve(slots_);
  clip_grains_.assign(static_cast<size_t>(grains), 0.0);
  clip_totals_.assign(slots_.size(), 0.0);
  if (shared_.shard_state) {
    sums_ = std::make_unique<ShardSums>(*this);
    auto& table = shared_.grain_sums.at(static_cast<size_t>(ipu_));
    table.resize(std::max(table.size(), static_cast<size_t>(2 * grains)));  // LAMB: two quantities
  } else {
    sums_ = std::make_unique<LocalSums>();
  }
}

void Worker::build_statistics() {
  const ir::Graph& g = plan_.graph;
  std::vector<const planner::MovingStatistic*> held;
  size_t bytes = 0;
  for (const planner::MovingStatistic& m : plan_.moving_statistics) {
    if (memory_.has(m.state)) {
      held.push_back(&m);
      bytes += static_cast<size_t>(planner::statistic_buffers(plan_)) *
               align_up(static_cast<size_t>(g.type(m.state).numel()) * sizeof(float));
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
      next += align_up(static_cast<size_t>(n) * sizeof(float));
    }
    // Always the canonical tree, so that every split of the micro-batches sums the same bits.
    statistics_.push_back({m->state, m->statistic, m->momentum, memory_.tensor(m->state).f32(),
                           std::make_unique<GradTree>(DType::F32, n, std::move(slots))});
  }
  statistic_scratch_ = std::make_unique<ReduceScratch>(static_cast<int64_t>(shared_.replicas) *
                                                       planner::statistic_buffers(plan_));
}

void Worker::build_ops(const std::map<ir::ValueId, ir::Tensor>& substitutes) {
  const ir::Graph& g = plan_.graph;
  const planner::DevicePrograms& dp = plan_.programs;
  const auto& program = dp.ipus[static_cast<size_t>(ipu_)];
  if (memory_.arena().instructions() != program.size()) {
    throw Error(ErrorKind::Internal, fmt::format("IPU {}'s arena was assigned for another program", ipu_));
  }
  const MemoryDeltas deltas = arena_deltas(memory_.arena(), program.size());
  // The buffer assignment says which gradient copies go into their accumulator as they are made
  // (right after their kernel, in the backward task); any other is added by its Accumulate.
  const planner::Arena& arena = memory_.arena();
  auto to_accumulator = [&](ir::ValueId grad, int64_t m, int32_t pos) -> const planner::Life* {
    const int32_t life = arena.find(grad, m, pos);
    return life >= 0 && arena.lives[static_cast<size_t>(life)].to_accumulator ? &arena.lives[static_cast<size_t>(life)]
                                                                              : nullptr;
  };
  const HostOutfeed& outfeed = *shared_.outfeed;
  // Enqueued values no Outfeed instruction carries (the loss under pipeline.outfeed_loss when it
  // is not a model output): taken right after the forward task that computes them.
  std::vector<ir::ValueId> uncovered = outfeed.spec().values;
  for (const auto& prog : dp.ipus) {
    for (const planner::Instr& in : prog) {
      if (in.kind == InstrKind::Outfeed) {
        for (ir::ValueId v : in.values) {
          uncovered.erase(std::remove(uncovered.begin(), uncovered.end(), v), uncovered.end());
        }
      }
    }
  }
  auto output_index = [&](ir::ValueId v) {
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      if (g.outputs[k].value == v) {
        return static_cast<int32_t>(k);
      }
    }
    return -1;
  };

  std::vector<int64_t> statistic_leaves(statistics_.size(), 0);
  ops_.reserve(program.size());
  for (size_t i = 0; i < program.size(); ++i) {
    const planner::Instr& in = program[i];
    Op op;
    op.instr = &in;
    op.kind = in.kind;
    op.m = in.micro_batch;
    op.cycles = planner::instr_cycles(plan_, in);
    op.acquire = deltas.acquire[i];
    op.release = deltas.release[i];
    op.top = deltas.top[i];
    const auto pos = static_cast<int32_t>(i);
    switch (in.kind) {
      case InstrKind::Forward:
      case InstrKind::Recompute:
      case InstrKind::Backward:
      case InstrKind::BackwardWeights: {
        const auto& nodes = dp.stages.at(static_cast<size_t>(in.stage)).nodes(in.kind);
        std::vector<GradPush> pushes;
        if (in.kind == InstrKind::Forward) {
          // A moving statistic joins its tree as soon as its micro-batch's forward has made it
          // (a Recompute makes the same bits again and pushes nothing).
          for (size_t k = 0; k < statistics_.size(); ++k) {
            StatisticState& st = statistics_[k];
            if (std::find(nodes.begin(), nodes.end(), st.statistic) != nodes.end()) {
              pushes.push_back({st.statistic, st.tree.get(),
                                static_cast<int64_t>(replica_) * shared_.micro_batches + op.m});
              ++statistic_leaves[k];
            }
          }
        }
        if (planner::is_backward(in.kind)) {
          for (ParamState& ps : params_) {
            for (size_t j = 0; j < ps.trees.size(); ++j) {
              const planner::Life* made = to_accumulator(ps.parts[j], op.m, pos);
              if (made != nullptr && made->first_instr == arena.walked(pos).instr) {
                pushes.push_back({ps.parts[j], ps.trees[j].get(),
                                  static_cast<int64_t>(replica_) * shared_.micro_batches + op.m});
              }
            }
          }
        }
        tasks_.push_back(std::make_unique<TaskProgram>(g, nodes, memory_, op.m, pos, substitutes, pushes));
        op.task = tasks_.back().get();
        if (in.kind == InstrKind::Forward) {
          for (ir::ValueId v : uncovered) {
            if (memory_.has(v) && g.node(v).stage == in.stage) {
              if (v != g.loss && output_index(v) < 0) {
                throw Error(ErrorKind::Internal, fmt::format("value %{} is taken by the outfeed outside an Outfeed", v));
              }
              op.outs.push_back({memory_.tensor(v, op.m, pos), -1, outfeed.index_of(v)});
            }
          }
        }
        break;
      }
      case InstrKind::Send:
      case InstrKind::Recv: {
        const planner::Message& msg = dp.messages.at(static_cast<size_t>(in.message));
        op.mailbox = &shared_.mailbox(replica_, msg.from, msg.to);
        size_t offset = 0;
        for (ir::ValueId v : msg.values) {
          const ir::Tensor t = memory_.tensor(v, op.m, pos);
          op.copies.push_back({static_cast<std::byte*>(t.data), t.type->bytes(), offset});
          offset += t.type->bytes();
        }
        if (static_cast<int64_t>(offset) > op.mailbox->slot_bytes()) {
          throw Error(ErrorKind::Internal, fmt::format("message #{} ({} bytes) exceeds its channel's {} bytes",
                                                       in.message, offset, op.mailbox->slot_bytes()));
        }
        break;
      }
      case InstrKind::Infeed:
        if (infeed_inputs_.empty()) {
          infeed_inputs_ = in.values;
        } else if (infeed_inputs_ != in.values) {
          throw Error(ErrorKind::Internal, fmt::format("IPU {} infeeds different inputs in one cycle", ipu_));
        }
        for (size_t k = 0; k < in.values.size(); ++k) {
          const ir::Tensor t = memory_.tensor(in.values[k], op.m, pos);
          op.copies.push_back({static_cast<std::byte*>(t.data), t.type->bytes(), k});
        }
        break;
      case InstrKind::Outfeed:
        for (ir::ValueId v : in.values) {
          op.outs.push_back({memory_.tensor(v, op.m, pos), output_index(v), outfeed.index_of(v)});
        }
        break;
      case InstrKind::Accumulate:
        for (ir::ValueId p : in.values) {
          for (ParamState& ps : params_) {
            for (size_t j = 0; j < ps.trees.size(); ++j) {
              const ir::ValueId part = ps.parts[j];
              if (ps.param == p && g.node(part).stage == in.stage && to_accumulator(part, op.m, pos) == nullptr) {
                op.leaves.push_back({ps.trees[j].get(), memory_.tensor(part, op.m, pos).f32()});
              }
            }
          }
        }
        break;
      case InstrKind::ReduceReplicas:
      case InstrKind::UpdateWeights: break;
    }
    ops_.push_back(std::move(op));
  }
  for (size_t k = 0; k < statistics_.size(); ++k) {
    if (statistic_leaves[k] != shared_.micro_batches) {
      throw Error(
          ErrorKind::Internal,
          fmt::format("IPU {} holds the moving statistic '{}' but computes it for {} of {} micro-batches",
                      ipu_, g.node(statistics_[k].state).name, statistic_leaves[k], shared_.micro_batches));
    }
  }
}

void Worker::publish_trees() {
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

void Worker::run(int64_t first, int64_t count) {
  if (gauge_.peak() > capacity_) {
    throw Error(ErrorKind::Runtime,
                fmt::format("IPU {} (replica {}, ipu {}) holds {} bytes before running, more than its {} bytes",
                            physical_, replica_, ipu_, gauge_.peak(), capacity_),
                {}, "use more stages, a smaller micro-batch or an optimizer with less state");
  }
  const double start = shared_.recorder.now_us();
  const double cpu_start = Recorder::thread_cpu_us();
  // The host's share of a device call, as the planner's cycle model charges it.
  sim_ += plan_.settings.device.host_call_cycles;
  std::fill(records_.begin(), records_.begin() + count * shared_.outputs, 0.0);
  if (shared_.shard_weights) {
    load_shards();
  }
  for (int64_t j = 0; j < count; ++j) {
    run_update(first + j, j);
  }
  if (shared_.shard_weights) {
    // The host reads (and checkpoints) whole weights between executions.
    for (const ParamState& ps : params_) {
      gather_param(ps);
    }
  }
  track_->total_us += shared_.recorder.now_us() - start;
  track_->cpu_us += Recorder::thread_cpu_us() - cpu_start;
}

void Worker::run_update(int64_t update, int64_t local) {
  for (ParamState& ps : params_) {
    for (auto& tree : ps.trees) {
      tree->clear();
    }
  }
  for (StatisticState& st : statistics_) {
    st.tree->clear();
  }
  prepare_update();
  UpdateWindow& w = windows_[static_cast<size_t>(local)];
  w = UpdateWindow{std::numeric_limits<double>::max(), 0, 0, std::numeric_limits<double>::max(), 0, 0};
  for (Op& op : ops_) {
    for (size_t k : op.gathers) {
      gather_param(params_[k]);
    }
    execute(op, update, local);
  }
}

void Worker::prepare_update() {
  overflows_ = 0;
  // The master weights may have changed since the last update (the optimizer, a restored
  // checkpoint), so the copies are made afresh; nearest rounding keeps them a function of the
  // master weights alone. A weight beyond the half range is not an overflow of this update.
  for (const WeightCopy& w : weight_copies_) {
    if (w.gathered) {
      continue;  // made by gather_param() before each task that reads it
    }
    if (plan_.settings.master_weights == planner::MasterWeights::None) {
      // Weights kept in the compute type start there too (initialised or loaded in f32); a no-op
      // once an update has rounded them.
      round_in_place(const_cast<float*>(w.master), w.size, HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
    round_nearest_copy(w.master, w.copy, w.size, *rounding_);
  }
  if (loss_seed_.data != nullptr) {
    std::fill_n(loss_seed_.f32(), loss_seed_.numel(), static_cast<float>(loss_scale_.scale));
  }
}

void Worker::execute(Op& op, int64_t update, int64_t local) {
  const int32_t R = shared_.replicas;
  const int64_t A = shared_.micro_batches;
  if (op.acquire > 0) {
    gauge_.acquire(op.acquire, op.top);
    if (gauge_.peak() > capacity_) {
      throw Error(ErrorKind::Runtime,
                  fmt::format("IPU {} (replica {}, ipu {}) needs {} bytes at `{}` of update {}, more than its {} bytes",
                              physical_, replica_, ipu_, gauge_.peak(), op.instr->str(plan_.programs), update + 1,
                              capacity_),
                  {}, "the planner's estimate was too low for this plan: use more stages, a smaller micro-batch or recomputation");
    }
    if (keep_events_) {
      track_->memory.push_back({shared_.recorder.now_us(), gauge_.current()});
    }
  }
  // Global micro-batch index in the training stream: the same for every plan (the contract).
  const int64_t g = (update * R + replica_) * A + op.m;
  const double begin = shared_.recorder.now_us();
  // Kernel CPU time, against the thread's whole CPU time, is the engine-overhead figure.
  const double cpu_begin = is_busy(op.kind) ? Recorder::thread_cpu_us() : 0.0;
  double work_begin = begin;  // after any wait for a link or the feed
  double sim_start = sim_;    // when the instruction could start on the simulated clock
  switch (op.kind) {
    case InstrKind::Forward:
    case InstrKind::Recompute:
    case InstrKind::Backward:
    case InstrKind::BackwardWeights: {
      const ir::ExecContext ctx{shared_.settings.seed, g, g * shared_.micro_batch_size, shared_.plan.settings.training};
      // Training names the update and micro-batch; inference the batch of the data (g + 1).
      const FpTrapSite site = shared_.plan.settings.training
                                  ? FpTrapSite{traps_, shared_.run_label, update + 1, op.m, replica_, g}
                                  : FpTrapSite{traps_, shared_.run_label, g + 1, -1, replica_, g};
      overflows_ += op.task->run(ctx, workspace_.data(), rounding_ ? &*rounding_ : nullptr, traps_ ? &site : nullptr);
      for (const OutfeedItem& o : op.outs) {
        shared_.outfeed->enqueue(static_cast<size_t>(o.queue), replica_, local, op.m, o.value);
      }
      break;
    }
    case InstrKind::Send: {
      Mailbox::Slot& slot = op.mailbox->begin_send({shared_.detector.get(), index_, op.instr});
      work_begin = shared_.recorder.now_us();
      sim_start = std::max(sim_, slot.sim_freed);
      for (const Copy& c : op.copies) {
        std::memcpy(slot.data + c.offset, c.device, c.bytes);
      }
      const int64_t tag = update * static_cast<int64_t>(plan_.programs.messages.size()) + op.instr->message;
      op.mailbox->end_send(slot, tag, sim_start);
      break;
    }
    case InstrKind::Recv: {
      const int64_t tag = update * static_cast<int64_t>(plan_.programs.messages.size()) + op.instr->message;
      Mailbox::Slot& slot = op.mailbox->begin_recv(tag, {shared_.detector.get(), index_, op.instr});
      work_begin = shared_.recorder.now_us();
      sim_start = std::max(sim_, slot.sim_sent);
      for (const Copy& c : op.copies) {
        std::memcpy(c.device, slot.data + c.offset, c.bytes);
      }
      op.mailbox->end_recv(slot, sim_start);
      break;
    }
    case InstrKind::Infeed: {
      if (feed_ == nullptr) {
        throw Error(ErrorKind::Internal, fmt::format("IPU {} has no infeed: open_feeds() was not called", physical_));
      }
      const Batch& b = feed_->pop();
      work_begin = shared_.recorder.now_us();
      if (b.step != g) {
        throw Error(ErrorKind::Internal, fmt::format("replica {} expected batch {} from its infeed, got {}", replica_,
                                                     g, b.step));
      }
      for (const Copy& c : op.copies) {
        std::memcpy(c.device, b.fields[c.offset].data(), c.bytes);
      }
      feed_->release();
      break;
    }
    case InstrKind::Outfeed:
      for (const OutfeedItem& o : op.outs) {
        if (o.output >= 0) {
          records_[static_cast<size_t>(local * shared_.outputs + o.output)] += scalar_mean(o.value);
        }
        if (o.queue >= 0) {
          shared_.outfeed->enqueue(static_cast<size_t>(o.queue), replica_, local, op.m, o.value);
        }
      }
      break;
    case InstrKind::Accumulate:
      for (const Leaf& leaf : op.leaves) {
        leaf.tree->push(static_cast<int64_t>(replica_) * A + op.m, leaf.grad);
      }
      break;
    case InstrKind::ReduceReplicas:
      sim_start = reduce(op.instr->bucket);
      break;
    case InstrKind::UpdateWeights: update_weights(update); break;
  }
  sim_ = sim_start + op.cycles;
  const double end = shared_.recorder.now_us();
  if (is_busy(op.kind)) {
    track_->kernel_cpu_us += Recorder::thread_cpu_us() - cpu_begin;
    track_->busy_us += end - begin;
    sim_busy_ += op.cycles;
  }
  if (in_pipeline(op.kind)) {
    UpdateWindow& w = windows_[static_cast<size_t>(local)];
    w.begin_us = std::min(w.begin_us, work_begin);
    w.end_us = std::max(w.end_us, end);
    w.busy_us += end - work_begin;
    w.sim_begin = std::min(w.sim_begin, sim_start);
    w.sim_end = std::max(w.sim_end, sim_);
    w.sim_busy += op.cycles;
  }
  if (keep_events_) {
    const planner::Instr& in = *op.instr;
    track_->events.push_back(TraceEvent{in.kind, in.stage, in.micro_batch, update, begin, end, sim_start, sim_});
  }
  if (op.release > 0) {
    gauge_.release(op.release);
    if (keep_events_) {
      track_->memory.push_back({end, gauge_.current()});
    }
  }
}

double Worker::reduce(int32_t bucket) {
  if (shared_.shard_state) {
    return reduce_blocks(bucket);
  }
  if (bucket_parts_.empty()) {
    bucket_parts_.resize(plan_.programs.buckets.size());
  }
  ReduceParts& parts = bucket_parts_.at(static_cast<size_t>(bucket));
  if (parts.empty()) {
    // The bucket's elements: every part of every parameter's gradient, one after the other.
    const auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
    for (ir::ValueId p : plan_.programs.buckets[static_cast<size_t>(bucket)].params) {
      const int64_t n = plan_.graph.type(p).numel();
      for (const ParamState& ps : params_) {
        if (ps.param == p) {
          for (ir::ValueId part : ps.parts) {
            parts.emplace_back(&trees.at(part), n);
          }
        }
      }
    }
  }
  return reduce_parts(parts, *reduce_scratch_);
}

double Worker::reduce_parts(const ReduceParts& parts, ReduceScratch& scratch) {
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  // Every replica has pushed all its leaves once all have arrived.
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  const double start = std::max(sim_, meet.arrive(local_, 0, sim_, wait).latest_sim);
  if (shared_.link) {
    // The instance's first replica brings the other instances' trees for this instance's elements.
    if (local_ == 0) {
      send_stacks(span_of(shared_), ipu_, parts);
    }
    meet.arrive(local_, 0, start, wait);
  }
  const int64_t R = shared_.replicas;
  int64_t total = 0;
  for (const auto& [list, n] : parts) {
    total += n;
  }
  // Reduce-scatter: this replica computes its share of the elements for everyone.
  const int64_t lo = total * replica_ / R;
  const int64_t hi = total * (replica_ + 1) / R;
  int64_t offset = 0;
  for (const auto& [list, n] : parts) {
    const int64_t a = std::max(lo, offset) - offset;
    const int64_t b = std::min(hi, offset + n) - offset;
    if (a < b) {
      reduce_slice(*list, a, b, scratch);
    }
    offset += n;
  }
  // Nobody reads the root (or refills its accumulators) before every share is written.
  meet.arrive(local_, 0, start, wait);
  if (shared_.link) {
    if (local_ == 0) {
      share_roots(span_of(shared_), ipu_, parts);  // and the other instances' shares of the root
    }
    meet.arrive(local_, 0, start, wait);
  }
  return start;
}

void Worker::sum_statistics() {
  if (shared_.replicas == 1) {
    for (StatisticState& st : statistics_) {
      st.tree->fold();
    }
    return;
  }
  if (statistic_parts_.empty()) {
    const auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
    for (const StatisticState& st : statistics_) {
      statistic_parts_.emplace_back(&trees.at(st.statistic), st.tree->size());
    }
  }
  // Not on the simulated clock: the planner's cycle model leaves these few bytes out.
  reduce_parts(statistic_parts_, *statistic_scratch_);
}

void Worker::update_statistics() {
  const int64_t n = static_cast<int64_t>(shared_.replicas) * shared_.micro_batches;
  for (const StatisticState& st : statistics_) {
    apply_moving_average(st.value, static_cast<const float*>(st.tree->slot(0)), st.tree->size(), n,
                         st.momentum);
    if (plan_.settings.master_weights == planner::MasterWeights::None && rounding_) {
      // Stored in the compute type like the weights, rounded to nearest (no key needed).
      round_in_place(st.value, st.tree->size(),
                     HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
  }
}

void Worker::update_weights(int64_t update) {
  const OptimizerSettings& o = shared_.settings.optimizer;
  if (!statistics_.empty()) {
    sum_statistics();
  }
  for (ParamState& ps : params_) {
    if (shared_.replicas == 1) {
      for (auto& tree : ps.trees) {
        tree->fold();
      }
    }
    if (ps.sum_f32 == nullptr) {
      continue;
    }
    // The parts' roots summed in the parts' order, the same for every plan; only this replica's
    // block when the state is sharded (the reduce-scatter left only that block in its roots).
    const auto lo = static_cast<size_t>(ps.block.begin);
    const auto hi = static_cast<size_t>(ps.block.end);
    for (size_t j = 0; j < ps.parts.size(); ++j) {
      if (ps.trees.empty()) {
        const float* part = ps.unaccumulated[j];
        for (size_t i = lo; i < hi; ++i) {
          ps.sum_f32[i] = j == 0 ? part[i] : ps.sum_f32[i] + part[i];
        }
      } else if (j == 0) {
        ps.trees[j]->root_f32(ps.sum_f32, ps.block.begin, ps.block.end);
      } else {
        ps.trees[j]->add_root_f32(ps.sum_f32, ps.block.begin, ps.block.end);
      }
    }
  }
  const double seed = static_cast<float>(loss_scale_.scale);  // what the backward passes started from
  if (o.loss_scaling_mode == LossScaling::Dynamic) {
    const bool overflow = any_overflow();
    advance_loss_scale(loss_scale_, overflow, o);
    if (overflow) {
      return;  // every worker of every replica skips this update, so the replicas stay equal
    }
  }
  update_statistics();
  // The tree holds the plain sum of the N = R x A micro-batch gradients, each computed from a
  // backward pass seeded with the loss scale.
  const double n = static_cast<double>(shared_.replicas * shared_.micro_batches);
  const double mean = plan_.settings.reduction == planner::Reduction::Sum ? 1.0 / shared_.replicas : 1.0 / n;
  const double scale = mean / seed;
  float factor = static_cast<float>(scale);
  if (o.gradient_clip_norm > 0) {
    // The global norm spans every IPU of the replica; summing per parameter in the graph's order
    // gives the same bits whatever the placement.
    auto& squares = shared_.clip_squares[static_cast<size_t>(local_)][static_cast<size_t>(update % 2)];
    gradient_squares(*sums_);
    for (size_t k = 0; k < params_.size(); ++k) {
      squares[static_cast<size_t>(params_[k].index)] = clip_totals_[k];
    }
    shared_.clip_meet[static_cast<size_t>(local_)]->arrive(ipu_, 0, sim_, {shared_.detector.get(), index_, nullptr});
    double total = 0;
    for (double s : squares) {
      total += s;
    }
    factor = static_cast<float>(scale * clip_scale(total * scale * scale, o));
  }
  // A skipped update is not a step of the optimizer (its moments' bias correction counts only
  // applied updates, as with GradScaler), while the learning-rate schedule follows the updates.
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, sim_, wait);  // every replica's tasks have read the shards they gather
  }
  optimizer_->update_blocks(slots_, update + 1 - loss_scale_.skipped, learning_rate_at(o, update + 1), factor,
                            *sums_);
  round_after_update(update);
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, sim_, wait);  // every shard is updated before the next task gathers it
  } else if (shared_.shard_state) {
    gather_weights();
  }
}

void Worker::round_after_update(int64_t update) {
  const auto& fp = shared_.settings.floating_point;
  const uint64_t seed = shared_.settings.seed;
  // Keyed by the parameter, the slot and the update only, so every replica and placement rounds
  // the same elements the same way; negative values keep these keys apart from the passes'.
  auto key = [&](const HalfRounding& r, const ParamState& ps, int64_t k) {
    return r.stochastic ? rounding_key(seed, -1 - 8 * static_cast<int64_t>(ps.param) - k, update) : 0;
  };
  if (plan_.settings.master_weights == planner::MasterWeights::None && rounding_) {
    // No f32 master: the weights are stored in the compute type, every update rounded into it.
    for (const ParamState& ps : params_) {
      round_in_place(ps.slot.front().weights, ps.slot.front().size, *rounding_, key(*rounding_, ps, 0), ps.block.begin);
    }
  }
  const DType state = plan_.settings.optimizer_state_dtype;
  if (state != DType::F32) {
    const HalfRounding r{state, fp.esr, fp.nanoo};
    const int64_t slots = optimizer_->state_slots();
    for (const ParamState& ps : params_) {
      const ParamSlot& slot = ps.slot.front();
      for (int64_t k = 0; k < slots; ++k) {
        round_in_place(slot.state + k * slot.size, slot.size, r, key(r, ps, 1 + k), ps.block.begin);
      }
    }
  }
}

bool Worker::any_overflow() {
  bool local = overflows_ > 0;
  for (const ParamSlot& slot : slots_) {
    for (int64_t i = 0; i < slot.size && !local; ++i) {
      local = !std::isfinite(slot.grad[i]);
    }
  }
  const Rendezvous::Met met = shared_.overflow_meet->arrive(index_, local ? 1.0 : 0.0, sim_,
                                                            {shared_.detector.get(), index_, nullptr});
  bool any = false;
  for (int32_t k = 0; k < shared_.overflow_meet->parties(); ++k) {
    any = any || met.values[k] != 0.0;
  }
  if (!shared_.link) {
    return any;
  }
  // Every instance skips together: worker 0 asks the others (on IPU 0's channel, which only it uses).
  if (index_ == 0) {
    shared_.overflow_anywhere = any_instance(*shared_.link, 0, any);
  }
  shared_.overflow_meet->arrive(index_, 0, sim_, {shared_.detector.get(), index_, nullptr});
  return shared_.overflow_anywhere;
}

}  // namespace iputrain::engine
