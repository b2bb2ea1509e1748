// Schedules whose IPUs take the timesteps in turn (ScheduleDef::timesteps_in_turn: sequential, one
// stage at a time). The programs alone order an IPU's work after what it receives; where nothing
// an IPU receives comes from the IPU that ran the timestep before its own, it could start early:
// in an inference plan, the first stage's next micro-batch while the last stage still runs the
// one before. There the lowering adds a token: an empty message, sent by the IPU of the earlier
// timestep when its work there ends and received by the other before its work of the later one.
// The engine runs it as any message (it waits), and the cycle model, the Gantt chart and the
// engine's simulated clock all follow it: the plan runs, draws and costs one stage at a time.
#pragma once

#include "planner/device_program.hpp"

namespace iputrain::planner {

//! Adds the tokens to `programs` (before its channels are sized). Each IPU's instructions must be
//! in timestep order, as the lowering emits them.
void add_turn_tokens(DevicePrograms& programs);

}  // namespace iputrain::planner
