// The deadline of the plan a thread is making (PlanOptions::deadline, from PlanRequest::deadline):
// make_plan sets it for its call, and it is checked between the passes and inside the buffer
// assignment (per IPU, and in the arena placement's loop), which took most of a plan's time in
// the measurements; the other passes run to their end. `iputrain tune` keeps to its budget so
// (docs/tune.md). The deadline and tune's budget read one clock, plan_clock_now(): steady_clock,
// unless a test puts a TickClock in its place, so that it counts checkpoints instead of timing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "iputrain/error.hpp"  // kPlanAbandoned

namespace iputrain::planner {

using PlanClockTime = std::chrono::steady_clock::time_point;
using PlanDeadline = std::optional<PlanClockTime>;

class TickClock;
//! The clock in use (none: steady_clock), the process's: tune's threads read the one its caller set.
inline std::atomic<const TickClock*> g_plan_clock{nullptr};

//! A clock for tests, in steady_clock's place from its construction to its destruction (made
//! before the planning threads start): reading k (from 1) is at(k), k ticks after the origin; a
//! tick of 0 is a frozen clock (no budget runs out). Thread-safe: tune plans on several threads.
class TickClock {
 public:
  explicit TickClock(std::chrono::nanoseconds tick) : tick_(tick), before_(g_plan_clock.exchange(this)) {}
  ~TickClock() { g_plan_clock.store(before_); }
  TickClock(const TickClock&) = delete;
  TickClock& operator=(const TickClock&) = delete;
  PlanClockTime now() const { return at(readings_.fetch_add(1) + 1); }
  PlanClockTime at(int64_t k) const { return PlanClockTime{} + k * tick_; }
  int64_t readings() const { return readings_.load(); }

 private:
  std::chrono::nanoseconds tick_;
  mutable std::atomic<int64_t> readings_{0};
  const TickClock* before_;  // last: `this` is published once the rest is made
};

inline PlanClockTime plan_clock_now() {
  const TickClock* clock = g_plan_clock.load();
  return clock != nullptr ? clock->now() : std::chrono::steady_clock::now();
}

//! This thread's plan deadline (none: no plan with one is being made here).
inline thread_local PlanDeadline t_plan_deadline;

//! Throws Error(Plan, kPlanAbandoned) when the plan this thread makes is past its deadline.
inline void check_plan_deadline() {
  if (t_plan_deadline && plan_clock_now() >= *t_plan_deadline) {
    throw Error(ErrorKind::Plan, kPlanAbandoned);
  }
}

//! Sets this thread's plan deadline for a scope, and puts the one before back after it.
class PlanDeadlineScope {
 public:
  explicit PlanDeadlineScope(PlanDeadline deadline) : before_(t_plan_deadline) { t_plan_deadline = deadline; }
  ~PlanDeadlineScope() { t_plan_deadline = before_; }
  PlanDeadlineScope(const PlanDeadlineScope&) = delete;
  PlanDeadlineScope& operator=(const PlanDeadlineScope&) = delete;

 private:
  PlanDeadline before_;
};

}  // namespace iputrain::planner
