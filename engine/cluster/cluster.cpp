#include "engine/cluster/cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/optim_table.hpp"
#include "core/parallel.hpp"
#include "engine/cluster/instance_reduce.hpp"
#include "engine/cluster/worker.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

// What the outfeed queue carries: the model's outputs, minus those pipeline.outfeed_mask drops
// (one flag per output of the last stage), or only the loss with pipeline.outfeed_loss.
OutfeedSpec outfeed_spec(const ir::Graph& g, const Settings& run) {
  OutfeedSpec spec;
  spec.last_only = run.plain.training_outfeed_mode == OutfeedMode::Last;
  spec.accumulate = run.plain.pipeline_accumulate_outfeed;
  spec.accumulate_f16 = run.plain.pipeline_accumulate_outfeed_dtype == AccumulatorType::Fp16;
  if (run.plain.pipeline_outfeed_loss && g.loss != ir::kNoValue) {
    std::string name = "loss";
    for (const auto& o : g.outputs) {
      name = o.value == g.loss ? o.name : name;
    }
    spec.values.push_back(g.loss);
    spec.names.push_back(name);
    return spec;
  }
  const int32_t last_stage = static_cast<int32_t>(g.stages.size()) - 1;
  size_t flag = 0;
  for (const auto& o : g.outputs) {
    const bool in_last = g.node(o.value).stage == last_stage;
    const std::vector<bool>& mask = run.plain.pipeline_outfeed_mask;
    const bool masked = in_last && flag < mask.size() && mask[flag];
    flag += in_last ? 1 : 0;
    if (!masked) {
      spec.values.push_back(o.value);
      spec.names.push_back(o.name);
    }
  }
  return spec;
}

}  // namespace

Cluster::Cluster(const planner::Plan& plan, const Settings& settings, int32_t instance)
    : shared_(std::make_unique<ClusterShared>(plan, settings, instance)),
      spread_(settings.plain.engine_spread_kernels) {
  ClusterShared& s = *shared_;
  // Before any worker starts: the kernels of every virtual IPU share this arena.
  par::set_threads(settings.plain.engine_threads);
  const planner::DevicePrograms& dp = plan.programs;
  if (static_cast<int32_t>(dp.ipus.size()) != s.ipus || static_cast<int32_t>(dp.buffers.size()) != s.ipus ||
      static_cast<int32_t>(plan.placement.physical.size()) != s.replicas) {
    throw Error(ErrorKind::Internal,
                fmt::format("the plan has programs for {} IPUs and buffers for {}, but {} IPUs per replica",
                            dp.ipus.size(), dp.buffers.size(), s.ipus));
  }
  s.outputs = static_cast<int64_t>(plan.graph.outputs.size());
  s.outfeed = std::make_unique<HostOutfeed>(plan.graph, outfeed_spec(plan.graph, settings), s.replicas, s.micro_batches,
                                            s.max_updates);
  for (size_t c = 0; c < dp.channels.size(); ++c) {
    s.channel_index[{dp.channels[c].from, dp.channels[c].to}] = static_cast<int32_t>(c);
  }
  for (int32_t r = 0; r < s.local_replicas; ++r) {
    for (const planner::Channel& c : dp.channels) {
      s.mailboxes.push_back(std::make_unique<Mailbox>(c.capacity, c.max_message_bytes));
    }
    s.clip_meet.push_back(std::make_unique<Rendezvous>(s.ipus));
    auto& squares = s.clip_squares.emplace_back();
    for (auto& generation : squares) {
      generation.assign(plan.graph.params.size(), 0.0);
    }
  }
  const size_t exchanged = largest_exchange(plan);
  for (int32_t i = 0; i < s.ipus; ++i) {
    s.reduce_meet.push_back(std::make_unique<Rendezvous>(s.local_replicas));
    if (s.replicas > 1) {
      s.exchanges.push_back(std::make_unique<ExchangeStaging>(s.local_replicas, s.replicas, exchanged));
    }
  }
  s.trees.resize(static_cast<size_t>(s.ipus));
  std::vector<std::string> names;
  for (int32_t r = s.first_replica; r < s.first_replica + s.local_replicas; ++r) {
    for (int32_t i = 0; i < s.ipus; ++i) {
      names.push_back(fmt::format("IPU {} (replica {}, ipu {})",
                                  plan.placement.physical[static_cast<size_t>(r)].at(static_cast<size_t>(i)), r, i));
    }
  }
  s.detector = std::make_unique<StallDetector>(&plan.programs, std::move(names));
  for (int32_t r = s.first_replica; r < s.first_replica + s.local_replicas; ++r) {
    for (int32_t i = 0; i < s.ipus; ++i) {
      workers_.push_back(std::make_unique<Worker>(s, r, i));
    }
  }
  for (auto& w : workers_) {
    w->weight_update().publish_trees();
  }
  if (plan.placement.instances > 1) {
    if (s.shard_state || s.shard_weights) {
      throw Error(ErrorKind::Config,
                  "replicated optimizer-state or weight sharding cannot span several instances yet: a replica's "
                  "blocks are gathered from the other replicas' memory",
                  {}, "turn `pipeline.replicated_optimizer_state_sharding` and `pipeline.replicated_weight_sharding` "
                      "off, or run the replicas in one process");
    }
    // One channel per IPU of a replica (its reductions) and one for the host thread.
    s.link = make_instance_link(s.ipus + 1);
    make_remote_trees(s);
  }
  for (auto& w : workers_) {
    threads_.emplace_back([this, worker = w.get()] { work(*worker); });
  }
}

Cluster::~Cluster() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  go_.notify_all();
  abort_all();  // wakes a worker still blocked after a failed execution
  for (std::thread& t : threads_) {
    t.join();
  }
}

int32_t Cluster::replicas() const { return shared_->replicas; }
int32_t Cluster::first_replica() const { return shared_->first_replica; }
int32_t Cluster::local_replicas() const { return shared_->local_replicas; }
int64_t Cluster::updates_per_execution() const { return shared_->max_updates; }
int32_t Cluster::ipus_per_replica() const { return shared_->ipus; }

Worker& Cluster::owner(int32_t replica, ir::ValueId p) const {
  const auto& param_ipu = shared_->plan.placement.param_ipu;
  const auto& params = shared_->plan.graph.params;
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k] == p) {
      const int32_t local = shared_->local(replica);
      if (local < 0 || local >= shared_->local_replicas) {
        throw Error(ErrorKind::Internal, fmt::format("replica {} is held by another instance", replica));
      }
      return *workers_.at(static_cast<size_t>(local * shared_->ipus + param_ipu.at(k)));
    }
  }
  throw Error(ErrorKind::Internal, fmt::format("value %{} is not a parameter", p));
}

ir::Tensor Cluster::param(int32_t replica, ir::ValueId p) const { return owner(replica, p).memory().tensor(p); }

std::vector<float> Cluster::optimizer_state(ir::ValueId p) const {
  const Shape& shape = shared_->plan.graph.type(p).shape;
  const int64_t n = numel(shape);
  const int64_t floats = optimizer_state_floats(shared_->settings.optimizer, shape);
  std::vector<float> out;
  for (int32_t r = shared_->first_replica; r < shared_->first_replica + shared_->local_replicas; ++r) {
    WeightUpdate& w = owner(r, p).weight_update();
    const std::span<float> state = w.optimizer_state(p);
    if (state.data() == nullptr) {
      return {};  // not trained (a replica's block may be empty, its state is still there)
    }
    out.resize(static_cast<size_t>(floats));
    if (!shared_->shard_state) {
      std::copy_n(state.data(), floats, out.data());
      break;  // replica 0 holds it all, as every replica does
    }
    // Sharded state is element-wise: each replica holds its block of every copy of the weight.
    const planner::ShardRange b = w.state_block(p);
    for (int64_t k = 0; n > 0 && k < floats / n; ++k) {
      std::copy_n(state.data() + k * b.size(), b.size(), out.data() + k * n + b.begin);
    }
  }
  return out;
}

void Cluster::set_optimizer_state(ir::ValueId p, int32_t slot, const float* values) {
  const std::vector<Shape> shapes = optimizer_state_shapes(p);
  int64_t offset = 0;
  for (int32_t k = 0; k < slot; ++k) {
    offset += numel(shapes.at(static_cast<size_t>(k)));
  }
  for (int32_t r = shared_->first_replica; r < shared_->first_replica + shared_->local_replicas; ++r) {
    WeightUpdate& w = owner(r, p).weight_update();
    const std::span<float> state = w.optimizer_state(p);
    const planner::ShardRange b = w.state_block(p);
    if (state.data() == nullptr) {
      continue;
    }
    if (shared_->shard_state) {
      std::copy_n(values + b.begin, b.size(), state.data() + slot * b.size());
    } else {
      std::copy_n(values, numel(shapes.at(static_cast<size_t>(slot))), state.data() + offset);
    }
  }
}

std::vector<Shape> Cluster::optimizer_state_shapes(ir::ValueId p) const {
  return iputrain::optimizer_state_shapes(shared_->settings.optimizer, shared_->plan.graph.type(p).shape);
}

LossScaleState Cluster::loss_scale() const { return workers_.front()->weight_update().loss_scale(); }

void Cluster::set_loss_scale(const LossScaleState& state) {
  for (auto& w : workers_) {
    w->weight_update().set_loss_scale(state);
  }
}

std::vector<int64_t> Cluster::bytes_allocated() const {
  std::vector<int64_t> out(static_cast<size_t>(shared_->plan.num_ipus()), 0);
  for (const auto& w : workers_) {
    out.at(static_cast<size_t>(w->slot())) = w->memory().bytes_allocated();
  }
  return out;
}

void Cluster::open_feeds(const FeedSource& source, int64_t first_update, int64_t updates) {
  close_feeds();
  // Training passes are the sampler's epochs; an inference run is one pass of its own.
  shared_->state_pass = shared_->plan.decided.training ? source.sampler.steps_per_epoch() : 0;
  const ClusterShared& s = *shared_;
  const auto& inputs = s.plan.graph.inputs;
  for (auto& w : workers_) {
    if (w->infeed_inputs().empty()) {
      w->set_feed(nullptr);
      continue;
    }
    std::vector<size_t> fields;
    for (ir::ValueId v : w->infeed_inputs()) {
      const auto it = std::find(inputs.begin(), inputs.end(), v);
      fields.push_back(source.field_of_input.at(static_cast<size_t>(it - inputs.begin())));
    }
    // Replica r's micro-batch m of update u is batch (u R + r) A + m of the stream.
    const BatchOrder order{s.micro_batches, s.replicas, w->replica()};
    Track* track = w->keep_events() ? &shared_->recorder.track(w->feed_track()) : nullptr;
    feeds_.push_back(std::make_unique<Infeed>(*source.dataset, std::move(fields), s.micro_batch_size, source.sampler,
                                              first_update, updates * s.micro_batches, s.prefetch_depth, order,
                                              track, &shared_->recorder));
    w->set_feed(feeds_.back().get());
  }
}

void Cluster::set_run_label(std::string label) { shared_->run_label = std::move(label); }

void Cluster::add_host_span(HostSpan span) { shared_->recorder.add_host_span(std::move(span)); }
double Cluster::now_us() const { return shared_->recorder.now_us(); }

void Cluster::close_feeds() {
  for (auto& w : workers_) {
    w->set_feed(nullptr);
  }
  feeds_.clear();
}

void Cluster::execute(int64_t first, int64_t count) {
  std::unique_lock lock(mu_);
  if (broken_) {
    throw Error(ErrorKind::Runtime, "an earlier run of this session failed; its weights are inconsistent", {},
                "create a new session");
  }
  if (count > shared_->max_updates) {
    throw Error(ErrorKind::Internal, fmt::format("{} updates in one execution, at most {}", count, shared_->max_updates));
  }
  first_ = first;
  count_ = count;
  parallel_work_ = spread_.next();
  running_ = workers_.size();
  shared_->detector->start();
  ++generation_;
  const auto start = std::chrono::steady_clock::now();
  go_.notify_all();
  done_.wait(lock, [&] { return running_ == 0; });
  spread_.measured(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), count);
  if (error_) {
    broken_ = true;
    std::rethrow_exception(error_);
  }
  lock.unlock();
  if (shared_->link) {
    gather_step_sums(count);
    shared_->outfeed->share(*shared_->link, shared_->ipus, shared_->first_replica, shared_->local_replicas, count);
  }
  shared_->outfeed->commit(count);
  measure_bubble(count);
}

void Cluster::gather_step_sums(int64_t count) {
  const ClusterShared& s = *shared_;
  const auto outputs = static_cast<size_t>(s.outputs);
  std::vector<double> mine;
  for (const auto& w : workers_) {
    for (int64_t j = 0; j < count; ++j) {
      for (size_t k = 0; k < outputs; ++k) {
        mine.push_back(w->step_sum(j, k));
      }
    }
  }
  Bytes bytes(mine.size() * sizeof(double));
  std::memcpy(bytes.data(), mine.data(), bytes.size());
  const std::vector<Bytes>& all = s.link->all_gather(s.ipus, bytes);
  step_sums_.clear();
  for (int32_t q = 0; q < s.link->count(); ++q) {
    const Bytes& b = q == s.link->index() ? bytes : all[static_cast<size_t>(q)];
    if (b.size() != bytes.size()) {
      throw Error(ErrorKind::Runtime, fmt::format("instance {} ran a different execution ({} bytes of results, not {})",
                                                  q, b.size(), bytes.size()));
    }
    const size_t at = step_sums_.size();
    step_sums_.resize(at + mine.size());
    std::memcpy(step_sums_.data() + at, b.data(), b.size());
  }
}

bool Cluster::any_instance(bool mine) {
  return shared_->link ? engine::any_instance(*shared_->link, shared_->ipus, mine) : mine;
}

void Cluster::gather_report() {
  ClusterShared& s = *shared_;
  if (!s.link) {
    return;
  }
  const RunReport mine = report();
  std::vector<double> values;
  for (const IpuReport& ipu : mine.ipus) {
    if (ipu.memory_capacity == 0) {
      continue;  // another instance's IPU
    }
    values.insert(values.end(), {double(ipu.physical), double(ipu.replica), double(ipu.ipu), ipu.busy_seconds,
                                 ipu.run_seconds, ipu.cpu_seconds, ipu.kernel_cpu_seconds, ipu.simulated_cycles,
                                 ipu.simulated_busy_cycles, double(ipu.memory_peak), double(ipu.memory_estimate),
                                 double(ipu.memory_capacity)});
  }
  Bytes bytes(values.size() * sizeof(double));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const std::vector<Bytes>& all = s.link->all_gather(s.ipus, bytes);
  remote_ipus_.clear();
  constexpr size_t kFields = 12;
  for (int32_t q = 0; q < s.link->count(); ++q) {
    if (q == s.link->index()) {
      continue;
    }
    std::vector<double> v(all[static_cast<size_t>(q)].size() / sizeof(double));
    std::memcpy(v.data(), all[static_cast<size_t>(q)].data(), v.size() * sizeof(double));
    for (size_t i = 0; i + kFields <= v.size(); i += kFields) {
      remote_ipus_.push_back(IpuReport{static_cast<int32_t>(v[i]), static_cast<int32_t>(v[i + 1]),
                                       static_cast<int32_t>(v[i + 2]), v[i + 3], v[i + 4], v[i + 5], v[i + 6], v[i + 7],
                                       v[i + 8], static_cast<int64_t>(v[i + 9]), static_cast<int64_t>(v[i + 10]),
                                       static_cast<int64_t>(v[i + 11])});
    }
  }
}

void Cluster::measure_bubble(int64_t count) {
  const ClusterShared& s = *shared_;
  for (int32_t r = 0; r < s.local_replicas; ++r) {
    for (int64_t j = 0; j < count; ++j) {
      // The replica's pipelined part of update j: from its first task start to its last task end.
      UpdateWindow all{1e300, 0, 0, 1e300, 0, 0};
      for (int32_t i = 0; i < s.ipus; ++i) {
        const UpdateWindow& w = workers_[static_cast<size_t>(r * s.ipus + i)]->window(j);
        all.begin_us = std::min(all.begin_us, w.begin_us);
        all.end_us = std::max(all.end_us, w.end_us);
        all.busy_us += w.busy_us;
        all.sim_begin = std::min(all.sim_begin, w.sim_begin);
        all.sim_end = std::max(all.sim_end, w.sim_end);
        all.sim_busy += w.sim_busy;
      }
      if (all.end_us > all.begin_us) {
        window_ += s.ipus * (all.end_us - all.begin_us);
        task_busy_ += all.busy_us;
      }
      if (all.sim_end > all.sim_begin) {
        sim_window_ += s.ipus * (all.sim_end - all.sim_begin);
        sim_task_busy_ += all.sim_busy;
      }
    }
  }
  updates_ += count;
}

void Cluster::work(Worker& w) {
  int64_t seen = 0;
  for (;;) {
    int64_t first = 0;
    int64_t count = 0;
    {
      std::unique_lock lock(mu_);
      go_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) {
        return;
      }
      seen = generation_;
      first = first_;
      count = count_;
      par::set_parallel_work(parallel_work_);
    }
    try {
      w.run(first, count);
      const std::string stall = shared_->detector->done(w.replica() * shared_->ipus + w.ipu());
      if (!stall.empty()) {
        throw Error(ErrorKind::Internal, stall, {}, "the IPUs' programs wait for each other; please report this plan");
      }
    } catch (const Aborted&) {
      // Another worker failed and woke everyone; its error is the one reported.
    } catch (...) {
      {
        std::lock_guard lock(mu_);
        if (!error_) {
          error_ = std::current_exception();
        }
      }
      abort_all();
    }
    {
      std::lock_guard lock(mu_);
      --running_;
    }
    done_.notify_all();
  }
}

void Cluster::abort_all() {
  for (auto& m : shared_->mailboxes) {
    m->abort();
  }
  for (auto& r : shared_->reduce_meet) {
    r->abort();
  }
  for (auto& r : shared_->clip_meet) {
    r->abort();
  }
  for (auto& e : shared_->exchanges) {
    e->meet.abort();
  }
  shared_->overflow_meet->abort();
  if (shared_->link) {
    shared_->link->abort();
  }
}

double Cluster::step_value(int64_t local, size_t k) const {
  // Each output is enqueued on one IPU per replica; the others contribute zero. Summed in worker
  // order, so the value does not depend on which thread finished first.
  double sum = 0;
  if (shared_->link) {
    // Every instance's workers, in the order one process holds them.
    const auto outputs = static_cast<size_t>(shared_->outputs);
    const size_t per_worker = step_sums_.size() / static_cast<size_t>(shared_->replicas * shared_->ipus);
    for (size_t w = 0; w < static_cast<size_t>(shared_->replicas * shared_->ipus); ++w) {
      sum += step_sums_.at(w * per_worker + static_cast<size_t>(local) * outputs + k);
    }
    return sum / static_cast<double>(shared_->micro_batches * shared_->replicas);
  }
  for (const auto& w : workers_) {
    sum += w->step_sum(local, k);
  }
  return sum / static_cast<double>(shared_->micro_batches * shared_->replicas);
}

HostOutfeed& Cluster::outfeed() { return *shared_->outfeed; }
const HostOutfeed& Cluster::outfeed() const { return *shared_->outfeed; }

void Cluster::record_events(bool on) {
  for (auto& w : workers_) {
    w->record_events(on);
  }
}

const Recorder& Cluster::recorder() const { return shared_->recorder; }

RunReport Cluster::report() const {
  const ClusterShared& s = *shared_;
  RunReport r;
  r.analytic_bubble = s.plan.cost.analytic_bubble_fraction;
  r.planned_bubble = s.plan.cost.bubble_fraction;
  r.planned_cycles_per_update = s.plan.cost.cycles_per_update;
  r.ipus.resize(static_cast<size_t>(s.plan.num_ipus()));
  double sim_max = 0;
  for (const auto& w : workers_) {
    IpuReport& ipu = r.ipus.at(static_cast<size_t>(w->slot()));
    const Track& t = s.recorder.tracks().at(static_cast<size_t>(w->slot()));
    ipu.physical = w->physical();
    ipu.replica = w->replica();
    ipu.ipu = w->ipu();
    ipu.busy_seconds = t.busy_us * 1e-6;
    ipu.run_seconds = t.total_us * 1e-6;
    ipu.cpu_seconds = t.cpu_us * 1e-6;
    ipu.kernel_cpu_seconds = t.kernel_cpu_us * 1e-6;
    ipu.simulated_cycles = w->sim_clock();
    ipu.simulated_busy_cycles = w->sim_busy();
    ipu.memory_peak = w->gauge().peak();
    ipu.memory_estimate = static_cast<size_t>(w->ipu()) < s.plan.memory.size()
                              ? s.plan.memory[static_cast<size_t>(w->ipu())].total_peak
                              : 0;
    ipu.memory_capacity = w->capacity();
    sim_max = std::max(sim_max, w->sim_clock());
    r.real_seconds = std::max(r.real_seconds, ipu.run_seconds);
  }
  for (const IpuReport& ipu : remote_ipus_) {
    r.ipus.at(static_cast<size_t>(s.slot.at(static_cast<size_t>(ipu.replica * s.ipus + ipu.ipu)))) = ipu;
    sim_max = std::max(sim_max, ipu.simulated_cycles);
    r.real_seconds = std::max(r.real_seconds, ipu.run_seconds);
  }
  r.updates = updates_;
  r.simulated_seconds = sim_max / s.plan.decided.device.clock_hz;
  r.simulated_cycles_per_update = updates_ > 0 ? sim_max / static_cast<double>(updates_) : 0;
  // Clamped: with no idle time at all the quotient can exceed 1 by a rounding error.
  r.measured_bubble = window_ > 0 ? std::max(0.0, 1.0 - task_busy_ / window_) : 0;
  r.simulated_bubble = sim_window_ > 0 ? std::max(0.0, 1.0 - sim_task_busy_ / sim_window_) : 0;
  r.executions = spread_.executions()[0] + spread_.executions()[1];
  r.large_only_executions = spread_.executions()[1];
  return r;
}

}  // namespace iputrain::engine
