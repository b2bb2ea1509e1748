// The embedding API's data and control (include/iputrain/session.hpp): arrays in memory and a
// sample callback as sources, checked like files; request_stop() ends training cleanly.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {

// kMlp: image f32[16, 8, 8], label i32[16]. A learnable rule: the label is 1 when the first pixel
// is positive.
struct Arrays {
  std::vector<float> image;
  std::vector<int32_t> label;
};

Arrays make(int64_t n) {
  Arrays a;
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < 64; ++j) {
      a.image.push_back(static_cast<float>(((i * 37 + j * 11) % 17) - 8) / 8.0f);
    }
    a.label.push_back(a.image[static_cast<size_t>(i * 64)] > 0 ? 1 : 0);
  }
  return a;
}

Session session(const std::string& extra = "") {
  Config c = config::parse(
      "[optimizer]\nlearning_rate = 0.1\n[training]\nsteps = 20\nsteps_per_execution = 2\nseed = 4\n" + extra,
      "host.toml");
  return Session(Model::parse(testing::kMlp, "host.ipu", c.model), c);
}

}  // namespace

TEST_CASE("arrays in memory train exactly like the same values from a callback") {
  const Arrays a = make(256);
  Session s1 = session();
  s1.set_data("train", {ArrayData::f32("image", {256, 8, 8}, a.image.data()), ArrayData::i32("label", {256}, a.label.data())});
  const TrainSummary t1 = s1.train();
  CHECK(t1.steps == 20);
  Session s2 = session();
  s2.set_data("train", SampleSource{256, [&](int64_t i, const std::string& input, void* dst) {
                                      if (input == "image") {
                                        std::memcpy(dst, a.image.data() + i * 64, 64 * sizeof(float));
                                      } else {
                                        std::memcpy(dst, a.label.data() + i, sizeof(int32_t));
                                      }
                                    }});
  s2.train();
  CHECK(testing::same_bits(s1.weights(), s2.weights()));
  // Converted like a file's values: f64 and u8 arrays feed f32 and i32 inputs.
  std::vector<double> image64(a.image.begin(), a.image.end());
  std::vector<uint8_t> label8(a.label.begin(), a.label.end());
  ArrayData img{"image", "f64", {256, 8, 8}, {}};
  img.bytes.assign(reinterpret_cast<const uint8_t*>(image64.data()),
                   reinterpret_cast<const uint8_t*>(image64.data() + image64.size()));
  ArrayData lab{"label", "u8", {256}, label8};
  Session s3 = session();
  s3.set_data("train", {img, lab});
  s3.train();
  CHECK(testing::same_bits(s1.weights(), s3.weights()));
}

TEST_CASE("in-memory arrays are checked like files") {
  const Arrays a = make(32);
  Session s = session();
  const auto message = [&](const std::vector<ArrayData>& arrays) {
    try {
      s.set_data("train", arrays);
    } catch (const Error& e) {
      return e.render();
    }
    return std::string("accepted");
  };
  CHECK(message({ArrayData::f32("image", {32, 8, 8}, a.image.data())}).find("no array for the model's input `label`") !=
        std::string::npos);
  CHECK(message({ArrayData::f32("image", {32, 64}, a.image.data()), ArrayData::i32("label", {32}, a.label.data())})
            .find("image") != std::string::npos);
  ArrayData floats_for_labels = ArrayData::f32("label", {32}, a.image.data());
  CHECK(message({ArrayData::f32("image", {32, 8, 8}, a.image.data()), floats_for_labels}).find("label") != std::string::npos);
  ArrayData short_bytes = ArrayData::f32("image", {32, 8, 8}, a.image.data());
  short_bytes.bytes.resize(100);
  CHECK(message({short_bytes, ArrayData::i32("label", {32}, a.label.data())}).find("needs 8192 bytes, it has 100") !=
        std::string::npos);
  CHECK_THROWS_AS(s.set_data("valid", std::vector<ArrayData>{}), Error);
}

TEST_CASE("request_stop from the progress callback ends training after that execution, with a checkpoint") {
  const fs::path dir = fs::temp_directory_path() / ("iputrain_host_data_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Arrays a = make(256);
  Session s = session("[checkpoint]\ndir = \"" + dir.string() + "\"\nkeep = 0\n");
  s.set_data("train", {ArrayData::f32("image", {256, 8, 8}, a.image.data()), ArrayData::i32("label", {256}, a.label.data())});
  const TrainSummary t = s.train([&](const Progress& p) {
    if (p.step == 6) {
      s.request_stop();
    }
  });
  CHECK(t.stopped);
  CHECK(t.steps == 6);
  CHECK(s.step() == 6);
  REQUIRE(t.checkpoints.size() == 1);
  CHECK(fs::path(t.checkpoints[0]).filename() == "step-00000006.safetensors");
  // Another train() continues to the planned total.
  const TrainSummary rest = s.train();
  CHECK_FALSE(rest.stopped);
  fs::remove_all(dir);
}
