// Optimizers: the weight update, run once per accumulation cycle on the reduced gradients.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "iputrain/config.hpp"

namespace iputrain::engine {

//! One parameter as the optimizer sees it: its weights, its gradient and its optimizer state.
struct ParamSlot {
  float* weights;
  const float* grad;
  int64_t size;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  //! Applies one update to every slot; `step` is the 1-based update count.
  virtual void update(const std::vector<ParamSlot>& params, int64_t step) = 0;
  //! Bytes of optimizer state per parameter element (for the memory model).
  virtual int64_t state_bytes_per_element() const = 0;
};

//! Builds the optimizer named by config.optimizer.type.
std::unique_ptr<Optimizer> make_optimizer(const Config& config);

}  // namespace iputrain::engine
