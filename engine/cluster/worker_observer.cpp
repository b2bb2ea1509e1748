#include "engine/cluster/worker_observer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "iputrain/error.hpp"

namespace iputrain::engine {

using planner::InstrKind;

namespace {

// Kernel work, for busy time and utilisation: tasks, gradient sums and the weight update.
bool is_busy(InstrKind k) { return planner::is_task(k) || k == InstrKind::Accumulate || k == InstrKind::UpdateWeights; }

// The pipelined part of a cycle, where the bubble is measured: every instruction but the
// reduction and the update (a task's transfers and accumulation count as its work), as the
// planner's cycle model counts it (planner/simulate.cpp).
bool in_pipeline(InstrKind k) { return k != InstrKind::ReduceReplicas && k != InstrKind::UpdateWeights; }

}  // namespace

WorkerObserver::WorkerObserver(Recorder& recorder, const planner::Plan& plan, int32_t slot, int32_t physical,
                               int32_t replica, int32_t ipu, int64_t max_updates)
    : recorder_(recorder),
      plan_(plan),
      track_(&recorder.track(slot)),
      physical_(physical),
      replica_(replica),
      ipu_(ipu),
      capacity_(plan.decided.device.memory_bytes()) {
  windows_.assign(static_cast<size_t>(max_updates), UpdateWindow{});
  track_->name = fmt::format("IPU {} (replica {}, ipu {})", physical, replica, ipu);
}

void WorkerObserver::begin_run() {
  if (gauge_.peak() > capacity_) {
    throw Error(ErrorKind::Runtime,
                fmt::format("IPU {} (replica {}, ipu {}) holds {} bytes before running, more than its {} bytes",
                            physical_, replica_, ipu_, gauge_.peak(), capacity_),
                {}, "use more stages, a smaller micro-batch or an optimizer with less state");
  }
  run_start_us_ = recorder_.now_us();
  run_cpu_start_us_ = Recorder::thread_cpu_us();
  sample_cpu_ = true;
  run_updates_ = 0;
  run_sampled_ = 0;
  run_kernel_cpu_us_ = 0;
  // The host's share of a device call, as the planner's cycle model charges it.
  sim_ += plan_.decided.device.host_call_cycles;
}

void WorkerObserver::end_run() {
  const double wall = recorder_.now_us() - run_start_us_;
  track_->total_us += wall;
  update_us_ = run_updates_ > 0 ? wall / static_cast<double>(run_updates_) : update_us_;
  track_->cpu_us += Recorder::thread_cpu_us() - run_cpu_start_us_;
  track_->kernel_cpu_us +=
      run_sampled_ > 0 ? run_kernel_cpu_us_ * static_cast<double>(run_updates_) / static_cast<double>(run_sampled_)
                       : run_kernel_cpu_us_;
}

void WorkerObserver::begin_update(int64_t local) {
  sample_cpu_ = update_us_ >= kShortUpdateUs || run_updates_ % kCpuSample == 0;
  run_sampled_ += sample_cpu_ ? 1 : 0;
  ++run_updates_;
  windows_[static_cast<size_t>(local)] =
      UpdateWindow{std::numeric_limits<double>::max(), 0, 0, std::numeric_limits<double>::max(), 0, 0};
}

WorkerObserver::Mark WorkerObserver::begin(const planner::Instr& in, int64_t acquire, int64_t top, int64_t update) {
  if (acquire > 0) {
    gauge_.acquire(acquire, top);
    if (gauge_.peak() > capacity_) {
      throw Error(
          ErrorKind::Runtime,
          fmt::format("IPU {} (replica {}, ipu {}) needs {} bytes at `{}` of update {}, more than its {} bytes",
                      physical_, replica_, ipu_, gauge_.peak(), in.str(plan_.programs), update + 1, capacity_),
          {},
          "the planner's estimate was too low for this plan: use more stages, a smaller micro-batch or recomputation");
    }
    if (keep_events_) {
      track_->memory.push_back({recorder_.now_us(), gauge_.current()});
    }
  }
  Mark mark;
  mark.begin_us = recorder_.now_us();
  // Kernel CPU time, against the thread's whole CPU time, is the engine-overhead figure.
  mark.cpu_us = sample_cpu_ && is_busy(in.kind) ? Recorder::thread_cpu_us() : 0.0;
  mark.work_us = mark.begin_us;
  mark.sim_start = sim_;
  return mark;
}

void WorkerObserver::waited(Mark& mark, double sim_ready) const {
  mark.work_us = recorder_.now_us();
  mark.sim_start = std::max(sim_, sim_ready);
}

void WorkerObserver::end(const planner::Instr& in, const Mark& mark, double cycles, int64_t release, int64_t update,
                         int64_t local) {
  sim_ = mark.sim_start + cycles;
  const double end = recorder_.now_us();
  if (is_busy(in.kind)) {
    if (sample_cpu_) {
      run_kernel_cpu_us_ += Recorder::thread_cpu_us() - mark.cpu_us;
    }
    track_->busy_us += end - mark.begin_us;
    sim_busy_ += cycles;
  }
  if (in_pipeline(in.kind)) {
    UpdateWindow& w = windows_[static_cast<size_t>(local)];
    w.begin_us = std::min(w.begin_us, mark.work_us);
    w.end_us = std::max(w.end_us, end);
    w.busy_us += end - mark.work_us;
    w.sim_begin = std::min(w.sim_begin, mark.sim_start);
    w.sim_end = std::max(w.sim_end, sim_);
    w.sim_busy += cycles;
  }
  if (keep_events_) {
    track_->events.push_back(
        TraceEvent{in.kind, in.stage, in.micro_batch, update, mark.begin_us, end, mark.sim_start, sim_});
  }
  if (release > 0) {
    gauge_.release(release);
    if (keep_events_) {
      track_->memory.push_back({end, gauge_.current()});
    }
  }
}

}  // namespace iputrain::engine
