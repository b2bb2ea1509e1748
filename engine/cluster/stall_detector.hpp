// Deadlock detection without timeouts. During an execution each worker is running, blocked on a
// link or a meeting point, or done. A waiter registers itself before it sleeps, and whoever makes
// its wait come true takes it off the list before waking it (so a thread about to wake never
// counts as stuck). When every worker that is not done is blocked, nothing can change any more:
// the cluster reports a deadlock, naming what each IPU waits for, instead of hanging.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "planner/device_program.hpp"

namespace iputrain::engine {

class StallDetector {
 public:
  //! `programs` names the instructions in the report; `names[w]` names worker w.
  StallDetector(const planner::DevicePrograms* programs, std::vector<std::string> names);

  //! Host, before waking the workers for an execution.
  void start();
  //! Worker `w` is about to sleep at `at`. Returns a description of the deadlock if this wait
  //! completes one (the caller must not sleep then).
  std::string block(int32_t w, const planner::Instr* at);
  //! Worker `w` (registered with block()) will find its wait over: called by the thread that
  //! made it so, before it notifies.
  void wake(int32_t w);
  //! Worker `w` ran its whole execution. Returns a description if the others are now stuck.
  std::string done(int32_t w);

 private:
  std::string report_locked() const;

  const planner::DevicePrograms* programs_;
  std::vector<std::string> names_;
  std::mutex mu_;
  std::vector<const planner::Instr*> waiting_at_;  // per worker; null: not blocked
  std::vector<bool> blocked_;
  int32_t active_ = 0;
  int32_t blocked_count_ = 0;
};

//! Who is waiting, for the detector (all null/-1 in tests without one).
struct WaitContext {
  StallDetector* detector = nullptr;
  int32_t worker = -1;
  const planner::Instr* at = nullptr;
};

}  // namespace iputrain::engine
