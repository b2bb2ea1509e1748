// recomputation_checkpoint: the identity, marking a value to keep rather than recompute. Under
// `recompute_and_backpropagate_interleaved` the planner stashes checkpointed values, so the
// recomputation before a stage's backward starts from them instead of from the stage's inputs;
// under other modes (and without `ipu.allow_recompute`) it only copies.
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_recomputation_checkpoint {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  // Checkpoints mark activations; an integer value (labels, indices) is never recomputed anyway.
  if (!is_float(in[0]->dtype)) {
    throw OpError{fmt::format("recomputation_checkpoint takes a float activation, got {}", in[0]->str()),
                  "checkpoint the float value computed from it"};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  par::copy(args.output.data, x.data, x.type->bytes());
}

std::vector<ValueId> backward(Graph&, ValueId, ValueId dy) { return {dy}; }

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node); }

}  // namespace impl_recomputation_checkpoint
}  // namespace

const OpDef kRecomputationCheckpointOp{
    .kind = OpKind::RecomputationCheckpoint,
    .name = "recomputation_checkpoint",
    .arity = 1,
    .infer = impl_recomputation_checkpoint::infer,
    .forward = impl_recomputation_checkpoint::forward,
    .backward = impl_recomputation_checkpoint::backward,
    .cost = impl_recomputation_checkpoint::cost,
    .doc =
        "x unchanged; the planner stashes it instead of recomputing it "
        "(recompute_and_backpropagate_interleaved).",
    .inputs = kInputX,
    .edges = "passes values unchanged.",
};

}  // namespace iputrain::ir
