// Automatic staging: splits a model into N pipeline stages of balanced cost.
#pragma once

#include "core/ir/graph.hpp"
#include "planner/cost_model.hpp"

namespace iputrain::planner {

//! Reassigns the stage of every forward node of `g` so that the model runs as `stages` consecutive
//! stages of about equal cycles (forward + backward estimate), cutting only where the values that
//! cross the cut are few bytes, and keeping a parameter and all its users in one stage. Replaces
//! g.stages by "auto0".."auto{N-1}". Every stage's parameters times `bytes_per_weight_byte`
//! (weights, gradient accumulators and optimizer state per weight byte; 0 = no memory limit) must
//! fit one IPU's memory. Throws Error(Plan) when the model has fewer cuttable points than stages
//! asked for, or when no split fits.
void auto_stage(ir::Graph& g, int32_t stages, const DeviceModel& device, double bytes_per_weight_byte = 0);

}  // namespace iputrain::planner
