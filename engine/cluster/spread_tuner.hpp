// engine.spread_kernels: which kernels of a virtual IPU split their blocks over the arena's threads.
// Splitting pays when a kernel's work outweighs handing it to another core and back. On a VM whose
// two CPUs move between one core complex and two every minute or so (a cache line's round trip
// 55-200 ns or 500-600 ns, bench/cross_core_latency), the MNIST MLP at batch 32 trains at about
// 400k samples/s with its 3.2M-multiply-add products split and 230k when the cores are far apart,
// where keeping them on one core gives 290k. `auto` times each execution and keeps the faster of
// the two limits, trying the other again every kRecheckEvery executions. Only where blocks run
// changes (core/parallel.hpp), so the weights are bitwise the same whichever limit runs.
#pragma once

#include <array>
#include <cstdint>

#include "iputrain/plain_keys.hpp"

namespace iputrain::engine {

class SpreadTuner {
 public:
  //! The candidates' par::parallel_work(): split from 256k multiply-adds (always) or from 4M
  //! (large_only).
  static constexpr std::array<int64_t, 2> kLimits{256 * 1024, 4 * 1024 * 1024};
  static constexpr int64_t kRecheckEvery = 16;
  //! The other limit must be this much faster per update to take over (noise between executions).
  static constexpr double kMargin = 0.97;

  explicit SpreadTuner(SpreadKernels mode) : mode_(mode) {}

  //! The limit the next execution runs with.
  int64_t next();
  //! The execution started by the last next() took `seconds` for `updates` weight updates.
  void measured(double seconds, int64_t updates);
  //! Executions run with each limit so far (kLimits' order).
  const std::array<int64_t, 2>& executions() const { return executions_; }

 private:
  SpreadKernels mode_;
  int64_t started_ = 0;                     // next() calls
  int current_ = 0;                         // the limit kept
  int running_ = 0;                         // the limit of the execution in flight
  std::array<double, 2> per_update_{0, 0};  // the latest seconds per update of each (0 = not yet)
  std::array<int64_t, 2> executions_{0, 0};
};

}  // namespace iputrain::engine
