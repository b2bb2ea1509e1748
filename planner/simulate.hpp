// The cycle model of a whole plan: a discrete-event simulation of the per-IPU programs. Each
// instruction takes the cycles of its kernels (or of its transfer); an IPU starts an instruction
// when it has finished the previous one and, for Recv, when the matching Send has crossed the
// link; ReduceReplicas waits for every replica. The engine advances its simulated clocks with the
// same instr_cycles(), so the run report and the plan agree by construction.
#pragma once

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Cycles instruction `instr` keeps its IPU busy (link and host transfers included for Send,
//! Recv, Infeed, Outfeed; the collective's share for ReduceReplicas).
double instr_cycles(const Plan& plan, const Instr& instr);

//! Simulates one accumulation cycle of every IPU (times steps_per_execution for host overhead)
//! and fills a CostReport: cycles per update, samples/s, per-IPU utilisation, bubble fraction
//! next to the analytic one, link and cross-replica bytes.
CostReport simulate_plan(const Plan& plan);

}  // namespace iputrain::planner
