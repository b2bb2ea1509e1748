// When training validates (training.validate_every, validate_every_unit): after the weight update
// that completes every `every` steps, or every `every` epochs, and after the last update. An epoch
// boundary that falls inside an update (a fractional number of updates per epoch) is validated
// after that update.
#pragma once

#include <cmath>
#include <cstdint>

namespace iputrain::engine {

//! The first update count after `step` at which a validation is due (not counting the run's end).
inline int64_t next_validation(int64_t step, int64_t every, bool epochs, double updates_per_epoch) {
  if (!epochs || updates_per_epoch <= 0) {
    return (step / every + 1) * every;
  }
  const double span = static_cast<double>(every) * updates_per_epoch;  // updates between validations
  // The k-th validation follows update ceil(k * span); the first k whose point lies after `step`.
  auto k = static_cast<int64_t>(std::floor(static_cast<double>(step) / span));
  for (;; ++k) {
    const auto point = static_cast<int64_t>(std::ceil(static_cast<double>(k) * span - 1e-9));
    if (point > step) {
      return point;
    }
  }
}

}  // namespace iputrain::engine
