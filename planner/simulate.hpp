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

#include <array>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! What one instruction's cycles are spent on; instr_cycles() is their sum.
struct InstrCost {
  double compute = 0;   //!< kernels on the tiles (recomputed forward nodes included)
  double exchange = 0;  //!< operands moved between the tiles of the IPU (op_exchange_bytes)
  double sync = 0;      //!< fixed costs: synchronisations and compute-set launches
  double pipeline = 0;  //!< a Send or Recv over the IPU-Links between the IPUs of a replica
  //! Cross-replica collectives per level of the topology (machine, IPU-Links, GW-Links).
  std::array<double, 3> collective{};
  double remote = 0;   //!< streaming (remote) memory: offloaded state, weights, accumulators
  double host_io = 0;  //!< infeed and outfeed on this IPU's clock
  double total() const;
};

//! The cycles of instr_cycles(), by what they are spent on.
InstrCost instr_cost(const Plan& plan, const Instr& instr);

//! Cycles instruction `instr` keeps its IPU busy: op_cycles of the task's nodes; bytes over the
//! IPU-Link bandwidth for Send and Recv, over the host bandwidth for Infeed and Outfeed; the
//! hierarchical all-reduce (or reduce-scatter) of the bucket over the topology
//! (planner/topology.hpp) for ReduceReplicas; one elementwise pass over the parameters for
//! Accumulate and UpdateWeights (plus the all-gather of sharded state's new weights and the
//! remote-memory round trip of offloaded state).
double instr_cycles(const Plan& plan, const Instr& instr);

//! Simulates one accumulation cycle and fills a CostReport: cycles per update (with the host
//! call shared by the steps_per_execution x repeat_count updates of one call), samples/s, per-IPU
//! utilisation (kernel cycles over the cycle), the bubble fraction (idle share of the IPUs between
//! the first and the last task instruction, comparable to analytic_bubble) next to the analytic
//! one, link and cross-replica bytes; where the update's time goes on the IPU that finishes last
//! (UpdateBreakdown) and the hosts' feed, which overlaps the IPUs and bounds the update when slower.
CostReport simulate_plan(const Plan& plan);

}  // namespace iputrain::planner
