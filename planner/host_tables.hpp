// Host tables: parameters declared `host = true` (nn.host_embedding's), the seed's HostEmbedding.
// A host table lives in the host's memory, not on any IPU: the host looks its rows up for each
// micro-batch (the gather that reads it runs on the host and its rows cross the host link to the
// IPU), the row gradients cross back, the host scatters them into the table's gradient, and the
// weight update applies the run's optimizer to the table there. The planner leaves the table, its
// gradient, accumulators and optimizer state out of every IPU's memory (IpuMemory::host_tables
// instead) and prices the rows and row gradients on the host link; the engine keeps them outside
// the IPU's memory (engine/cluster/device_memory.hpp) and runs the same kernels in the same order
// as for any weight, so a host table trains to the same bits as the same table on the IPU.
#pragma once

#include <cstdint>

#include "planner/plan.hpp"

namespace iputrain::planner {

//! A parameter declared `host = true`.
bool is_host_table(const ir::Node& n);
//! Whether the graph has one.
bool has_host_tables(const ir::Graph& g);
//! Whether node `v` runs on the host: the gather that reads a host table, or that table's gradient
//! (the scatter of the row gradients).
bool host_node(const Plan& plan, ir::ValueId v);
//! Bytes host node `v` moves over the host link per micro-batch: the ids to the host and the
//! gathered rows back, or the row gradients to the host; 0 for any other node.
int64_t host_link_bytes(const Plan& plan, ir::ValueId v);

//! What the host tables of one IPU (the one whose stage reads them) take and move.
struct HostTableFigures {
  int64_t tables = 0;     //!< the tables' bytes (f32), in host memory
  int64_t state = 0;      //!< their gradients, accumulators and optimizer state, in host memory
  int64_t rows_in = 0;    //!< gathered rows streamed to the IPU per micro-batch
  int64_t grads_out = 0;  //!< row gradients streamed back per micro-batch
};

//! Refuses what a host table does not support, at the model's source: a table read by anything
//! but one gather (as its table), and the replicated weight or optimizer-state sharding, which
//! would split the table over the replicas' IPUs. Call once the placement is decided.
void check_host_tables(const Plan& plan);

}  // namespace iputrain::planner
