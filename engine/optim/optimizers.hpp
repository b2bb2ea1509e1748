// The optimizer implementations, one per file in engine/optim/; make_optimizer picks one.
#pragma once

#include <memory>

#include "engine/optim/optimizer.hpp"

namespace iputrain::engine {

std::unique_ptr<Optimizer> make_sgd(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_momentum(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_adam(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_adamw(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_lamb(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_rmsprop(const OptimizerSection& o);
std::unique_ptr<Optimizer> make_adagrad(const OptimizerSection& o);

}  // namespace iputrain::engine
