// Temporary memory of matmuls and convolutions, bounded by PopLibs' availableMemoryProportion.
//
// On an IPU a matmul or a convolution needs working memory besides its operands and its result:
// the operands laid out again across the tiles, and the partial sums of its reduction, kept in the
// partials type (f32, or f16 with partialsType = half under half compute). The planner counts
// (operand elements) x compute bytes + (result elements) x partial bytes. availableMemoryProportion
// (PopLibs' default 0.6) caps that at its share of the IPU's memory; an op that needs more runs in
// passes that each fit, and every pass after the first reads its operands again at the tiles'
// memory bandwidth. The options come from `ipu.matmuls.poplar_options`,
// `ipu.convolutions.poplar_options` and, per stage, `pipeline.forward_propagation_stages_poplar_options`
// and `pipeline.backward_propagation_stages_poplar_options`.
#pragma once

#include <cstdint>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"
#include "planner/cost_model.hpp"

namespace iputrain::planner {

//! The options of one kind of op (matmul or convolution) in one stage and pass, as the config
//! resolves them (iputrain/settings.hpp).
using TemporaryLimit = MemoryOptions;

//! The matmul and convolution limits of one stage in one pass.
using StageLimits = StageMemoryOptions;

//! What one op instance takes beyond its operands and result.
struct OpTemporaries {
  int64_t bytes = 0;        //!< device bytes held while it runs (0: not a matmul or convolution)
  int64_t passes = 1;       //!< passes it runs in to stay within its share of memory
  double extra_cycles = 0;  //!< the operand reads of the passes after the first
};

//! True for the ops that have temporaries: matmul and the three convolution ops.
bool has_temporaries(ir::OpKind op);

//! The temporaries of node `id` under `limits` on device `d` (d.compute is the compute type).
OpTemporaries op_temporaries(const ir::Graph& g, ir::ValueId id, const StageLimits& limits, const DeviceModel& d);

}  // namespace iputrain::planner
