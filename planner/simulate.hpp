// The cycle model of a whole plan: a discrete-event simulation of the per-IPU programs of one
// replica (the replicas run the same programs in lockstep; their collective is priced into
// ReduceReplicas). Each instruction takes the cycles of its kernels or of its transfer; an IPU
// starts an instruction when it has finished the previous one and, for a Recv, when the matching
// Send has started (both ends of an IPU-Link copy take part in it, so the Recv ends no earlier
// than the Send); a Send waits while its channel holds `capacity` messages not yet received
// (the receiver takes them in its program order, which may differ from the send order). The
// engine advances its simulated clocks with the same instr_cycles() and the same rule for links
// (engine/cluster/mailbox.hpp), so the run report and the plan agree by construction.
#pragma once

#include "planner/plan.hpp"

namespace iputrain::planner {

//! Cycles instruction `instr` keeps its IPU busy: op_cycles of the task's nodes; bytes over the
//! IPU-Link bandwidth for Send and Recv, over the host bandwidth for Infeed and Outfeed; a ring
//! all-reduce (2 (R - 1) / R of the bucket over the link) for ReduceReplicas; one elementwise
//! pass over the parameters for Accumulate and UpdateWeights (plus the host round trip of
//! offloaded optimizer state).
double instr_cycles(const Plan& plan, const Instr& instr);

//! Simulates one accumulation cycle and fills a CostReport: cycles per update (with the host
//! call shared by the steps_per_execution x repeat_count updates of one call), samples/s, per-IPU
//! utilisation (kernel cycles over the cycle), the bubble fraction (idle share of the IPUs between
//! the first and the last task instruction, comparable to analytic_bubble) next to the analytic
//! one, link and cross-replica bytes.
CostReport simulate_plan(const Plan& plan);

}  // namespace iputrain::planner
