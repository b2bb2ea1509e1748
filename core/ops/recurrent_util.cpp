#include "core/ops/recurrent_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

RecurrentDims recurrent_dims(const TensorType& xw, const TensorType& kernel, int64_t gates) {
  if (xw.dtype != DType::F32 || xw.rank() != 3) {
    throw OpError{fmt::format("xw must be f32[batch, steps, {} * units], got {}", gates, xw.str()),
                  "xw is the input projection x @ kernel + bias of every step"};
  }
  if (kernel.dtype != DType::F32 || kernel.rank() != 2 || kernel.shape[1] != gates * kernel.shape[0] ||
      kernel.shape[0] < 1) {
    throw OpError{fmt::format("recurrent_kernel must be f32[units, {} * units], got {}", gates, kernel.str()),
                  "one column block per gate, as Keras lays them out"};
  }
  RecurrentDims d{xw.shape[0], xw.shape[1], kernel.shape[0]};
  if (xw.shape[2] != gates * d.u) {
    throw OpError{fmt::format("xw {} does not fit {} units ({} gates)", xw.str(), d.u, gates),
                  fmt::format("its last dimension is {} * units = {}", gates, gates * d.u)};
  }
  if (d.t < 1) {
    throw OpError{fmt::format("a recurrent op needs at least one step, xw is {}", xw.str()), ""};
  }
  return d;
}

void check_state(const TensorType& s, const RecurrentDims& d, std::string_view what) {
  if (s.dtype != DType::F32 || s.shape != Shape{d.b, d.u}) {
    throw OpError{fmt::format("{} must be f32[{}, {}] (batch, units), got {}", what, d.b, d.u, s.str()), ""};
  }
}

void check_lengths(const TensorType& lengths, const RecurrentDims& d) {
  if (lengths.dtype != DType::I32 || lengths.shape != Shape{d.b}) {
    throw OpError{fmt::format("lengths must be i32[{}] (one per sample), got {}", d.b, lengths.str()),
                  "each sample's number of valid steps; pass the step count for unpadded batches"};
  }
}

void check_sequence(const TensorType& s, const RecurrentDims& d, int64_t width, std::string_view what) {
  if (s.dtype != DType::F32 || s.shape != Shape{d.b, d.t, width}) {
    throw OpError{fmt::format("{} must be f32[{}, {}, {}], got {}", what, d.b, d.t, width, s.str()), ""};
  }
}

int64_t sample_steps(const Node& node, const int32_t* lengths, int64_t n, int64_t t) {
  const int32_t len = lengths[n];
  if (len < 0 || len > t) {
    throw Error(ErrorKind::Data, fmt::format("lengths[{}] = {} is outside [0, {}]", n, len, t), node.span,
                "a sample's length counts its valid steps, at most the sequence length");
  }
  return len;
}

Cost recurrent_cost(const Graph& g, const Node& node, const RecurrentDims& d, int64_t gates, double products,
                    double per_element) {
  Cost c = elementwise_cost(g, node, per_element);
  c.flops += products * 2.0 * static_cast<double>(d.t * d.b * d.u * gates * d.u);
  return c;
}

}  // namespace iputrain::ir
