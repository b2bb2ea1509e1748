// Automatic staging: splits a model into N pipeline stages of balanced cost.
#pragma once

#include "core/ir/graph.hpp"
#include "planner/cost_model.hpp"

namespace iputrain::planner {

//! Reassigns the stage of every forward node of `g` so that the model runs as `stages` consecutive
//! stages of about equal cycles (forward + backward estimate), cutting only where the values that
//! cross the cut are few bytes, and keeping a parameter and all its users in one stage. Replaces
//! g.stages by "auto0".."auto{N-1}". Throws Error(Plan) when the model has fewer cuttable points
//! than stages asked for.
void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device);

}  // namespace iputrain::planner
