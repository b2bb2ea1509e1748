#include "planner/lowering.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "planner/host_tables.hpp"
#include "planner/turn_tokens.hpp"

namespace iputrain::planner {

namespace {

// Every non-leaf op but a stateful layer's state reads and writes can be rebuilt (the state
// changes between a micro-batch's forward and its backward: what was read is stashed). Dropout masks too: the seeds do
// not recompute stateful random ops but regenerate a dropout's mask in the backward pass from its seed instead of
// keeping it, and ours is a pure function of the seed and the sample's index, so rebuilding it gives the same bits
// without holding the mask.
bool recomputable(const ir::Node& n) { return !is_leaf(n) && !op_has(n.op, ir::op_flags::stateful); }

// One task of one IPU: stage `stage` in `work` on micro-batch `m`, at timeline step `step`.
struct TaskRef {
  int32_t stage;
  Work work;
  int64_t m;
  int32_t step;
};

// A task type: (stage, work); Recompute and Backward of one (stage, m) form one task group.
constexpr int32_t kWorks = 4;
int32_t group_key(int32_t stage, Work work) {
  return stage * kWorks + static_cast<int32_t>(work == Work::Recompute ? Work::Backward : work);
}
int32_t stage_of_group(int32_t group) { return group / kWorks; }

// Per value: a forward node computed from parameters and constants alone (ids are topological).
std::vector<bool> weight_derived_values(const ir::Graph& g) {
  std::vector<bool> derived(static_cast<size_t>(g.size()), false);
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& n = g.node(id);
    if (n.phase != ir::Phase::Forward || is_leaf(n) || n.inputs.empty() || op_has(n.op, ir::op_flags::stateful)) {
      continue;
    }
    derived[static_cast<size_t>(id)] = std::all_of(n.inputs.begin(), n.inputs.end(), [&](ir::ValueId in) {
      return ir::is_resident(g.node(in)) || derived[static_cast<size_t>(in)];
    });
  }
  return derived;
}

// Splits `sp.backward` in two, as zero-bubble pipelining does: the activation-gradient chain (what
// the previous stage waits for, and what carries the gradient back through this stage's layers)
// stays in `backward`; the parameter gradients' own nodes (x^T dy, a bias's row sum, an embedding's
// scatter), which nothing but the accumulation reads, move to `weights`. The chain is what leaves
// the list (read by another stage's or task's nodes) plus every backward node that reads a weight
// (dx = dy W^T, a norm's dx through gamma), with everything they depend on within the list.
void split_backward(const ir::Graph& g, const std::vector<ir::ValueId>& program,
                    const std::vector<bool>& weight_derived, StagePrograms& sp) {
  const std::set<ir::ValueId> mine(sp.backward.begin(), sp.backward.end());
  auto from_weights = [&](ir::ValueId v) { return ir::is_weight(g.node(v)) || weight_derived[static_cast<size_t>(v)]; };
  std::vector<ir::ValueId> work;
  for (ir::ValueId id : program) {
    if (mine.count(id) != 0) {
      continue;
    }
    for (ir::ValueId in : g.node(id).inputs) {
      if (mine.count(in) != 0) {
        work.push_back(in);
      }
    }
  }
  for (const auto& o : g.outputs) {
    if (mine.count(o.value) != 0) {
      work.push_back(o.value);
    }
  }
  for (ir::ValueId id : sp.backward) {
    const ir::Node& n = g.node(id);
    if (n.phase == ir::Phase::Backward && std::any_of(n.inputs.begin(), n.inputs.end(), from_weights)) {
      work.push_back(id);
    }
  }
  std::set<ir::ValueId> chain;
  while (!work.empty()) {
    const ir::ValueId v = work.back();
    work.pop_back();
    if (mine.count(v) == 0 || !chain.insert(v).second) {
      continue;
    }
    for (ir::ValueId in : g.node(v).inputs) {
      work.push_back(in);
    }
  }
  std::vector<ir::ValueId> inputs_part;
  for (ir::ValueId id : sp.backward) {
    (chain.count(id) != 0 ? inputs_part : sp.weights).push_back(id);
  }
  sp.backward = std::move(inputs_part);
}

}  // namespace

std::vector<StagePrograms> stage_programs(const ir::Graph& g, const std::vector<ir::ValueId>& train_program,
                                          const std::vector<bool>& recompute, bool keep_checkpoints,
                                          bool rebuild_weight_derived, bool split) {
  std::vector<StagePrograms> out(g.stages.size());
  // Values computed from parameters and constants alone (a transposed or sliced weight) are the
  // same for every micro-batch of a cycle: rebuilt in the backward, never held from the forward.
  // The split reads them too: a backward node that reads one is on the activation-gradient chain.
  const std::vector<bool> weight_derived =
      rebuild_weight_derived || split ? weight_derived_values(g) : std::vector<bool>(static_cast<size_t>(g.size()));
  for (ir::ValueId id : train_program) {
    const ir::Node& n = g.node(id);
    if (is_leaf(n)) {
      continue;
    }
    auto& sp = out[static_cast<size_t>(n.stage)];
    (n.phase == ir::Phase::Forward ? sp.forward : sp.backward).push_back(id);
  }
  for (size_t s = 0; s < out.size(); ++s) {
    auto& sp = out[s];
    const std::set<ir::ValueId> forward(sp.forward.begin(), sp.forward.end());
    // Forward values the backward reads: the stash, unless recomputation can rebuild them.
    std::set<ir::ValueId> needed;
    for (ir::ValueId id : sp.backward) {
      for (ir::ValueId in : g.node(id).inputs) {
        const ir::Node& p = g.node(in);
        if (p.phase == ir::Phase::Forward && !ir::is_resident(p)) {
          needed.insert(in);
        }
      }
    }
    std::set<ir::ValueId> stash;
    std::set<ir::ValueId> rerun;
    if (!recompute[s] && !rebuild_weight_derived) {
      stash = needed;
    } else {
      // Walk back from what the backward needs through this stage's recomputable forward nodes
      // (only the weight-derived ones where the stage is not recomputed); what the walk stops at
      // (stage inputs, random ops' outputs) is stashed instead.
      std::vector<ir::ValueId> work(needed.begin(), needed.end());
      while (!work.empty()) {
        const ir::ValueId v = work.back();
        work.pop_back();
        const ir::Node& n = g.node(v);
        const bool checkpoint = keep_checkpoints && op_has(n.op, ir::op_flags::checkpoint);
        const bool rebuilt = recompute[s] || weight_derived[static_cast<size_t>(v)];
        if (forward.count(v) == 0 || !recomputable(n) || checkpoint || !rebuilt) {
          if (!ir::is_resident(n)) {
            stash.insert(v);
          }
          continue;
        }
        if (!rerun.insert(v).second) {
          continue;
        }
        for (ir::ValueId in : n.inputs) {
          work.push_back(in);
        }
      }
    }
    if ((keep_checkpoints || !recompute[s]) && !rerun.empty()) {
      // Interleaved (and weight-derived values alone): each recomputed value is rebuilt just before
      // the first backward node that reads it, so the segment between two checkpoints is rebuilt,
      // backpropagated and released before the next one is rebuilt. No separate Recompute task remains.
      std::vector<ir::ValueId> merged;
      std::set<ir::ValueId> emitted;
      std::function<void(ir::ValueId)> rebuild = [&](ir::ValueId v) {
        if (rerun.count(v) == 0 || !emitted.insert(v).second) {
          return;
        }
        for (ir::ValueId in : g.node(v).inputs) {
          rebuild(in);
        }
        merged.push_back(v);
      };
      for (ir::ValueId id : sp.backward) {
        for (ir::ValueId in : g.node(id).inputs) {
          rebuild(in);
        }
        merged.push_back(id);
      }
      sp.backward = std::move(merged);
      rerun.clear();
    }
    sp.recompute.assign(rerun.begin(), rerun.end());
    sp.stash.assign(stash.begin(), stash.end());
    if (split) {
      split_backward(g, train_program, weight_derived, sp);
    }
  }
  return out;
}

namespace {

class Lowering {
 public:
  explicit Lowering(const Plan& plan)
      : plan_(plan),
        g_(plan.graph),
        pipe_(plan.placement.pipeline),
        ipus_(pipe_.ipus_per_replica),
        split_(plan.decided.training && schedule_def(plan.decided.schedule).splits_backward),
        grads_work_(split_ ? Work::BackwardWeights : Work::Backward) {}

  DevicePrograms run() {
    // The last position's backward directly follows its forward: recomputing it saves nothing.
    std::vector<bool> recompute(g_.stages.size(), plan_.decided.recompute != Recomputation::Off);
    for (int32_t s : pipe_.positions.back()) {
      recompute[static_cast<size_t>(s)] = false;
    }
    out_.stages = stage_programs(g_, plan_.program(), recompute,
                                 plan_.decided.recompute == Recomputation::RecomputeAndBackpropagateInterleaved,
                                 plan_.decided.recompute != Recomputation::Off, split_);
    for (const StagePrograms& sp : out_.stages) {
      for (ir::ValueId id : sp.weights) {
        weights_made_.insert(id);
      }
    }
    collect_tasks();
    collect_readers();
    make_messages();
    emit();
    if (schedule_def(plan_.decided.schedule).timesteps_in_turn) {
      add_turn_tokens(out_);
    }
    make_buffers();
    make_channels();
    return std::move(out_);
  }

 private:
  int32_t ipu_of_stage(int32_t s) const { return pipe_.stage_ipu[static_cast<size_t>(s)]; }

  // Tasks per IPU in program order: timeline order, a position's stages in model order.
  void collect_tasks() {
    tasks_.assign(static_cast<size_t>(ipus_), {});
    const auto& steps = plan_.timeline.steps;
    for (size_t t = 0; t < steps.size(); ++t) {
      for (int32_t ipu = 0; ipu < ipus_; ++ipu) {
        for (const Task& task : steps[t][static_cast<size_t>(ipu)]) {
          for (int32_t s : pipe_.positions[static_cast<size_t>(task.position)]) {
            if (ipu_of_stage(s) != ipu) {
              continue;
            }
            tasks_[static_cast<size_t>(ipu)].push_back({s, task.phase, task.micro_batch, static_cast<int32_t>(t)});
          }
        }
      }
    }
  }

  // For every value: the task types (stage, work) that read it. Inputs count as produced by the
  // forward of their stage (the Infeed just before it).
  void collect_readers() {
    readers_.assign(static_cast<size_t>(g_.size()), {});
    auto add = [&](ir::ValueId v, int32_t stage, Work w) {
      auto& r = readers_[static_cast<size_t>(v)];
      const std::pair<int32_t, Work> key{stage, w};
      if (std::find(r.begin(), r.end(), key) == r.end()) {
        r.push_back(key);
      }
    };
    for (size_t s = 0; s < out_.stages.size(); ++s) {
      const auto& sp = out_.stages[s];
      const auto stage = static_cast<int32_t>(s);
      for (ir::ValueId id : sp.forward) {
        for (ir::ValueId in : g_.node(id).inputs) {
          add(in, stage, Work::Forward);
        }
      }
      for (ir::ValueId id : sp.recompute) {
        for (ir::ValueId in : g_.node(id).inputs) {
          add(in, stage, Work::Recompute);
        }
      }
      for (ir::ValueId id : sp.backward) {
        for (ir::ValueId in : g_.node(id).inputs) {
          add(in, stage, Work::Backward);
        }
      }
      for (ir::ValueId id : sp.weights) {
        for (ir::ValueId in : g_.node(id).inputs) {
          add(in, stage, Work::BackwardWeights);
        }
      }
    }
  }

  // The task type that produces `v` (Param and Constant values are not produced by tasks).
  std::pair<int32_t, Work> producer(ir::ValueId v) const {
    const ir::Node& n = g_.node(v);
    if (weights_made_.count(v) != 0) {
      return {n.stage, Work::BackwardWeights};
    }
    return {n.stage, n.phase == ir::Phase::Forward ? Work::Forward : Work::Backward};
  }

  bool travels(ir::ValueId v) const { return !ir::is_resident(g_.node(v)); }

  // Per producer task type and destination IPU: the values it sends (the same every micro-batch).
  void make_messages() {
    for (ir::ValueId v = 0; v < g_.size(); ++v) {
      if (!travels(v) || readers_[static_cast<size_t>(v)].empty()) {
        continue;
      }
      const auto [stage, work] = producer(v);
      const int32_t from = ipu_of_stage(stage);
      for (const auto& [rs, rw] : readers_[static_cast<size_t>(v)]) {
        const int32_t to = ipu_of_stage(rs);
        if (to != from) {
          auto& values = routes_[{group_key(stage, work), to}];
          if (values.empty() || values.back() != v) {
            values.push_back(v);
          }
        }
      }
    }
    // Per route (in routes_ order): which tasks send it and which read it, looked up per task.
    int32_t r = 0;
    for (const auto& [key, values] : routes_) {
      const auto [group, to] = key;
      send_routes_[group].push_back(r);
      std::map<int32_t, uint32_t> works;  // reading stage -> the works that read the route
      for (ir::ValueId v : values) {
        for (const auto& [rs, rw] : readers_[static_cast<size_t>(v)]) {
          works[rs] |= 1U << static_cast<uint32_t>(rw);
        }
      }
      for (const auto& [rs, mask] : works) {
        recv_routes_[{to, rs}].emplace_back(r, mask);
      }
      ++r;
    }
  }

  static Instr at(InstrKind kind, int32_t stage, int64_t m, int32_t step) {
    Instr in;
    in.kind = kind;
    in.stage = stage;
    in.micro_batch = m;
    in.timestep = step;
    return in;
  }

  static InstrKind kind_of(Work w) {
    switch (w) {
      case Work::Forward:
        return InstrKind::Forward;
      case Work::Recompute:
        return InstrKind::Recompute;
      case Work::Backward:
        return InstrKind::Backward;
      case Work::BackwardWeights:
        return InstrKind::BackwardWeights;
    }
    return InstrKind::Backward;
  }

  // One message per route and micro-batch: route r's of micro-batch m is message r * A + m.
  int32_t message_id(int32_t route, int64_t m) const {
    return static_cast<int32_t>(route * plan_.decided.accumulation_count + m);
  }

  void emit() {
    out_.ipus.assign(static_cast<size_t>(ipus_), {});
    emit_messages();
    collect_stage_values();
    for (int32_t ipu = 0; ipu < ipus_; ++ipu) {
      emit_ipu(ipu);
    }
  }

  void emit_messages() {
    const int64_t A = plan_.decided.accumulation_count;
    for (const auto& [key, values] : routes_) {
      const auto [group, to] = key;
      const int32_t stage = stage_of_group(group);
      for (int64_t m = 0; m < A; ++m) {
        Message msg;
        msg.from = ipu_of_stage(stage);
        msg.to = to;
        msg.micro_batch = m;
        msg.values = values;
        for (ir::ValueId v : values) {
          msg.bytes += static_cast<int64_t>(g_.type(v).bytes());
        }
        out_.messages.push_back(std::move(msg));
      }
    }
  }

  // Which stages hold inputs, outputs and parameter gradients.
  void collect_stage_values() {
    // An input is fed where something reads it, or where it is itself an output (`output y = x`).
    const auto is_output = [&](ir::ValueId v) {
      return std::any_of(g_.outputs.begin(), g_.outputs.end(), [&](const auto& o) { return o.value == v; });
    };
    for (ir::ValueId v : g_.inputs) {
      if (!readers_[static_cast<size_t>(v)].empty() || is_output(v)) {
        inputs_of_[g_.node(v).stage].push_back(v);
      }
    }
    for (const auto& o : g_.outputs) {
      outputs_of_[g_.node(o.value).stage].push_back(o.value);
    }
    // A parameter whose gradient has parts in several stages is accumulated by each of them and
    // closes (may be reduced across replicas) after the last of them, in this IPU's task order.
    for (size_t k = 0; k < g_.params.size() && k < plan_.grads.size(); ++k) {
      parts_of_[g_.params[k]] = static_cast<int64_t>(plan_.grads[k].size());
      for (ir::ValueId grad : plan_.grads[k]) {
        std::vector<ir::ValueId>& list = grads_of_[g_.node(grad).stage];
        if (g_.node(grad).phase == ir::Phase::Backward && (list.empty() || list.back() != g_.params[k])) {
          list.push_back(g_.params[k]);
          ++part_stages_[g_.params[k]];
        }
      }
    }
  }

  // What one IPU's emission keeps track of between its tasks.
  struct IpuEmission {
    int32_t ipu = 0;
    std::vector<Instr>* prog = nullptr;
    std::vector<bool> received;            // per message: taken in by an earlier task
    std::set<int64_t> fed;                 // micro-batches already fed
    std::map<int32_t, int32_t> closes_at;  // stage -> parameters whose last part it makes
    std::vector<int32_t> bucket_end;       // index into the IPU's closing order after which a bucket closes
    int32_t first_bucket = 0;
    size_t accumulated_last = 0;  // parameters whose last gradient has been accumulated
    size_t next_bucket = 0;
  };

  // This IPU's parameters with gradients, in the order their last gradient is accumulated.
  std::vector<ir::ValueId> closing_order(IpuEmission& e) {
    std::vector<ir::ValueId> order;
    std::map<ir::ValueId, int32_t> seen;
    for (const TaskRef& t : tasks_[static_cast<size_t>(e.ipu)]) {
      if (t.work == grads_work_ && t.m == plan_.decided.accumulation_count - 1) {
        for (ir::ValueId p : grads_of_[t.stage]) {
          if (++seen[p] == part_stages_.at(p)) {
            order.push_back(p);
            ++e.closes_at[t.stage];
          }
        }
      }
    }
    return order;
  }

  // Buckets of this IPU, cut at the configured size; each is reduced as soon as it is complete.
  void make_buckets(IpuEmission& e, const std::vector<ir::ValueId>& order) {
    if (plan_.placement.replicas > 1) {
      int64_t bytes = 0;
      Bucket bucket;
      bucket.ipu = e.ipu;
      const int64_t limit = plan_.settings.plain.ipu_optimizations_maximum_cross_replica_sum_buffer_size;
      for (size_t k = 0; k < order.size(); ++k) {
        // A host table's gradient is summed over the replicas in host memory, not over the links.
        const int64_t b = is_host_table(g_.node(order[k]))
                              ? 0
                              : static_cast<int64_t>(g_.type(order[k]).bytes()) * parts_of_.at(order[k]);
        if (!bucket.params.empty() && limit > 0 && bytes + b > limit) {
          bucket.bytes = bytes;
          out_.buckets.push_back(bucket);
          e.bucket_end.push_back(static_cast<int32_t>(k));
          bucket.params.clear();
          bytes = 0;
        }
        bucket.params.push_back(order[k]);
        bytes += b;
      }
      if (!bucket.params.empty()) {
        bucket.bytes = bytes;
        out_.buckets.push_back(bucket);
        e.bucket_end.push_back(static_cast<int32_t>(order.size()));
      }
    }
    e.first_bucket = static_cast<int32_t>(out_.buckets.size() - e.bucket_end.size());
  }

  std::vector<Work> works_of(const TaskRef& t) const {
    if (t.work == Work::Backward && !out_.stages[static_cast<size_t>(t.stage)].recompute.empty()) {
      return {Work::Recompute, Work::Backward};
    }
    return {t.work};
  }

  // Receive what a task reads from other IPUs, unless an earlier task received it.
  void receive(IpuEmission& e, const TaskRef& t) {
    const auto routes = recv_routes_.find({e.ipu, t.stage});
    if (routes == recv_routes_.end()) {
      return;
    }
    uint32_t works = 0;
    for (Work w : works_of(t)) {
      works |= 1U << static_cast<uint32_t>(w);
    }
    for (const auto& [route, readers] : routes->second) {
      const int32_t id = message_id(route, t.m);
      if ((readers & works) != 0 && !e.received[static_cast<size_t>(id)]) {
        e.received[static_cast<size_t>(id)] = true;
        Instr in = at(InstrKind::Recv, -1, t.m, t.step);
        in.message = id;
        e.prog->push_back(in);
      }
    }
  }

  // A stage's gradients accumulated; after the last micro-batch, every bucket they complete is reduced.
  void accumulate(IpuEmission& e, const TaskRef& t) {
    Instr in = at(InstrKind::Accumulate, t.stage, t.m, t.step);
    in.values = grads_of_[t.stage];
    e.prog->push_back(in);
    if (t.m != plan_.decided.accumulation_count - 1) {
      return;
    }
    e.accumulated_last += static_cast<size_t>(e.closes_at[t.stage]);
    while (e.next_bucket < e.bucket_end.size() &&
           static_cast<size_t>(e.bucket_end[e.next_bucket]) <= e.accumulated_last) {
      Instr r = at(InstrKind::ReduceReplicas, -1, -1, t.step);
      r.bucket = e.first_bucket + static_cast<int32_t>(e.next_bucket);
      e.prog->push_back(r);
      ++e.next_bucket;
    }
  }

  void run_task(IpuEmission& e, const TaskRef& t) {
    if (t.work == Work::Forward && inputs_of_.count(t.stage) != 0 && e.fed.insert(t.m).second) {
      Instr in = at(InstrKind::Infeed, -1, t.m, t.step);
      in.values = inputs_of_[t.stage];
      e.prog->push_back(in);
    }
    for (Work w : works_of(t)) {
      e.prog->push_back(at(kind_of(w), t.stage, t.m, t.step));
    }
    // Send what this task produced to the IPUs that read it.
    const auto sends = send_routes_.find(group_key(t.stage, t.work));
    for (size_t k = 0; sends != send_routes_.end() && k < sends->second.size(); ++k) {
      Instr in = at(InstrKind::Send, -1, t.m, t.step);
      in.message = message_id(sends->second[k], t.m);
      e.prog->push_back(in);
    }
    if (t.work == Work::Forward && outputs_of_.count(t.stage) != 0) {
      Instr in = at(InstrKind::Outfeed, -1, t.m, t.step);
      in.values = outputs_of_[t.stage];
      e.prog->push_back(in);
    }
    if (t.work == grads_work_ && grads_of_.count(t.stage) != 0) {
      accumulate(e, t);
    }
  }

  void emit_ipu(int32_t ipu) {
    IpuEmission e;
    e.ipu = ipu;
    e.prog = &out_.ipus[static_cast<size_t>(ipu)];
    e.received.assign(out_.messages.size(), false);
    make_buckets(e, closing_order(e));
    for (const TaskRef& t : tasks_[static_cast<size_t>(ipu)]) {
      receive(e, t);
      run_task(e, t);
    }
    if (!plan_.decided.training) {
      return;  // inference: no weight update
    }
    const int32_t last_step = plan_.timeline.timesteps() > 0 ? static_cast<int32_t>(plan_.timeline.timesteps() - 1) : 0;
    Instr update = at(InstrKind::UpdateWeights, -1, -1, last_step);
    for (size_t k = 0; k < g_.params.size(); ++k) {
      if (plan_.placement.param_ipu[k] == ipu) {
        update.values.push_back(g_.params[k]);
      }
    }
    e.prog->push_back(update);
  }

  // The parameters each IPU holds; where every other value lives is the buffer assignment's
  // business (planner/buffer_assignment.hpp).
  void make_buffers() {
    out_.buffers.assign(static_cast<size_t>(ipus_), {});
    for (size_t k = 0; k < g_.params.size(); ++k) {
      const ir::ValueId p = g_.params[k];
      auto& buffers = out_.buffers[static_cast<size_t>(plan_.placement.param_ipu[k])];
      if (!is_host_table(g_.node(p))) {
        buffers.push_back({p, BufferClass::Param, 1, static_cast<int64_t>(g_.type(p).bytes())});
        continue;
      }
      buffers.push_back({p, BufferClass::HostTable, 1, static_cast<int64_t>(g_.type(p).bytes())});
      for (ir::ValueId part : k < plan_.grads.size() ? plan_.grads[k] : GradParts{}) {
        buffers.push_back({part, BufferClass::HostGradient, 1, static_cast<int64_t>(g_.type(part).bytes())});
      }
    }
  }

  // Channel capacity: the most messages in flight on it when every IPU keeps to the timeline
  // (sends at the end of their timestep, receives at the start of theirs).
  void make_channels() {
    std::map<std::pair<int32_t, int32_t>, std::vector<std::pair<int32_t, int32_t>>> flights;
    std::vector<int32_t> sent_at(out_.messages.size(), 0);
    std::vector<int32_t> received_at(out_.messages.size(), 0);
    for (const auto& prog : out_.ipus) {
      for (const Instr& in : prog) {
        if (in.kind == InstrKind::Send) {
          sent_at[static_cast<size_t>(in.message)] = in.timestep;
        } else if (in.kind == InstrKind::Recv) {
          received_at[static_cast<size_t>(in.message)] = in.timestep;
        }
      }
    }
    std::map<std::pair<int32_t, int32_t>, Channel> channels;
    for (size_t k = 0; k < out_.messages.size(); ++k) {
      const Message& msg = out_.messages[k];
      flights[{msg.from, msg.to}].emplace_back(sent_at[k], received_at[k]);
      Channel& c = channels[{msg.from, msg.to}];
      c.from = msg.from;
      c.to = msg.to;
      c.max_message_bytes = std::max(c.max_message_bytes, msg.bytes);
    }
    for (auto& [key, c] : channels) {
      // The most messages in flight during any timestep t when the IPUs keep in step: those sent
      // at or before t and received at or after it (every send of a timestep may come before every
      // receive). With that room no instruction of the lock-step run ever waits, so it is a valid
      // execution; and links with blocking sends and receives form a Kahn network (a bounded
      // link is a link plus credit tokens flowing back), whose outcome does not depend on the
      // order the threads run in: no execution deadlocks.
      std::map<int32_t, int32_t> change;
      for (const auto& [s, r] : flights[key]) {
        change[s] += 1;
        change[r + 1] -= 1;
      }
      int32_t most = 1;
      int32_t live = 0;
      for (const auto& [step, delta] : change) {
        live += delta;
        most = std::max(most, live);
      }
      c.capacity = most;
      out_.channels.push_back(c);
    }
  }

  const Plan& plan_;
  const ir::Graph& g_;
  const Pipeline& pipe_;
  int32_t ipus_;
  bool split_;                          // the schedule runs each backward as Backward + BackwardWeights
  Work grads_work_;                     // the task after which a stage's parameter gradients are complete
  std::set<ir::ValueId> weights_made_;  // nodes the BackwardWeights tasks run
  DevicePrograms out_;
  std::vector<std::vector<TaskRef>> tasks_;
  std::vector<std::vector<std::pair<int32_t, Work>>> readers_;
  std::map<std::pair<int32_t, int32_t>, std::vector<ir::ValueId>> routes_;  // (group, to) -> values
  std::map<int32_t, std::vector<int32_t>> send_routes_;  // group -> its routes (indices in routes_ order)
  // (to, reading stage) -> its routes and, per route, the works reading it (bit per Work)
  std::map<std::pair<int32_t, int32_t>, std::vector<std::pair<int32_t, uint32_t>>> recv_routes_;
  std::map<int32_t, std::vector<ir::ValueId>> inputs_of_, outputs_of_, grads_of_;  // per stage
  std::map<ir::ValueId, int32_t> part_stages_;  // parameter -> stages that make a part of its gradient
  std::map<ir::ValueId, int64_t> parts_of_;     // parameter -> its gradient's parts (accumulators)
};

}  // namespace

DevicePrograms lower(const Plan& plan) { return Lowering(plan).run(); }

}  // namespace iputrain::planner
