// Synthetic datasets: determinism, options, and labels a linear model can learn.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "core/data/dataset.hpp"
#include "iputrain/error.hpp"

using namespace iputrain;

namespace {

const std::vector<data::Field> kWanted = {{"x", DType::F32, {4, 4}}, {"label", DType::I32, {}}};

std::vector<uint8_t> dump(const data::Dataset& ds) {
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < ds.size(); ++i) {
    for (size_t f = 0; f < ds.fields().size(); ++f) {
      std::vector<uint8_t> buf(ds.fields()[f].bytes());
      ds.read(i, f, buf.data());
      out.insert(out.end(), buf.begin(), buf.end());
    }
  }
  return out;
}

std::string synthetic_error(const std::string& options) {
  try {
    (void)data::open_synthetic(options, kWanted, 1);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    return std::string(e.what()) + " | " + e.hint();
  }
  FAIL("accepted synthetic:" << options);
  return {};
}

}  // namespace

TEST_CASE("synthetic: same seed, same data, other seed, other data") {
  auto a = data::open_dataset("synthetic:samples=64,classes=5", "", kWanted, 7);
  auto b = data::open_dataset("synthetic:samples=64,classes=5", "", kWanted, 7);
  auto c = data::open_dataset("synthetic:samples=64,classes=5", "", kWanted, 8);
  REQUIRE(a->size() == 64);
  CHECK(dump(*a) == dump(*b));
  CHECK(dump(*a) != dump(*c));
  // More samples extend the same stream: the first samples do not change.
  auto d = data::open_dataset("synthetic:samples=128,classes=5", "", kWanted, 7);
  std::vector<float> x1(16), x2(16);
  a->read(10, 0, x1.data());
  d->read(10, 0, x2.data());
  CHECK(x1 == x2);
}

TEST_CASE("synthetic: defaults and fields") {
  auto ds = data::open_synthetic("", {}, 1);
  CHECK(ds->size() == 1024);
  REQUIRE(ds->fields().size() == 2);
  CHECK(ds->fields()[0].str() == "x: f32[16]");
  CHECK(ds->fields()[1].str() == "label: i32[]");
  std::set<int32_t> labels;
  for (int64_t i = 0; i < ds->size(); ++i) {
    int32_t l = -1;
    ds->read(i, 1, &l);
    REQUIRE(l >= 0);
    REQUIRE(l < 10);
    labels.insert(l);
  }
  CHECK(labels.size() == 10);
}

TEST_CASE("synthetic: uniform inputs, half-precision and bool fields") {
  std::vector<data::Field> wanted = {{"u", DType::F32, {8}},
                                     {"h", DType::F16, {2}},
                                     {"b", DType::BF16, {2}},
                                     {"flag", DType::Bool, {}},
                                     {"tags", DType::I32, {3}}};
  auto ds = data::open_synthetic("samples=200,classes=3,dist=uniform", wanted, 3);
  REQUIRE(ds->fields().size() == 5);
  std::set<int> flags;
  for (int64_t i = 0; i < ds->size(); ++i) {
    float u[8];
    ds->read(i, 0, u);
    for (float v : u) {
      REQUIRE(v >= 0.0f);
      REQUIRE(v < 1.0f);
    }
    uint16_t h[2];
    ds->read(i, 1, h);
    for (uint16_t v : h) {
      REQUIRE((v & 0x7fff) < 0x3c00);  // |x| < 1 in f16
    }
    uint16_t bf[2];
    ds->read(i, 2, bf);
    for (uint16_t v : bf) {
      REQUIRE((v & 0x7fff) <= 0x3f80);  // |x| <= 1 in bf16 (rounding may reach 1.0)
    }
    uint8_t flag = 9;
    ds->read(i, 3, &flag);
    REQUIRE(flag <= 1);
    flags.insert(flag);
    int32_t tags[3];
    ds->read(i, 4, tags);
    for (int32_t t : tags) {
      REQUIRE(t >= 0);
      REQUIRE(t < 3);
    }
  }
  CHECK(flags.size() == 2);
}

TEST_CASE("synthetic: a u8 field holds random bytes over 0..255, and the labels follow them") {
  const std::vector<data::Field> wanted = {{"image", DType::U8, {4, 4, 3}}, {"label", DType::I32, {}}};
  auto ds = data::open_synthetic("samples=300,classes=4", wanted, 5);
  CHECK(ds->fields()[0].bytes() == 48);
  std::set<int> values;
  std::set<int32_t> labels;
  for (int64_t i = 0; i < ds->size(); ++i) {
    uint8_t px[48];
    ds->read(i, 0, px);
    values.insert(px, px + 48);
    int32_t label = -1;
    ds->read(i, 1, &label);
    labels.insert(label);
  }
  CHECK(values.size() > 250);  // nearly every byte value drawn
  CHECK(*values.begin() == 0);
  CHECK(*values.rbegin() == 255);
  CHECK(labels.size() == 4);  // the teacher reads the bytes: its labels vary
  CHECK(dump(*ds) == dump(*data::open_synthetic("samples=300,classes=4", wanted, 5)));
}

TEST_CASE("synthetic: a label field alone is random but in range") {
  auto ds = data::open_synthetic("samples=100,classes=4", {{"label", DType::I32, {}}}, 5);
  std::set<int32_t> seen;
  for (int64_t i = 0; i < 100; ++i) {
    int32_t l = -1;
    ds->read(i, 0, &l);
    REQUIRE(l >= 0);
    REQUIRE(l < 4);
    seen.insert(l);
  }
  CHECK(seen.size() == 4);
}

TEST_CASE("synthetic: labels come from a linear teacher a perceptron can learn") {
  const int64_t n = 1024, d = 16, c = 4;
  auto ds =
      data::open_synthetic("samples=1024,classes=4", {{"x", DType::F32, {d}}, {"y", DType::I32, {}}}, 11);
  std::vector<float> x(static_cast<size_t>(n * d));
  std::vector<int32_t> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ds->read(i, 0, x.data() + i * d);
    ds->read(i, 1, &y[static_cast<size_t>(i)]);
  }
  std::vector<float> w(static_cast<size_t>(c * (d + 1)), 0.0f);
  auto predict = [&](int64_t i) {
    int64_t best = 0;
    float best_v = -1e30f;
    for (int64_t k = 0; k < c; ++k) {
      float v = w[static_cast<size_t>(k * (d + 1) + d)];
      for (int64_t j = 0; j < d; ++j) {
        v += w[static_cast<size_t>(k * (d + 1) + j)] * x[static_cast<size_t>(i * d + j)];
      }
      if (v > best_v) {
        best_v = v;
        best = k;
      }
    }
    return best;
  };
  for (int epoch = 0; epoch < 50; ++epoch) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = predict(i);
      const int64_t t = y[static_cast<size_t>(i)];
      if (p == t) {
        continue;
      }
      for (int64_t j = 0; j <= d; ++j) {
        const float xj = j < d ? x[static_cast<size_t>(i * d + j)] : 1.0f;
        w[static_cast<size_t>(t * (d + 1) + j)] += xj;
        w[static_cast<size_t>(p * (d + 1) + j)] -= xj;
      }
    }
  }
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) {
    correct += predict(i) == y[static_cast<size_t>(i)] ? 1 : 0;
  }
  MESSAGE("perceptron accuracy on synthetic data: " << static_cast<double>(correct) / n);
  CHECK(static_cast<double>(correct) / n > 0.9);  // chance is 0.25
}

TEST_CASE("synthetic: bad options") {
  CHECK(synthetic_error("sample=10").find("unknown synthetic option `sample` | did you mean `samples`?") ==
        0);
  CHECK(synthetic_error("colour=red").find("unknown synthetic option `colour`") == 0);
  CHECK(synthetic_error("samples=0").find("`samples` must be >= 1, found 0") != std::string::npos);
  CHECK(synthetic_error("samples=ten").find("must be an integer, found \"ten\"") != std::string::npos);
  CHECK(synthetic_error("dist=cauchy").find("normal or uniform") != std::string::npos);
  CHECK(synthetic_error("samples").find("key=value") != std::string::npos);
  CHECK(synthetic_error("samples=100000000000").find("would exceed") != std::string::npos);
}
