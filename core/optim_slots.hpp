// Optimizer state per weight, for the planner's memory model (which must not depend on the
// engine that implements the optimizers). engine/optim keeps its optimizers' state_slots() equal
// to this (tests/engine/optim_test.cpp).
#pragma once

#include <cstdint>

#include "iputrain/config.hpp"
#include "iputrain/error.hpp"

namespace iputrain {

//! Floats of optimizer state kept per weight element (each one a full copy of the weights' size):
//! sgd 0; momentum 1 (velocity); adam, adamw, lamb 2 (first and second moments); rmsprop 1 (mean
//! square), 2 when centered (plus mean gradient); adagrad 1 (squared-gradient sum).
inline int32_t optimizer_state_slots(const OptimizerSection& o) {
  if (o.type == "sgd") {
    return 0;
  }
  if (o.type == "momentum" || o.type == "adagrad") {
    return 1;
  }
  if (o.type == "rmsprop") {
    return o.centered ? 2 : 1;
  }
  if (o.type == "adam" || o.type == "adamw" || o.type == "lamb") {
    return 2;
  }
  throw Error(ErrorKind::Internal, "optimizer_state_slots: unknown optimizer '" + o.type + "'");
}

}  // namespace iputrain
