// The planner's plan behind a public Plan, for api/ and the tests (the public header names no
// internal type: include/iputrain/plan.hpp).
#pragma once

#include "iputrain/plan.hpp"
#include "planner/plan.hpp"

namespace iputrain {

struct PlanAccess {
  static const planner::Plan& plan(const Plan& p);
};

//! The planner's plan a public Plan holds.
inline const planner::Plan& plan_of(const Plan& p) { return PlanAccess::plan(p); }

}  // namespace iputrain
