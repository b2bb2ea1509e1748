// The deadline of the plan a thread is making (PlanOptions::deadline, from PlanRequest::deadline):
// make_plan sets it for its call, and it is checked between the passes and inside the buffer
// assignment (per IPU, and in the arena placement's loop), which took most of a plan's time in
// the measurements (tests/planner/tune_test.cpp); the other passes run to their end. `iputrain
// tune` keeps to its budget so (docs/tune.md).
#pragma once

#include <chrono>
#include <optional>

#include "iputrain/error.hpp"
#include "iputrain/plan.hpp"

namespace iputrain::planner {

using PlanDeadline = std::optional<std::chrono::steady_clock::time_point>;

//! This thread's plan deadline (none: no plan with one is being made here).
inline thread_local PlanDeadline t_plan_deadline;

//! Throws Error(Plan, kPlanAbandoned) when the plan this thread makes is past its deadline.
inline void check_plan_deadline() {
  if (t_plan_deadline && std::chrono::steady_clock::now() >= *t_plan_deadline) {
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
