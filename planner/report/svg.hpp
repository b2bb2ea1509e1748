// The plan as pictures: the schedule of one accumulation cycle as a Gantt chart (one row per IPU,
// a box per task, idle time left empty so the pipeline's bubbles show) and the bytes each IPU
// holds over the cycle. Both are pure functions of a planner::Plan returning a standalone SVG 1.1
// document; the same plan always gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! When each instruction of `plan.programs` runs within one accumulation cycle (replica 0).
struct GanttTimes {
  //! True: simulated cycles, by the rules of planner/simulate.hpp. False: timestep columns (one unit
  //! per timestep, the cycle's reduce and update in one extra column), used when the instructions
  //! take no cycles at all.
  bool in_cycles = true;
  std::vector<std::vector<double>> start;  //!< [ipu][instruction index]
  std::vector<std::vector<double>> end;
  double span = 0;  //!< end of the last instruction
};

GanttTimes gantt_times(const Plan& plan);

//! One row per IPU ("IPU i (phys p)"), x = simulated cycles (or timesteps), a box per Forward,
//! Recompute (hatched) and Backward labelled with its micro-batch (F3, B3), thin marks for
//! transfers, the reduce and update at the end; a title with the schedule, stages, accumulation
//! count, replicas and bubble fraction, and a legend.
std::string gantt_svg(const Plan& plan);

//! Bytes per IPU at each timestep of the cycle (plan.memory[i].per_timestep), one step line per
//! IPU, with the IPU's capacity as a dashed line when it fits the scale (else in the legend).
std::string memory_svg(const Plan& plan);

}  // namespace iputrain::planner
