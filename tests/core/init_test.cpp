// Initializers: determinism by (seed, path), Keras limits and statistics, errors.
#include <cmath>

#include <doctest/doctest.h>

#include "core/init.hpp"

namespace iputrain {

namespace {

ir::Node param(std::string name, Shape shape, ir::Attrs attrs) {
  ir::Node n;
  n.op = ir::OpKind::Param;
  n.name = std::move(name);
  n.type = TensorType{DType::F32, std::move(shape)};
  n.attrs = std::move(attrs);
  n.span = SourceSpan{0, 4, 9, 14};
  return n;
}

std::vector<float> fill(const ir::Node& p, uint64_t seed = 1) {
  std::vector<float> v(static_cast<size_t>(p.type.numel()));
  fill_initializer(p, seed, v.data());
  return v;
}

struct Stats {
  double mean = 0;
  double std = 0;
  double min = 1e30;
  double max = -1e30;
};

Stats stats(const std::vector<float>& v) {
  Stats s;
  double sum = 0;
  double sum2 = 0;
  for (float x : v) {
    sum += x;
    sum2 += static_cast<double>(x) * x;
    s.min = std::min(s.min, static_cast<double>(x));
    s.max = std::max(s.max, static_cast<double>(x));
  }
  const auto n = static_cast<double>(v.size());
  s.mean = sum / n;
  s.std = std::sqrt(sum2 / n - s.mean * s.mean);
  return s;
}

ir::Attrs init(std::string name) {
  return ir::Attrs{{"init", std::move(name)}};
}

}  // namespace

TEST_CASE("init: Keras fans") {
  CHECK(compute_fans({}) == std::pair<double, double>{1, 1});
  CHECK(compute_fans({7}) == std::pair<double, double>{7, 7});
  CHECK(compute_fans({784, 128}) == std::pair<double, double>{784, 128});
  // A 3x3 convolution kernel [kh, kw, in, out]: receptive field 9.
  CHECK(compute_fans({3, 3, 16, 32}) == std::pair<double, double>{144, 288});
}

TEST_CASE("init: the same seed and path give the same values and others differ") {
  const auto p = param("features/dense/kernel", {64, 32}, init("glorot_uniform"));
  const auto a = fill(p, 5);
  CHECK(a == fill(p, 5));
  CHECK(a != fill(p, 6));
  CHECK(a != fill(param("classifier/dense/kernel", {64, 32}, init("glorot_uniform")), 5));
  // The values depend on the path, not on which node object or graph holds it.
  ir::Node copy = p;
  copy.span = {};
  CHECK(a == fill(copy, 5));
}

TEST_CASE("init: constants") {
  for (float v : fill(param("b", {5}, init("zeros")))) {
    CHECK(v == 0.0f);
  }
  for (float v : fill(param("g", {2, 2}, init("ones")))) {
    CHECK(v == 1.0f);
  }
  for (float v : fill(param("c", {3}, ir::Attrs{{"init", std::string("constant")}, {"value", 0.25}}))) {
    CHECK(v == 0.25f);
  }
  for (float v : fill(param("c", {3}, ir::Attrs{{"init", std::string("constant")}, {"value", int64_t{3}}}))) {
    CHECK(v == 3.0f);
  }
}

TEST_CASE("init: glorot_uniform stays within the Keras limit") {
  const auto s = stats(fill(param("k", {300, 200}, init("glorot_uniform"))));
  const double limit = std::sqrt(6.0 / 500.0);
  CHECK(s.min >= -limit);
  CHECK(s.max <= limit);
  CHECK(s.min < -0.99 * limit);
  CHECK(s.max > 0.99 * limit);
  CHECK(std::fabs(s.mean) < 0.01 * limit);
  CHECK(s.std == doctest::Approx(limit / std::sqrt(3.0)).epsilon(0.02));
}

TEST_CASE("init: truncated normals have the intended standard deviation") {
  // glorot_normal: std sqrt(2 / (fan_in + fan_out)); he_normal: sqrt(2 / fan_in); both cut at 2
  // (pre-correction) standard deviations.
  const auto g = stats(fill(param("g", {300, 200}, init("glorot_normal"))));
  const double gstd = std::sqrt(2.0 / 500.0);
  CHECK(g.std == doctest::Approx(gstd).epsilon(0.02));
  CHECK(std::fabs(g.mean) < 0.02 * gstd);
  CHECK(g.max <= 2.0 * gstd / 0.87962566103423978 + 1e-6);
  CHECK(g.min >= -2.0 * gstd / 0.87962566103423978 - 1e-6);
  const auto h = stats(fill(param("h", {3, 3, 32, 64}, init("he_normal"))));
  const double hstd = std::sqrt(2.0 / (9.0 * 32.0));
  CHECK(h.std == doctest::Approx(hstd).epsilon(0.03));
  CHECK(h.max <= 2.0 * hstd / 0.87962566103423978 + 1e-6);
}

TEST_CASE("init: normal and uniform with Keras defaults and explicit arguments") {
  const auto n = stats(fill(param("n", {200, 200}, init("normal"))));
  CHECK(n.std == doctest::Approx(0.05).epsilon(0.02));
  CHECK(std::fabs(n.mean) < 0.002);
  const auto n2 = stats(fill(
      param("n2", {200, 200}, ir::Attrs{{"init", std::string("normal")}, {"mean", 1.0}, {"stddev", 2.0}})));
  CHECK(n2.mean == doctest::Approx(1.0).epsilon(0.02));
  CHECK(n2.std == doctest::Approx(2.0).epsilon(0.02));
  const auto u = stats(fill(param("u", {200, 200}, init("uniform"))));
  CHECK(u.min >= -0.05);
  CHECK(u.max < 0.05);
  CHECK(u.std == doctest::Approx(0.1 / std::sqrt(12.0)).epsilon(0.02));
  const auto u2 = stats(fill(param(
      "u2", {200, 200}, ir::Attrs{{"init", std::string("uniform")}, {"minval", 2.0}, {"maxval", 3.0}})));
  CHECK(u2.min >= 2.0);
  CHECK(u2.max < 3.0);
  CHECK(u2.mean == doctest::Approx(2.5).epsilon(0.01));
}

TEST_CASE("init: he_uniform, lecun_normal, lecun_uniform and truncated_normal follow Keras") {
  // he_uniform: limit sqrt(6 / fan_in); lecun_uniform: sqrt(3 / fan_in); lecun_normal: std
  // sqrt(1 / fan_in) cut at two (pre-correction) standard deviations.
  const auto hu = stats(fill(param("hu", {3, 3, 16, 64}, init("he_uniform"))));
  const double hl = std::sqrt(6.0 / (9.0 * 16.0));
  CHECK(hu.min >= -hl);
  CHECK(hu.max <= hl);
  CHECK(hu.std == doctest::Approx(hl / std::sqrt(3.0)).epsilon(0.03));
  const auto lu = stats(fill(param("lu", {300, 200}, init("lecun_uniform"))));
  const double ll = std::sqrt(3.0 / 300.0);
  CHECK(lu.max <= ll);
  CHECK(lu.max > 0.99 * ll);
  CHECK(lu.std == doctest::Approx(ll / std::sqrt(3.0)).epsilon(0.02));
  const auto ln = stats(fill(param("ln", {300, 200}, init("lecun_normal"))));
  const double lstd = std::sqrt(1.0 / 300.0);
  CHECK(ln.std == doctest::Approx(lstd).epsilon(0.02));
  CHECK(ln.max <= 2.0 * lstd / 0.87962566103423978 + 1e-6);
  const auto t = stats(fill(
      param("t", {200, 200}, ir::Attrs{{"init", std::string("truncated_normal")}, {"mean", 1.0}, {"stddev", 0.5}})));
  CHECK(t.max <= 2.0 + 1e-6);
  CHECK(t.min >= 0.0 - 1e-6);
  CHECK(t.mean == doctest::Approx(1.0).epsilon(0.01));
  CHECK(t.std == doctest::Approx(0.5 * 0.87962566103423978).epsilon(0.03));
}

TEST_CASE("init: orthogonal gives orthonormal rows or columns, scaled by gain") {
  for (const Shape& shape : {Shape{32, 8}, Shape{8, 32}, Shape{2, 3, 6}, Shape{16, 16}}) {
    INFO("shape " << shape_str(shape));
    const std::vector<float> w = fill(param("o", shape, ir::Attrs{{"init", std::string("orthogonal")}, {"gain", 2.0}}));
    const int64_t cols = shape.back();
    const int64_t rows = numel(shape) / cols;
    // W^T W = gain^2 I for a tall W, W W^T = gain^2 I for a wide one.
    const bool tall = rows >= cols;
    const int64_t n = tall ? cols : rows;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (int64_t k = 0; k < (tall ? rows : cols); ++k) {
          dot += tall ? double(w[k * cols + i]) * w[k * cols + j] : double(w[i * cols + k]) * w[j * cols + k];
        }
        CHECK(dot == doctest::Approx(i == j ? 4.0 : 0.0).epsilon(1e-4).scale(1.0));
      }
    }
  }
  std::vector<float> out(4);
  CHECK_THROWS_AS(fill_initializer(param("v", {4}, init("orthogonal")), 0, out.data()), Error);
}

TEST_CASE("init: bad initializers are located semantic errors") {
  const auto p = param("features/dense/kernel", {4, 4}, init("glorot_unifrom"));
  std::vector<float> out(16);
  try {
    fill_initializer(p, 1, out.data());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Semantic);
    CHECK(e.span().line == 4);
    CHECK(e.diagnostic().message ==
          "parameter 'features/dense/kernel': unknown initializer 'glorot_unifrom'");
    CHECK(e.hint() == "did you mean 'glorot_uniform'?");
  }
  CHECK_THROWS_AS(fill_initializer(param("x", {2}, ir::Attrs{}), 1, out.data()), Error);
  CHECK_THROWS_AS(
      fill_initializer(
          param("x", {2}, ir::Attrs{{"init", std::string("uniform")}, {"minval", 1.0}, {"maxval", 0.0}}), 1,
          out.data()),
      Error);
  CHECK_THROWS_AS(
      fill_initializer(param("x", {2}, ir::Attrs{{"init", std::string("normal")}, {"stddev", -1.0}}), 1,
                       out.data()),
      Error);
}

}  // namespace iputrain
