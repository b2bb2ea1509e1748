// Optimizers: the weight update, run once per accumulation cycle on the reduced gradients.
//
// Each optimizer follows the update rule of its torch.optim counterpart (LAMB, which torch lacks,
// follows the LAMB paper), so a run agrees with PyTorch from the same weights and batches
// (bench/torch_agreement.py optimizers). Optimizers hold only hyper-parameters: every per-element
// state (moments, accumulators) lives in memory the caller provides per parameter, so one
// optimizer object can update the parameters of any number of virtual IPUs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/optim_table.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::optim {

//! One parameter as the optimizer sees it: the whole tensor, or under sharded optimizer state one
//! replica's block of it (core/shard_rule.hpp), which starts on a grain of the tensor.
struct ParamSlot {
  float* weights;     //!< `size` floats, updated in place
  const float* grad;  //!< `size` floats: the reduced gradient
  float* state;       //!< the state arrays (OptimizerDef::state), zeroed by the caller, then init_state()
  int64_t size;
  int64_t state_stride =
      0;  //!< floats from one state copy to the next; 0 = `size` (a block of a slot keeps its slot's)
  std::span<const int64_t> shape = {};  //!< the whole weight's shape (its state arrays' shapes follow from it)
};

//! Completes sums of squares over whole tensors (core/optim/tensor_sums.hpp) for optimizers
//! that need them (LAMB's norms) and for gradient clipping.
class TensorSums {
 public:
  virtual ~TensorSums() = default;
  //! `grains` holds, slot after slot and for each slot `quantities` quantities one after the
  //! other, the sums of squares of the slot's grains (shard_grains(slot.size) each).
  //! Writes `totals[slot * quantities + q]`: the sum over every grain of the slot's whole tensor,
  //! added in the tensor's order, whoever holds them.
  virtual void complete(const std::vector<ParamSlot>& params, int32_t quantities, std::span<const double> grains,
                        std::span<double> totals) = 0;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  //! Sets a slot's state to its starting value; call once per slot before the first update.
  //! The state arrives zeroed; optimizers whose state starts elsewhere (adagrad) fill it here.
  virtual void init_state(const ParamSlot& slot) const {}
  //! Applies update number `step` (1-based) to every slot with learning rate `lr`. Every gradient
  //! is multiplied by `grad_scale` first (replica averaging, clipping, loss-scale removal).
  //! Allocates nothing.
  virtual void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) = 0;
  //! update() when the slots may be blocks of their tensors: whole-tensor sums go through `sums`.
  //! Element-wise optimizers need none and run update().
  virtual void update_blocks(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale,
                             TensorSums& sums) {
    (void)sums;
    update(params, step, lr, grad_scale);
  }
  //! Sizes any working memory update() needs for these slots, so that updates allocate nothing.
  virtual void reserve(const std::vector<ParamSlot>& params) { (void)params; }
};

//! Every optimizer's definition, kNameOptimizer in its file core/optim/name.cpp.
#define IPUTRAIN_OPTIMIZER(Name) extern const OptimizerDef k##Name##Optimizer;
#include "core/optim/optimizer_list.hpp"
#undef IPUTRAIN_OPTIMIZER

//! Builds the optimizer of `o.type` with its hyper-parameters (its definition's factory).
std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& o);

//! OptimizerDef::state of an optimizer that keeps no state (sgd).
inline std::vector<Shape> no_state(const Shape&, const OptimizerSettings&) { return {}; }
//! OptimizerDef::state of an element-wise optimizer that keeps N copies of the weight.
template <int N>
std::vector<Shape> weight_copies(const Shape& weight, const OptimizerSettings&) {
  return std::vector<Shape>(N, weight);
}

}  // namespace iputrain::optim
