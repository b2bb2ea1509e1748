// Figures computed from a Recorder's events: how much the virtual IPUs' kernels overlapped in time
// and the bubble the run actually had. Pure functions of the recorded events, so the run report
// and the tests compute them the same way. They need the events (Recorder built with keep_events).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/cluster/recorder.hpp"

namespace iputrain::engine {

//! Which clock of the events to measure in.
enum class TimeBase {
  Real,       //!< wall-clock microseconds of the threaded run
  Simulated,  //!< the simulated IPU cycles
};

//! Whether an instruction is stage compute (Forward, Recompute, Backward) as opposed to links,
//! feeds, accumulation and the optimizer.
bool is_compute(planner::InstrKind kind);

//! Time (in the units of `base`) during which IPU tracks `a` and `b` both ran compute.
struct PairOverlap {
  int32_t a = 0;
  int32_t b = 0;
  double overlap = 0;
};

//! One entry for every pair a < b of IPU tracks, in order (0,1), (0,2), ..., (1,2), ...
std::vector<PairOverlap> pairwise_compute_overlap(const Recorder& rec, TimeBase base = TimeBase::Real);

//! The share of the compute window during which at least two IPU tracks ran compute at once.
//! The compute window is, per weight update, the span from its first compute event's begin to
//! its last compute event's end on any IPU track; the windows of all updates are joined. Empty if
//! no compute was recorded.
std::optional<double> overlap_fraction(const Recorder& rec, TimeBase base = TimeBase::Real);

//! The bubble the run had: 1 - (sum over updates and IPU tracks of compute time) /
//! (IPU tracks x sum over updates of the update's compute window). It counts as idle everything on
//! an IPU within the window that is not a stage kernel: pipeline fill and drain, waits on links
//! and feeds, sends, receives, accumulation, and another IPU's optimizer step; host time between
//! updates is outside the windows. In simulated time it is the figure to set beside the planner's
//! analytic_bubble (which counts idle timestep slots, so unequal stages make the two differ); in
//! real time it also reflects how many cores the host gave the workers. Empty if no compute was
//! recorded.
std::optional<double> measured_bubble(const Recorder& rec, TimeBase base = TimeBase::Real);

}  // namespace iputrain::engine
