// The optimizer implementations, one per file in engine/optim/, and the factory of each row of the
// optimizer table (core/optim_table.cpp): make_optimizer picks one by kind.
#pragma once

#include <memory>
#include <utility>

#include "engine/optim/optimizer.hpp"

namespace iputrain::engine {

using OptimizerFactory = std::unique_ptr<Optimizer> (*)(const OptimizerSettings&);

std::unique_ptr<Optimizer> make_sgd(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_momentum(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adam(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adamw(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_lamb(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_rmsprop(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_adagrad(const OptimizerSettings& o);
std::unique_ptr<Optimizer> make_lion(const OptimizerSettings& o);

//! One factory per row of the optimizer table (tests/engine/optim_test.cpp checks they match).
// clang-format off
inline constexpr std::pair<OptimizerKind, OptimizerFactory> kOptimizerFactories[] = {
    {OptimizerKind::Sgd, make_sgd},
    {OptimizerKind::Momentum, make_momentum},
    {OptimizerKind::Adam, make_adam},
    {OptimizerKind::AdamW, make_adamw},
    {OptimizerKind::Lamb, make_lamb},
    {OptimizerKind::RmsProp, make_rmsprop},
    {OptimizerKind::Adagrad, make_adagrad},
    {OptimizerKind::Lion, make_lion},
};
// clang-format on

}  // namespace iputrain::engine
