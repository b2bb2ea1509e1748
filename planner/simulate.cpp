#include "planner/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/optim_table.hpp"
#include "core/shard_rule.hpp"
#include "iputrain/error.hpp"
#include "planner/collectives.hpp"
#include "planner/host_tables.hpp"
#include "planner/sharding.hpp"
#include "planner/topology.hpp"

namespace iputrain::planner {

namespace {

// A collective over the replicas' copies of this IPU, per level of the topology, in cycles, and
// the IPU's synchronisation before it (across racks when the plan spans several Pods).
void add_collective(InstrCost& c, const Plan& plan, const Topology& topology, Collective kind, double bytes) {
  const DeviceModel& d = plan.decided.device;
  const std::vector<double> seconds = collective_seconds(topology, kind, bytes);
  for (size_t i = 0; i < seconds.size() && i < c.collective.size(); ++i) {
    c.collective[i] += seconds[i] * d.clock_hz;
  }
  c.sync += d.sync_cycles;
  c.collective.back() += cross_rack_sync_seconds(plan.placement.topology) * d.clock_hz;
}

double transfer_cycles(double bytes, double bytes_per_second, const DeviceModel& d) {
  return bytes / bytes_per_second * d.clock_hz;
}

// The nodes' kernels, exchange and fixed costs (recomputed forward nodes are in the lists they run in).
void add_nodes(InstrCost& c, const Plan& plan, const std::vector<ir::ValueId>& nodes) {
  for (ir::ValueId id : nodes) {
    if (host_node(plan, id)) {
      // A host table's lookup or scatter runs on the host: the IPU waits for its rows to stream
      // in, or streams their gradients out, over the host link (as the infeed does).
      const auto bytes = static_cast<double>(host_link_bytes(plan, id));
      c.host_io += transfer_cycles(bytes, plan.decided.device.host_bytes_per_second, plan.decided.device);
      continue;
    }
    const OpCost op = op_cost(plan.graph, id, plan.decided.device);
    c.compute += op.compute;
    c.exchange += op.exchange;
    c.sync += op.sync;
    // A matmul's or convolution's passes beyond the first read their operands again.
    const ir::Node& n = plan.graph.node(id);
    c.compute += op_temporaries(plan.graph, id, plan.limits(n.stage, n.phase), plan.decided.device).extra_cycles;
    if (const std::optional<NodeCollective> nc = node_collective(plan, id)) {
      add_collective(c, plan, nc->topology, nc->kind, nc->bytes);  // the model's own, over its group
    }
  }
}

int64_t values_bytes(const ir::Graph& g, const std::vector<ir::ValueId>& values) {
  int64_t bytes = 0;
  for (ir::ValueId v : values) {
    bytes += static_cast<int64_t>(g.type(v).bytes());
  }
  return bytes;
}

// A memory- or compute-bound pass over parameter-sized tensors (the accumulate and the optimizer
// update are both of this kind), as one superstep: its operands already sit where it runs.
void add_elementwise(InstrCost& c, const Plan& plan, double flops, double bytes) {
  const DeviceModel& d = plan.decided.device;
  const double tiles = static_cast<double>(d.compute_tiles());
  c.compute += std::max(flops / (tiles * d.f32_flops_per_tile_cycle), bytes / (tiles * d.bytes_per_tile_cycle));
  c.sync += d.compute_set_cycles + d.sync_cycles;
}

double elements_of(const ir::Graph& g, const std::vector<ir::ValueId>& values) {
  double n = 0;
  for (ir::ValueId v : values) {
    n += static_cast<double>(g.type(v).numel());
  }
  return n;
}

bool is_compute(InstrKind k) { return is_task(k); }

// Instructions that run kernels on the tiles (the rest move data over links).
bool is_kernel(InstrKind k) {
  return is_compute(k) || k == InstrKind::Accumulate || k == InstrKind::UpdateWeights;
}

// Bytes per second between two IPUs of a replica: the IPU's links within its machine
// (device.ipu_link_bandwidth), or only those to other machines when the two sit in different ones.
double link_bandwidth(const Plan& plan, int32_t from, int32_t to) {
  const double within = plan.decided.device.link_bytes_per_second;
  const auto& physical = plan.placement.physical;
  const SystemSection& s = plan.placement.topology.system;
  if (physical.empty() || s.ipus_per_machine <= 0 || from < 0 || to < 0 ||
      static_cast<size_t>(std::max(from, to)) >= physical[0].size()) {
    return within;
  }
  const int32_t a = physical[0][static_cast<size_t>(from)];
  const int32_t b = physical[0][static_cast<size_t>(to)];
  if (a / s.ipus_per_machine == b / s.ipus_per_machine) {
    return within;
  }
  return std::min(within, static_cast<double>(s.links_between_machines) * s.ipu_link_bandwidth);
}

// A task: its nodes' kernels and, with sharded weights, the all-gather of the full weights it
// reads from the replicas' blocks (offloaded, the replica's own blocks come from remote memory first).
// The weights of `values` the IPU updates: a host table is accumulated and updated by the host.
std::vector<ir::ValueId> ipu_weights(const Plan& plan, const std::vector<ir::ValueId>& values) {
  std::vector<ir::ValueId> out;
  for (ir::ValueId v : values) {
    if (!is_host_table(plan.graph.node(v))) {
      out.push_back(v);
    }
  }
  return out;
}

InstrCost task_cost(const Plan& plan, const Instr& instr) {
  const PlanDecisions& pd = plan.decided;
  InstrCost c;
  add_nodes(c, plan, plan.programs.stages.at(static_cast<size_t>(instr.stage)).nodes(instr.kind));
  const auto gathered = static_cast<double>(task_gather_bytes(plan, instr.stage, instr.kind));
  if (gathered > 0) {
    add_collective(c, plan, plan.placement.topology, Collective::AllGather, gathered);
    if (pd.offload_weights) {
      c.remote = transfer_cycles(gathered / plan.placement.replicas, pd.device.host_bytes_per_second, pd.device);
    }
  }
  return c;
}

// The pass an optimizer's row declares for its whole-tensor norms (LAMB, LARS): its reads and
// FLOPs as one more element-wise compute set, and under sharded state the gather of every
// replica's sums of squares (norms per grain, in double) before the step. `n`: the values' elements.
void add_norm_pass(InstrCost& c, const Plan& plan, const std::vector<ir::ValueId>& values, double n, double shards) {
  const NormPass& pass = optimizer_def(plan.settings.optimizer).norm_pass;
  if (pass.norms == 0) {
    return;
  }
  add_elementwise(c, plan, pass.flops * n / shards, pass.arrays_read * 4.0 * n / shards);
  if (shards > 1) {
    double grains = 0;
    for (ir::ValueId v : values) {
      grains += static_cast<double>(shard_grains(plan.graph.type(v).numel()));
    }
    add_collective(c, plan, plan.placement.topology, Collective::AllGather, pass.norms * grains * 8.0);
  }
}

// The optimizer reads the weight and the gradient, reads and writes each state slot and writes
// the weight, at about 3 FLOPs per slot (scale, add, and adam's square root/divide), after the
// pass its norms take, if any (add_norm_pass). State (and an
// offloaded f32 master copy) kept in remote memory crosses the host link both ways. Sharded state:
// each replica updates (and streams) only its share, then all-gathers the weights (sharded weights
// stay sharded: the tasks gather what they read).
InstrCost update_cost(const Plan& plan, const Instr& instr) {
  const Settings& s = plan.settings;
  const PlanDecisions& pd = plan.decided;
  const DeviceModel& d = pd.device;
  const std::vector<ir::ValueId> values = ipu_weights(plan, instr.values);
  const double n = elements_of(plan.graph, values);
  const auto weights = static_cast<double>(values_bytes(plan.graph, values));
  int64_t state_floats = 0;  // the optimizer's state of the whole tensors (2 n for adam)
  for (ir::ValueId v : values) {
    state_floats += optimizer_state_floats(s.optimizer, plan.graph.type(v).shape);
  }
  const double acc = static_cast<double>(dtype_size(accumulation_dtype(s)));
  const auto state = static_cast<double>(optimizer_state_bytes(1, state_floats, state_dtype_of(s)));
  const double shards = state_sharded(plan) ? plan.placement.replicas : 1;
  InstrCost c;
  add_elementwise(c, plan, (2 * n + 3 * static_cast<double>(state_floats)) / shards,
                  (2 * weights + 2 * state + acc * n) / shards);
  if (shards > 1 && !weights_sharded(plan)) {
    add_collective(c, plan, plan.placement.topology, Collective::AllGather, weights);
  }
  add_norm_pass(c, plan, values, n, shards);
  double host_bytes = pd.offload_optimizer_state ? 2 * state / shards : 0;
  if (s.plain.training_master_weights == MasterWeightsPlace::Offloaded && is_half(d.compute)) {
    host_bytes += 2 * weights;
  }
  if (weights_sharded(plan) && pd.offload_weights) {
    host_bytes += 2 * weights / shards;  // the blocks are read from and written back to remote memory
  }
  c.remote = host_bytes > 0 ? transfer_cycles(host_bytes, d.host_bytes_per_second, d) : 0;
  return c;
}

}  // namespace

double InstrCost::total() const {
  double sum = compute + exchange + sync + pipeline + remote + host_io;
  for (double c : collective) {
    sum += c;
  }
  return sum;
}

InstrCost instr_cost(const Plan& plan, const Instr& instr) {
  const DevicePrograms& p = plan.programs;
  const Settings& s = plan.settings;
  const PlanDecisions& pd = plan.decided;
  const DeviceModel& d = pd.device;
  const ir::Graph& g = plan.graph;
  InstrCost c;
  switch (instr.kind) {
    case InstrKind::Forward:
    case InstrKind::Recompute:
    case InstrKind::Backward:
    case InstrKind::BackwardWeights:
      return task_cost(plan, instr);
    // Both ends of an IPU-Link copy take part in it for as long as the bytes take to cross.
    case InstrKind::Send:
    case InstrKind::Recv: {
      const Message& m = p.messages.at(static_cast<size_t>(instr.message));
      c.pipeline = transfer_cycles(static_cast<double>(m.bytes), link_bandwidth(plan, m.from, m.to), d);
      return c;
    }
    case InstrKind::Infeed:
    case InstrKind::Outfeed: {
      // On I/O tiles the host transfer streams while the compute tiles work: only the hand-over
      // between the two tile sets is on this IPU's clock.
      const double full =
          transfer_cycles(static_cast<double>(values_bytes(g, instr.values)), d.host_bytes_per_second, d);
      c.host_io = d.feeds_on_io_tiles ? std::min(d.sync_cycles + d.compute_set_cycles, full) : full;
      return c;
    }
    case InstrKind::Accumulate: {
      // acc += grad: read the gradient (the parameter's size), read and write the accumulator.
      const std::vector<ir::ValueId> values = ipu_weights(plan, instr.values);
      const double n = elements_of(g, values);
      const double acc = static_cast<double>(dtype_size(accumulation_dtype(s)));
      add_elementwise(c, plan, n, static_cast<double>(values_bytes(g, values)) + 2 * acc * n);
      // Offloaded, each accumulation copies the accumulator in from remote memory and back out.
      c.remote = pd.offload_accumulators ? transfer_cycles(2 * acc * n, d.host_bytes_per_second, d) : 0;
      return c;
    }
    case InstrKind::ReduceReplicas:
      // All-reduce of the bucket over the topology; with sharded optimizer state only its
      // reduce-scatter half runs here and the update gathers the new weights (UpdateWeights).
      if (plan.placement.replicas > 1) {
        add_collective(c, plan, plan.placement.topology,
                       state_sharded(plan) ? Collective::ReduceScatter : Collective::AllReduce,
                       static_cast<double>(p.buckets.at(static_cast<size_t>(instr.bucket)).bytes));
      }
      return c;
    case InstrKind::UpdateWeights:
      return update_cost(plan, instr);
  }
  return c;
}

double instr_cycles(const Plan& plan, const Instr& instr) { return instr_cost(plan, instr).total(); }

namespace {

// Discrete-event simulation of one accumulation cycle of the IPUs of one replica (every replica
// runs the same programs at the same time, so one stands for all; the collective's cost is in
// ReduceReplicas' cycles). Each IPU runs its program in order; an instruction starts when the IPU
// is free and its inputs are there:
// - Recv starts no earlier than its Send (with zero-cost links: when the Send has ended);
// - Send waits for a free slot of its channel: fewer than `capacity` of the messages sent before
//   it on that channel may still be unreceived. The receiver takes them in its program order, so
//   their receives start in that order, and the k-th send (0-based) on a channel may start once
//   the (k - capacity)-th receive on it has started. (Counting the sends instead, as if the link
//   delivered in send order, makes the sender wait for a receive that comes after a message it has
//   not sent yet when the order differs: a false deadlock.)
class Simulation {
 public:
  explicit Simulation(const Plan& plan) : plan_(plan), p_(plan.programs) {
    const size_t ipus = p_.ipus.size();
    start_.resize(ipus);
    end_.resize(ipus);
    for (size_t i = 0; i < ipus; ++i) {
      start_[i].assign(p_.ipus[i].size(), -1);
      end_[i].assign(p_.ipus[i].size(), -1);
    }
    const size_t messages = p_.messages.size();
    send_at_.assign(messages, {-1, -1});
    recv_at_.assign(messages, {-1, -1});
    channel_order_.assign(messages, 0);
    // Per channel: its messages in the order the receiver takes them (its program order), which
    // need not be the order they were sent in (a value sent early to a far stage and a gradient
    // sent late to a near one share the link between two IPUs).
    std::map<std::pair<int32_t, int32_t>, std::vector<int32_t>> received;
    std::map<std::pair<int32_t, int32_t>, int32_t> sent;
    for (const auto& program : p_.ipus) {
      for (const Instr& in : program) {
        const Message* m = in.message >= 0 ? &p_.messages[static_cast<size_t>(in.message)] : nullptr;
        if (in.kind == InstrKind::Send) {
          channel_order_[static_cast<size_t>(in.message)] = sent[{m->from, m->to}]++;
        } else if (in.kind == InstrKind::Recv) {
          received[{m->from, m->to}].push_back(in.message);
        }
      }
    }
    for (const Channel& c : p_.channels) {
      auto it = received.find({c.from, c.to});
      if (it != received.end()) {
        channel_[{c.from, c.to}] = {c.capacity, it->second};
      }
    }
  }

  void run() {
    const size_t ipus = p_.ipus.size();
    std::vector<size_t> next(ipus, 0);
    std::vector<double> clock(ipus, 0.0);
    size_t left = 0;
    for (const auto& program : p_.ipus) {
      left += program.size();
    }
    // Cost per (kind, stage) of the compute instructions: the same for every micro-batch.
    std::map<std::pair<InstrKind, int32_t>, double> task_cost;
    while (left > 0) {
      bool moved = false;
      for (size_t i = 0; i < ipus; ++i) {
        while (next[i] < p_.ipus[i].size()) {
          const Instr& in = p_.ipus[i][next[i]];
          double ready = clock[i];
          if (!inputs_ready(in, ready)) {
            break;
          }
          double cycles = 0;
          if (is_compute(in.kind)) {
            auto [it, fresh] = task_cost.try_emplace({in.kind, in.stage}, 0.0);
            if (fresh) {
              it->second = instr_cycles(plan_, in);
            }
            cycles = it->second;
          } else {
            cycles = instr_cycles(plan_, in);
          }
          // A Recv starts no earlier than its Send and lasts as long, so it ends after the Send.
          const double end = ready + cycles;
          if (in.kind == InstrKind::Recv) {
            recv_at_[static_cast<size_t>(in.message)] = {ready, end};
          } else if (in.kind == InstrKind::Send) {
            send_at_[static_cast<size_t>(in.message)] = {ready, end};
          }
          start_[i][next[i]] = ready;
          end_[i][next[i]] = end;
          clock[i] = end;
          ++next[i];
          --left;
          moved = true;
        }
      }
      if (!moved) {
        throw Error(ErrorKind::Internal, deadlock_message(next),
                    {}, "the per-IPU programs wait for each other; please report this plan");
      }
    }
  }

  const std::vector<std::vector<double>>& starts() const { return start_; }
  const std::vector<std::vector<double>>& ends() const { return end_; }

 private:
  // Updates `ready` to when `in` may start; false if that depends on an instruction not simulated yet.
  bool inputs_ready(const Instr& in, double& ready) const {
    if (in.kind == InstrKind::Recv) {
      const double send_start = send_at_[static_cast<size_t>(in.message)].first;
      if (send_start < 0) {
        return false;
      }
      ready = std::max(ready, send_start);
    } else if (in.kind == InstrKind::Send) {
      const Message& m = p_.messages[static_cast<size_t>(in.message)];
      const auto it = channel_.find({m.from, m.to});
      if (it != channel_.end()) {
        const auto& [capacity, received] = it->second;
        const int32_t k = channel_order_[static_cast<size_t>(in.message)] - capacity;
        if (k >= 0) {
          const double freed = recv_at_[static_cast<size_t>(received.at(static_cast<size_t>(k)))].first;
          if (freed < 0) {
            return false;
          }
          ready = std::max(ready, freed);
        }
      }
    }
    return true;
  }

  std::string deadlock_message(const std::vector<size_t>& next) const {
    std::string out = "the cycle simulation found the IPU programs deadlocked:";
    for (size_t i = 0; i < next.size(); ++i) {
      if (next[i] < p_.ipus[i].size()) {
        out += fmt::format(" IPU {} waits at `{}`;", i, p_.ipus[i][next[i]].str(p_));
      }
    }
    return out;
  }

  const Plan& plan_;
  const DevicePrograms& p_;
  std::vector<std::vector<double>> start_;
  std::vector<std::vector<double>> end_;
  std::vector<std::pair<double, double>> send_at_;  // per message: (start, end) of its Send
  std::vector<std::pair<double, double>> recv_at_;
  std::vector<int32_t> channel_order_;              // per message: index among its channel's sends
  // per channel: its capacity and its messages in receive order
  std::map<std::pair<int32_t, int32_t>, std::pair<int32_t, std::vector<int32_t>>> channel_;
};

// Where the cycle (`cycle` long) goes on IPU `ipu`, the busiest, in seconds; the
// update's host round trip is `host_cycles`.
UpdateBreakdown breakdown_of(const Plan& plan, size_t ipu, double cycle, double host_cycles) {
  const double hz = plan.decided.device.clock_hz;
  InstrCost sum;
  std::map<std::pair<InstrKind, int32_t>, InstrCost> tasks;  // the same for every micro-batch
  for (const Instr& in : plan.programs.ipus.at(ipu)) {
    InstrCost c;
    if (is_compute(in.kind)) {
      auto [it, fresh] = tasks.try_emplace({in.kind, in.stage});
      if (fresh) {
        it->second = instr_cost(plan, in);
      }
      c = it->second;
    } else {
      c = instr_cost(plan, in);
    }
    sum.compute += c.compute;
    sum.exchange += c.exchange;
    sum.sync += c.sync;
    sum.pipeline += c.pipeline;
    sum.remote += c.remote;
    sum.host_io += c.host_io;
    for (size_t l = 0; l < c.collective.size(); ++l) {
      sum.collective[l] += c.collective[l];
    }
  }
  UpdateBreakdown b;
  b.compute = sum.compute / hz;
  b.exchange = sum.exchange / hz;
  b.sync = sum.sync / hz;
  b.pipeline = sum.pipeline / hz;
  b.remote_memory = sum.remote / hz;
  b.host_io = sum.host_io / hz;
  for (size_t l = 0; l < sum.collective.size(); ++l) {
    b.collectives[l] = sum.collective[l] / hz;
  }
  b.idle = std::max(0.0, cycle - sum.total()) / hz;
  b.host_sync = host_cycles / hz;
  const std::vector<std::pair<const char*, double>> parts = {{"compute", b.compute},
                                                             {"in-IPU exchange", b.exchange},
                                                             {"synchronisation", b.sync},
                                                             {"pipeline transfers", b.pipeline},
                                                             {"collectives within machines", b.collectives[0]},
                                                             {"collectives over IPU-Links", b.collectives[1]},
                                                             {"collectives over GW-Links", b.collectives[2]},
                                                             {"remote memory", b.remote_memory},
                                                             {"host I/O on the IPUs", b.host_io},
                                                             {"idle (pipeline bubble and waits)", b.idle},
                                                             {"host sync", b.host_sync}};
  b.bound = std::max_element(parts.begin(), parts.end(), [](const auto& x, const auto& y) {
              return x.second < y.second;
            })->first;
  return b;
}

// Bytes the infeed and outfeed of every replica carry per update: what the hosts send and receive.
double feed_bytes(const Plan& plan) {
  double bytes = 0;
  for (const auto& program : plan.programs.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::Infeed || in.kind == InstrKind::Outfeed) {
        bytes += static_cast<double>(values_bytes(plan.graph, in.values));
      }
    }
  }
  return bytes * plan.placement.replicas;
}

// Bytes the host tables' rows and row gradients carry over the host links per update, every replica.
double host_table_bytes(const Plan& plan) {
  if (!has_host_tables(plan.graph)) {
    return 0;
  }
  double bytes = 0;
  for (ir::ValueId id = 0; id < plan.graph.size(); ++id) {
    bytes += static_cast<double>(host_link_bytes(plan, id));
  }
  return bytes * static_cast<double>(plan.decided.accumulation_count) * plan.placement.replicas;
}

}  // namespace

CostReport simulate_plan(const Plan& plan) {
  const Settings& s = plan.settings;
  const PlanDecisions& pd = plan.decided;
  const DeviceModel& d = pd.device;
  const DevicePrograms& p = plan.programs;
  CostReport report;
  report.analytic_bubble_fraction =
      analytic_bubble(plan.placement.pipeline, pd.schedule, pd.accumulation_count, pd.training);

  Simulation sim(plan);
  sim.run();
  const size_t ipus = p.ipus.size();
  double cycle = 0;
  // The bubble is idle time within the pipelined part: from the first to the last instruction of
  // the micro-batches' tasks (the weight update and the reductions are outside it, as in the
  // analytic formula). A task's own transfers and its accumulate count as its work, so with free
  // links and balanced stages only the waits the schedule forces remain, which is what the
  // formula counts.
  double window_start = -1;
  double window_end = 0;
  std::vector<double> task_busy(ipus, 0.0);
  std::vector<double> busy(ipus, 0.0);
  std::vector<double> occupied(ipus, 0.0);  // every instruction's time
  for (size_t i = 0; i < ipus; ++i) {
    for (size_t k = 0; k < p.ipus[i].size(); ++k) {
      const InstrKind kind = p.ipus[i][k].kind;
      const double start = sim.starts()[i][k];
      const double end = sim.ends()[i][k];
      cycle = std::max(cycle, end);
      occupied[i] += end - start;
      if (is_kernel(kind)) {
        busy[i] += end - start;
      }
      if (kind != InstrKind::ReduceReplicas && kind != InstrKind::UpdateWeights) {
        task_busy[i] += end - start;
        window_start = window_start < 0 ? start : std::min(window_start, start);
        window_end = std::max(window_end, end);
      }
    }
  }
  // The host's part of an engine call is shared by the weight updates the call runs.
  const double updates_per_call = static_cast<double>(std::max<int64_t>(1, s.plain.training_steps_per_execution)) *
                                  static_cast<double>(std::max<int64_t>(1, s.plain.pipeline_repeat_count));
  report.cycles_per_update = cycle + d.host_call_cycles / updates_per_call;
  // The hosts stream the next samples while the IPUs work (prefetch): they bound the update only
  // when their network is the slower of the two.
  size_t busiest = 0;
  for (size_t i = 0; i < ipus; ++i) {
    busiest = occupied[i] > occupied[busiest] ? i : busiest;
  }
  report.breakdown =
      ipus > 0 ? breakdown_of(plan, busiest, cycle, d.host_call_cycles / updates_per_call) : UpdateBreakdown{};
  report.feed_bytes_per_update = feed_bytes(plan);
  report.host_table_bytes_per_update = host_table_bytes(plan);
  const Topology& topology = plan.placement.topology;
  report.breakdown.host_network =
      topology.host_seconds(report.feed_bytes_per_update + report.host_table_bytes_per_update);
  report.breakdown.host_cpu = topology.host_cpu_seconds(static_cast<double>(plan.global_batch()));
  report.breakdown.host_feed = std::max(report.breakdown.host_network, report.breakdown.host_cpu);
  const double device_seconds = report.cycles_per_update / d.clock_hz;
  if (report.breakdown.host_feed > device_seconds) {
    report.breakdown.bound = report.breakdown.host_cpu > report.breakdown.host_network ? "host CPU" : "host feed";
  }
  report.seconds_per_update = std::max(device_seconds, report.breakdown.host_feed);
  report.samples_per_second =
      report.seconds_per_update > 0 ? static_cast<double>(plan.global_batch()) / report.seconds_per_update : 0;
  report.utilisation.resize(ipus);
  double mean_task_share = 0;
  for (size_t i = 0; i < ipus; ++i) {
    report.utilisation[i] = report.cycles_per_update > 0 ? busy[i] / report.cycles_per_update : 0;
    const double window = window_end - window_start;
    mean_task_share += window > 0 ? task_busy[i] / window : 0;
  }
  report.bubble_fraction = ipus > 0 && window_start >= 0 ? 1.0 - mean_task_share / static_cast<double>(ipus) : 0;

  for (const Message& m : p.messages) {
    report.link_bytes_per_update += static_cast<double>(m.bytes);
  }
  const double r = plan.placement.replicas;
  // A ring all-reduce sends 2 (R - 1) / R of the bucket; with sharded optimizer state the
  // reduce-scatter half runs here and the update all-gathers (R - 1) / R of the new weights.
  // Sharded weights are gathered before every task that reads them instead.
  const double halves = state_sharded(plan) ? 1 : 2;
  for (const Bucket& b : p.buckets) {
    report.reduce_bytes_per_update += r > 1 ? halves * (r - 1) / r * static_cast<double>(b.bytes) : 0;
  }
  for (const auto& program : p.ipus) {
    for (const Instr& in : program) {
      if (in.kind == InstrKind::UpdateWeights && state_sharded(plan) && !weights_sharded(plan)) {
        report.gather_bytes_per_update += (r - 1) / r * static_cast<double>(values_bytes(plan.graph, in.values));
      } else if (is_task(in.kind)) {
        report.gather_bytes_per_update += r > 1 ? (r - 1) / r * static_cast<double>(task_gather_bytes(plan, in.stage, in.kind)) : 0;
        report.model_collective_bytes_per_update +=
            model_collective_bytes(plan, p.stages[static_cast<size_t>(in.stage)].nodes(in.kind));
      }
    }
  }
  return report;
}

}  // namespace iputrain::planner
