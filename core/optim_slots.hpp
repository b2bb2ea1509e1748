// Optimizer state per weight, for the planner's memory model (which must not depend on the
// engine that implements the optimizers). engine/optim keeps its optimizers' state_slots() equal
// to this (tests/engine/optim_test.cpp).
#pragma once

#include <cstdint>

#include "iputrain/settings.hpp"

namespace iputrain {

//! Floats of optimizer state kept per weight element (each one a full copy of the weights' size):
//! sgd 0; momentum 1 (velocity); adam, adamw, lamb 2 (first and second moments); rmsprop 1 (mean
//! square), 2 when centered (plus mean gradient); adagrad 1 (squared-gradient sum).
inline int32_t optimizer_state_slots(const OptimizerSettings& o) {
  switch (o.kind) {
    case OptimizerKind::Sgd:
      return 0;
    case OptimizerKind::Momentum:
    case OptimizerKind::Adagrad:
      return 1;
    case OptimizerKind::RmsProp:
      return o.centered ? 2 : 1;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
    case OptimizerKind::Lamb:
      return 2;
  }
  return 0;
}

}  // namespace iputrain
