// What the compute type (training.precision) changes in the planner's models. The engine keeps
// every tensor in f32 host storage, but with f16 or bf16 compute a device would hold the values
// the passes compute in 2 bytes, so the memory model and the engine's memory account both count
// bytes through these functions and agree with each other.
#pragma once

#include <cstdint>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"
#include "planner/device_program.hpp"

namespace iputrain::planner {

//! True for the half-precision compute types (f16, bf16).
bool is_half(DType compute);
//! The tensor type of a float type a setting names.
DType dtype_of(FloatType t);

//! Bytes parameter `p` takes on its IPU: f32 when the compute type is f32; under half compute the
//! half copy the passes read, plus the f32 master when it stays on the IPU.
int64_t device_weight_bytes(const ir::Graph& g, ir::ValueId p, DType compute, MasterWeightsPlace master);

//! Bytes of `slots` optimizer moments of `elements` weights kept in `dtype` (optimizer.state_dtype).
inline int64_t optimizer_state_bytes(int32_t slots, int64_t elements, DType dtype) {
  return static_cast<int64_t>(slots) * elements * static_cast<int64_t>(dtype_size(dtype));
}

//! Bytes one copy of `v` takes on the device. Float values the forward and backward passes compute
//! (activations, gradients, stashes) take the compute type's size. A parameter counts as
//! device_weight_bytes() with its master on chip. Inputs, constants and integer values keep their
//! own type.
int64_t device_bytes(const ir::Graph& g, ir::ValueId v, DType compute);

//! Device bytes of the largest message on channel `c` (what one of its buffers holds).
int64_t device_message_bytes(const ir::Graph& g, const DevicePrograms& programs, const Channel& c,
                             DType compute);

}  // namespace iputrain::planner
