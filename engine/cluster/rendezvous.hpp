// A reusable meeting point for a fixed set of workers: the replicas of one IPU before and after a
// cross-replica reduction, or the IPUs of one replica summing their gradient norms. Each worker
// posts a value and its simulated clock; everyone leaves together with every value, in
// participant order (so sums over them are deterministic), and the latest clock.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/cluster/stall_detector.hpp"

namespace iputrain::engine {

class Rendezvous {
 public:
  explicit Rendezvous(int32_t parties);

  struct Met {
    const double* values;  //!< one per participant; valid until this participant's next arrive()
    double latest_sim;     //!< max of the posted simulated clocks
  };

  //! Posts `value` and `sim` as participant `who` and blocks until all parties have arrived.
  //! Throws Aborted after abort(), Error(Internal) if its wait would complete a deadlock.
  Met arrive(int32_t who, double value, double sim, const WaitContext& wait = {});

  void abort();
  void reset();
  int32_t parties() const { return parties_; }

 private:
  int32_t parties_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t generation_ = 0;
  int32_t arrived_ = 0;
  // Two generations of values: a fast participant may post the next one while a slow one still
  // reads this one, but can get no further ahead because it waits for the slow one to arrive.
  std::array<std::vector<double>, 2> values_;
  std::array<double, 2> latest_{0, 0};
  bool aborted_ = false;
  std::vector<WaitContext> waiting_;  // the parties asleep in this generation
};

}  // namespace iputrain::engine
