// The Plan: what the planner hands the engine. For one virtual IPU it is the training graph
// (forward + backward), the gradient of every parameter, and the ordered programs to run.
#pragma once

#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain::planner {

//! How long one pass took, for `--time-passes` style reports.
struct PassTiming {
  std::string pass;
  double ms = 0;
};

struct Plan {
  ir::Graph graph;                      //!< forward graph with the backward graph appended
  std::vector<ir::ValueId> grads;       //!< per graph.params entry: its gradient (kNoValue if unused)
  std::vector<ir::ValueId> train_program;  //!< nodes run for one training micro-batch, in order
  std::vector<ir::ValueId> eval_program;   //!< nodes run to compute the outputs only
  std::vector<PassTiming> timings;
};

//! Options that steer the pass list (dumps, disabled passes).
struct PlanOptions {
  std::vector<std::string> dump_after;  //!< pass names whose resulting IR is appended to `dumps`
  std::string* dumps = nullptr;
};

//! Runs the pass list on a copy of the model's forward graph.
Plan make_plan(const ir::Graph& forward, const PlanOptions& options = {});

}  // namespace iputrain::planner
