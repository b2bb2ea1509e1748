// The optimizer implementations, one per file in engine/optim/; make_optimizer picks one.
#pragma once

#include <memory>

#include "engine/optim/optimizer.hpp"

namespace iputrain::engine {

std::unique_ptr<Optimizer> make_sgd(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_momentum(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adam(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adamw(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_lamb(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_rmsprop(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adagrad(const OptimizerSettings& o);

}  // namespace iputrain::engine
