// The Worker's memory, its setup and its execution loop; measurement is its WorkerObserver's
// (worker_observer.cpp), program compilation worker_program.cpp's, the update its
// WeightUpdate's (weight_update.cpp).
#include "engine/cluster/worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/half_round.hpp"
#include "engine/scalar_mean.hpp"
#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/precision.hpp"
#include "planner/recurrent_states.hpp"

namespace iputrain::engine {

using planner::InstrKind;

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
      micro_batches(std::max<int64_t>(1, p.decided.accumulation_count)),
      micro_batch_size(p.micro_batch()),
      max_updates(std::max<int64_t>(1, settings.plain.training_steps_per_execution) *
                  std::max<int64_t>(1, settings.plain.pipeline_repeat_count)),
      prefetch_depth(settings.plain.data_prefetch_depth),
      overflow_meet(
          std::make_unique<Rendezvous>(p.placement.replicas_per_instance() * p.placement.pipeline.ipus_per_replica)),
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

namespace {

// How every task result is rounded under f16/bf16 compute; none under f32.
std::optional<HalfRounding> compute_rounding(const ClusterShared& shared) {
  const DType compute = shared.plan.decided.device.compute;
  if (!planner::is_half(compute)) {
    return std::nullopt;
  }
  const Settings& s = shared.settings;
  return HalfRounding{compute, s.plain.ipu_floating_point_behaviour_esr, s.plain.ipu_floating_point_behaviour_nanoo};
}

}  // namespace

Worker::Worker(ClusterShared& shared, int32_t replica, int32_t ipu)
    : shared_(shared),
      plan_(shared.plan),
      replica_(replica),
      ipu_(ipu),
      index_(shared.local(replica) * shared.ipus + ipu),
      physical_(shared.plan.placement.physical.at(static_cast<size_t>(replica)).at(static_cast<size_t>(ipu))),
      observer_(shared.recorder, shared.plan, slot(), physical_, replica, ipu, shared.max_updates),
      memory_(physical_, shared.plan.graph, shared.plan.programs.buffers.at(static_cast<size_t>(ipu)),
              shared.plan.programs.arenas.at(static_cast<size_t>(ipu)), planner::host_scale(shared.plan)),
      rounding_(compute_rounding(shared)),
      traps_(fp_traps(shared.settings)),
      update_(shared, replica, ipu, memory_, observer_, rounding_) {
  const ir::Graph& g = plan_.graph;
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
  if (shared.replicas > 1) {
    exchange_ = std::make_unique<ReplicaExchange>(shared, replica, ipu, index_);
  }
  build_ops(update_.weight_copies());
  build_gathers();
  records_.assign(static_cast<size_t>(shared.max_updates * shared.outputs), 0.0);
  count_fixed_bytes();
  if (!infeed_inputs_.empty()) {
    name_feed_track();
  }
}

void Worker::count_fixed_bytes() {
  const ir::Graph& g = plan_.graph;
  const DType compute = plan_.decided.device.compute;
  fixed_.accumulators = update_.accumulator_bytes();
  fixed_.optimizer_state = update_.optimizer_state_bytes();
  // Counted as a device holding the compute type would hold them (planner/precision.hpp), the
  // rule the memory model uses; the host's own buffers stay f32.
  for (const planner::Buffer& b : plan_.programs.buffers[static_cast<size_t>(ipu_)]) {
    if (b.cls == planner::BufferClass::Param) {
      fixed_.weights += planner::resident_weight_bytes(plan_, b.value) + planner::statistic_sum_bytes(plan_, b.value);
    }
  }
  fixed_.weights += planner::gather_buffer_bytes(plan_, ipu_);
  for (const planner::Channel& c : plan_.programs.channels) {
    if (c.to == ipu_) {
      const Mailbox& box = shared_.mailbox(replica_, c.from, c.to);
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
  fixed_.io_buffers += shared_.prefetch_depth * infeed + outfeed;
  observer_.set_fixed(fixed_.total());
}

void Worker::name_feed_track() {
  // Feed tracks follow the IPU tracks, per replica in IPU order.
  int32_t k = 0;
  for (int32_t i = 0; i < ipu_; ++i) {
    const auto& prog = plan_.programs.ipus[static_cast<size_t>(i)];
    k += std::any_of(prog.begin(), prog.end(), [](const planner::Instr& in) { return in.kind == InstrKind::Infeed; })
             ? 1
             : 0;
  }
  feed_track_ = plan_.num_ipus() + replica_ * feeding_ipus(plan_) + k;
  shared_.recorder.track(feed_track_).name =
      fmt::format("infeed of IPU {} (replica {}, ipu {})", physical_, replica_, ipu_);
}

void Worker::run(int64_t first, int64_t count) {
  observer_.begin_run();
  std::fill(records_.begin(), records_.begin() + count * shared_.outputs, 0.0);
  update_.begin_execution();
  for (int64_t j = 0; j < count; ++j) {
    run_update(first + j, j);
  }
  update_.end_execution();
  observer_.end_run();
}

void Worker::run_update(int64_t update, int64_t local) {
  overflows_ = 0;
  update_.begin_update();
  observer_.begin_update(local);
  for (Op& op : ops_) {
    for (size_t k : op.gathers) {
      update_.gather(k);
    }
    execute(op, update, local);
  }
}

void Worker::execute(Op& op, int64_t update, int64_t local) {
  const int32_t R = shared_.replicas;
  const int64_t A = shared_.micro_batches;
  WorkerObserver::Mark mark = observer_.begin(*op.instr, op.acquire, op.top, update);
  // Global micro-batch index in the training stream: the same for every plan (the contract).
  const int64_t g = (update * R + replica_) * A + op.m;
  switch (op.kind) {
    case InstrKind::Forward:
    case InstrKind::Recompute:
    case InstrKind::Backward:
    case InstrKind::BackwardWeights: {
      // Stateful layers start afresh at the first batch of a pass over the data and every
      // training.reset_states_every batches of it (planner/recurrent_states.hpp).
      const int64_t in_pass = shared_.state_pass > 0 ? g % shared_.state_pass : g;
      const ir::ExecContext ctx{shared_.settings.plain.training_seed,
                                g,
                                g * shared_.micro_batch_size,
                                shared_.plan.decided.training,
                                exchange_.get(),
                                planner::resets_states(in_pass, shared_.settings.plain.training_reset_states_every)};
      if (exchange_) {
        exchange_->set_at(op.instr);
      }
      // Training names the update and micro-batch; inference the batch of the data (g + 1).
      const FpTrapSite site = shared_.plan.decided.training
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
      observer_.waited(mark, slot.sim_freed);
      for (const Copy& c : op.copies) {
        std::memcpy(slot.data + c.offset, c.device, c.bytes);
      }
      const int64_t tag = update * static_cast<int64_t>(plan_.programs.messages.size()) + op.instr->message;
      op.mailbox->end_send(slot, tag, mark.sim_start);
      break;
    }
    case InstrKind::Recv: {
      const int64_t tag = update * static_cast<int64_t>(plan_.programs.messages.size()) + op.instr->message;
      Mailbox::Slot& slot = op.mailbox->begin_recv(tag, {shared_.detector.get(), index_, op.instr});
      observer_.waited(mark, slot.sim_sent);
      for (const Copy& c : op.copies) {
        std::memcpy(c.device, slot.data + c.offset, c.bytes);
      }
      op.mailbox->end_recv(slot, mark.sim_start);
      break;
    }
    case InstrKind::Infeed: {
      if (feed_ == nullptr) {
        throw Error(ErrorKind::Internal, fmt::format("IPU {} has no infeed: open_feeds() was not called", physical_));
      }
      const Batch& b = feed_->pop();
      observer_.waited(mark, 0.0);
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
      mark.sim_start = update_.reduce(op.instr->bucket);
      break;
    case InstrKind::UpdateWeights:
      update_.update(update, overflows_);
      break;
  }
  observer_.end(*op.instr, mark, op.cycles, op.release, update, local);
}

}  // namespace iputrain::engine
