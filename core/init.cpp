#include "core/init.hpp"

#include <cmath>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "core/rng.hpp"

namespace iputrain {

namespace {

// Standard deviation of a standard normal truncated to [-2, 2] (Keras' VarianceScaling constant).
constexpr double kTruncatedStd = 0.87962566103423978;

void fill_constant(float* out, int64_t n, float v) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = v;
  }
}

void fill_uniform(Rng& rng, float* out, int64_t n, double lo, double hi) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(lo + (hi - lo) * static_cast<double>(rng.uniform()));
  }
}

void fill_normal(Rng& rng, float* out, int64_t n, double mean, double stddev) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(mean + stddev * static_cast<double>(rng.normal()));
  }
}

// Redraws values beyond two standard deviations, as TensorFlow's truncated_normal does.
void fill_truncated_normal(Rng& rng, float* out, int64_t n, double stddev, double mean = 0.0) {
  for (int64_t i = 0; i < n; ++i) {
    float z = rng.normal();
    while (std::fabs(z) > 2.0f) {
      z = rng.normal();
    }
    out[i] = static_cast<float>(mean + stddev * static_cast<double>(z));
  }
}

// Keras' Orthogonal: the shape flattened to [rows = prod(shape[:-1]), cols = shape[-1]]; the Q of
// a normal matrix [max, min] (columns' signs fixed by R's diagonal, so Q is unique), transposed
// when rows < cols, scaled by gain. Rows (or columns) of the result are orthonormal.
void fill_orthogonal(Rng& rng, float* out, const Shape& shape, double gain) {
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const int64_t rows = cols == 0 ? 0 : numel(shape) / cols;
  const int64_t tall = std::max(rows, cols);
  const int64_t wide = std::min(rows, cols);
  Eigen::MatrixXd a(tall, wide);
  for (int64_t i = 0; i < tall; ++i) {
    for (int64_t j = 0; j < wide; ++j) {
      a(i, j) = static_cast<double>(rng.normal());
    }
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(tall, wide);
  const Eigen::MatrixXd r = qr.matrixQR().topRows(wide).triangularView<Eigen::Upper>();
  for (int64_t j = 0; j < wide; ++j) {
    if (r(j, j) < 0) {
      q.col(j) = -q.col(j);
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out[i * cols + j] = static_cast<float>(gain * (rows >= cols ? q(i, j) : q(j, i)));
    }
  }
}

}  // namespace

const std::vector<std::string>& initializer_names() {
  static const std::vector<std::string> names = {
      "zeros",        "ones",          "constant",         "glorot_uniform", "glorot_normal", "he_normal", "he_uniform",
      "lecun_normal", "lecun_uniform", "truncated_normal", "orthogonal",     "normal",        "uniform",   "lstm_bias"};
  return names;
}

std::pair<double, double> compute_fans(const Shape& shape) {
  if (shape.empty()) {
    return {1.0, 1.0};
  }
  if (shape.size() == 1) {
    return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
  }
  double receptive = 1.0;
  for (size_t i = 0; i + 2 < shape.size(); ++i) {
    receptive *= static_cast<double>(shape[i]);
  }
  return {static_cast<double>(shape[shape.size() - 2]) * receptive,
          static_cast<double>(shape.back()) * receptive};
}

void fill_initializer(const ir::Node& param, uint64_t seed, float* out) {
  const ir::Attrs& a = param.attrs;
  const std::string& name = a.get_str("init");
  const int64_t n = param.type.numel();
  auto fail = [&](const std::string& message, std::string hint = {}) -> Error {
    return Error(ErrorKind::Semantic, fmt::format("parameter '{}': {}", param.name, message), param.span,
                 std::move(hint));
  };
  if (param.type.dtype != DType::F32) {
    throw fail(fmt::format("initializers fill f32 parameters, this one is {}", param.type.str()));
  }
  Rng rng(seed, param.name);
  const auto [fan_in, fan_out] = compute_fans(param.type.shape);
  if (name == "zeros") {
    fill_constant(out, n, 0.0f);
  } else if (name == "ones") {
    fill_constant(out, n, 1.0f);
  } else if (name == "constant") {
    fill_constant(out, n, static_cast<float>(a.get_float("value", 0.0)));
  } else if (name == "glorot_uniform") {
    const double limit = std::sqrt(6.0 / std::max(1.0, fan_in + fan_out));
    fill_uniform(rng, out, n, -limit, limit);
  } else if (name == "glorot_normal") {
    fill_truncated_normal(rng, out, n, std::sqrt(2.0 / std::max(1.0, fan_in + fan_out)) / kTruncatedStd);
  } else if (name == "he_normal") {
    fill_truncated_normal(rng, out, n, std::sqrt(2.0 / std::max(1.0, fan_in)) / kTruncatedStd);
  } else if (name == "he_uniform") {
    const double limit = std::sqrt(6.0 / std::max(1.0, fan_in));
    fill_uniform(rng, out, n, -limit, limit);
  } else if (name == "lecun_normal") {
    fill_truncated_normal(rng, out, n, std::sqrt(1.0 / std::max(1.0, fan_in)) / kTruncatedStd);
  } else if (name == "lecun_uniform") {
    const double limit = std::sqrt(3.0 / std::max(1.0, fan_in));
    fill_uniform(rng, out, n, -limit, limit);
  } else if (name == "truncated_normal") {
    const double stddev = a.get_float("stddev", 0.05);
    if (!(stddev >= 0.0)) {
      throw fail(fmt::format("truncated_normal(stddev = {}) needs stddev >= 0", stddev));
    }
    fill_truncated_normal(rng, out, n, stddev, a.get_float("mean", 0.0));
  } else if (name == "orthogonal") {
    if (param.type.rank() < 2) {
      throw fail(fmt::format("orthogonal needs a parameter of rank 2 or more, this one is {}", param.type.str()),
                 "it fills matrices, e.g. a recurrent kernel f32[units, 4 * units]");
    }
    fill_orthogonal(rng, out, param.type.shape, a.get_float("gain", 1.0));
  } else if (name == "lstm_bias") {
    // An LSTM bias: the last dimension holds the gates i, f, c, o; the forget gate's block is
    // `forget` (Keras' unit_forget_bias: 1), the others 0.
    const int64_t gates = param.type.rank() == 0 ? 0 : param.type.shape.back();
    if (gates == 0 || gates % 4 != 0) {
      throw fail(fmt::format("lstm_bias fills an LSTM bias of 4 * units values, this one is {}", param.type.str()));
    }
    for (int64_t i = 0; i < n; ++i) {
      out[i] = (i % gates) / (gates / 4) == 1 ? static_cast<float>(a.get_float("forget", 1.0)) : 0.0f;
    }
  } else if (name == "normal") {
    const double stddev = a.get_float("stddev", 0.05);
    if (!(stddev >= 0.0)) {
      throw fail(fmt::format("normal(stddev = {}) needs stddev >= 0", stddev));
    }
    fill_normal(rng, out, n, a.get_float("mean", 0.0), stddev);
  } else if (name == "uniform") {
    const double lo = a.get_float("minval", -0.05);
    const double hi = a.get_float("maxval", 0.05);
    if (!(lo <= hi)) {
      throw fail(fmt::format("uniform(minval = {}, maxval = {}) needs minval <= maxval", lo, hi));
    }
    fill_uniform(rng, out, n, lo, hi);
  } else {
    const std::string near = nearest_name(name, initializer_names());
    throw fail(name.empty() ? "no initializer given" : fmt::format("unknown initializer '{}'", name),
               near.empty() ? fmt::format("known initializers: {}", fmt::join(initializer_names(), ", "))
                            : fmt::format("did you mean '{}'?", near));
  }
}

}  // namespace iputrain
