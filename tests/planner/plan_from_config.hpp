// Tests plan from a Config as Plan::make and Session do: the config resolved once into Settings
// (config::resolve), then make_plan.
#pragma once

#include "iputrain/config_loader.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

inline Plan make_plan(const ir::Graph& forward, const Config& config, const PlanOptions& options = {}) {
  return make_plan(forward, config::resolve(config), options);
}

//! The default config: one IPU, no pipelining.
inline Plan make_plan(const ir::Graph& forward, const PlanOptions& options = {}) {
  return make_plan(forward, config::resolve(Config()), options);
}

}  // namespace iputrain::planner
