// The measurement side of one virtual IPU: its recorder track (trace events, memory samples,
// busy and CPU time), the window of each update's pipelined part, the simulated clock and the
// memory gauge. The Worker's execution loop tells it when each instruction begins, when its wait
// for a link or the feed is over and when it ends; nothing here allocates unless events are kept.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cluster/memory_account.hpp"
#include "engine/cluster/recorder.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

//! Per update of an execution: the IPU's pipelined part (first to last instruction before the
//! reduction and update) and its work in it (waits for links and feeds excluded).
struct UpdateWindow {
  double begin_us = 0, end_us = 0, busy_us = 0;
  double sim_begin = 0, sim_end = 0, sim_busy = 0;
};

class WorkerObserver {
 public:
  //! Names the worker's track `slot` of `recorder` after the IPU (`physical`, `replica`, `ipu`)
  //! and keeps a window for each of `max_updates` updates of an execution.
  WorkerObserver(Recorder& recorder, const planner::Plan& plan, int32_t slot, int32_t physical, int32_t replica,
                 int32_t ipu, int64_t max_updates);

  //! An instruction under way: the clocks when it began and when its work began.
  struct Mark {
    double begin_us = 0;
    double cpu_us = 0;     //!< the thread's CPU clock at the beginning (kernel work only)
    double work_us = 0;    //!< after any wait for a link or the feed
    double sim_start = 0;  //!< when it could start on the simulated clock
  };

  //! The bytes the IPU holds for the whole run (FixedBytes::total()).
  void set_fixed(int64_t bytes) { gauge_.set_fixed(bytes); }
  //! Checks the fixed bytes against the capacity, starts the run's clocks and charges the host's
  //! share of a device call to the simulated clock.
  void begin_run();
  void end_run();
  //! Opens the window of the execution's update `local`.
  void begin_update(int64_t local);
  //! Instruction `in` of update `update` begins, taking `acquire` arena bytes (`top`: the arena's
  //! high-water mark then); throws Error(Runtime) if the IPU's memory is exceeded.
  Mark begin(const planner::Instr& in, int64_t acquire, int64_t top, int64_t update);
  //! Its wait is over; its work could start at `sim_ready` on the simulated clock at the earliest.
  void waited(Mark& mark, double sim_ready) const;
  //! It ends after `cycles` simulated cycles of work, giving back `release` arena bytes.
  void end(const planner::Instr& in, const Mark& mark, double cycles, int64_t release, int64_t update, int64_t local);

  double sim() const { return sim_; }
  double sim_busy() const { return sim_busy_; }
  const UpdateWindow& window(int64_t local) const { return windows_[static_cast<size_t>(local)]; }
  const MemoryGauge& gauge() const { return gauge_; }
  int64_t capacity() const { return capacity_; }
  bool keep_events() const { return keep_events_; }
  void record_events(bool on) { keep_events_ = on; }

 private:
  Recorder& recorder_;
  const planner::Plan& plan_;
  Track* track_;
  int32_t physical_;
  int32_t replica_;
  int32_t ipu_;
  bool keep_events_ = false;
  MemoryGauge gauge_;
  int64_t capacity_;
  double sim_ = 0;
  double sim_busy_ = 0;
  double run_start_us_ = 0;
  double run_cpu_start_us_ = 0;
  // Kernel CPU time is read with a system call (about 0.5 us) at each busy instruction. Where
  // updates are short (under 1 ms in the previous run) it is read in one update of every
  // kCpuSample only and scaled up at the end of the run: every update of a run does the same work.
  static constexpr int64_t kCpuSample = 8;
  static constexpr double kShortUpdateUs = 1000;
  double update_us_ = 1e30;  // wall time per update in the previous run
  bool sample_cpu_ = true;
  int64_t run_updates_ = 0;
  int64_t run_sampled_ = 0;
  double run_kernel_cpu_us_ = 0;       // in the sampled updates (or in all of a run without updates)
  std::vector<UpdateWindow> windows_;  // [local update]
};

}  // namespace iputrain::engine
