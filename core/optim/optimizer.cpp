#include "core/optim/optimizer.hpp"

namespace iputrain::optim {

std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& o) { return optimizer_def(o).make(o); }

}  // namespace iputrain::optim
