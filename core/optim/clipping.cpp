#include "core/optim/clipping.hpp"

#include <algorithm>
#include <cmath>

#include "core/optim/tensor_sums.hpp"

namespace iputrain::optim {

double sum_of_squares(const std::vector<ParamSlot>& params) {
  double total = 0;
  for (const ParamSlot& p : params) {
    total += tensor_squares(p.grad, p.size);
  }
  return total;
}

float clip_scale(double global_norm_squared, const Settings& run) {
  if (run.plain.optimizer_gradient_clip_norm <= 0) {
    return 1.0f;
  }
  // The 1e-6 is torch's: it keeps the factor finite for a zero norm and makes a norm just at
  // the limit scale by a hair under 1, as torch does.
  const double factor = run.plain.optimizer_gradient_clip_norm / (std::sqrt(global_norm_squared) + 1e-6);
  return static_cast<float>(std::min(1.0, factor));
}

}  // namespace iputrain::optim
