// Parameter initializers, as in Keras, seeded by (config seed, parameter path).
//
// A Param node's attrs name its initializer and arguments:
//   init = "zeros" | "ones" | "constant" (value = 0) | "glorot_uniform" | "glorot_normal" |
//          "he_normal" | "normal" (mean = 0, stddev = 0.05) | "uniform" (minval = -0.05, maxval = 0.05)
// Fans follow Keras: a 2-D kernel is [fan_in, fan_out]; for higher ranks the receptive field (the
// product of all but the last two dimensions) multiplies both; rank 1 uses its size for both;
// a scalar uses 1. glorot_normal and he_normal draw from a normal truncated at two standard
// deviations, widened by 1 / 0.87962566103423978 so the variance is the intended one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace iputrain {

//! Names accepted in a Param's `init` attribute.
const std::vector<std::string>& initializer_names();

//! Keras fans of a kernel of `shape`: {fan_in, fan_out}.
std::pair<double, double> compute_fans(const Shape& shape);

//! Fills `out` (param.type.numel() floats) with the initial value of `param`. The same seed and
//! param.name always give the same values. Bad initializer names or arguments throw
//! iputrain::Error(Semantic) located at param.span.
void fill_initializer(const ir::Node& param, uint64_t seed, float* out);

}  // namespace iputrain
