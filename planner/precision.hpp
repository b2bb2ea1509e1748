// What the compute type (training.precision) changes in the planner's models. The engine keeps
// every tensor in f32 host storage, but with f16 or bf16 compute a device would hold the values
// the passes compute in 2 bytes, so the memory model and the engine's memory account both count
// bytes through these functions and agree with each other.
#pragma once

#include <cstdint>

#include "core/ir/graph.hpp"
#include "planner/device_program.hpp"

namespace iputrain::planner {

//! True for the half-precision compute types (f16, bf16).
bool is_half(DType compute);

//! Bytes one copy of `v` takes on the device. Float values the forward and backward passes compute
//! (activations, gradients, stashes) take the compute type's size. A parameter holds its f32
//! master weight and, with half compute, the half copy the passes read. Inputs, constants and
//! integer values keep their own type.
int64_t device_bytes(const ir::Graph& g, ir::ValueId v, DType compute);

//! Device bytes of the largest message on channel `c` (what one of its buffers holds).
int64_t device_message_bytes(const ir::Graph& g, const DevicePrograms& programs, const Channel& c,
                             DType compute);

}  // namespace iputrain::planner
