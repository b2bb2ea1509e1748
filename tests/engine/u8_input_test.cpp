// u8 inputs (issue 46, point 5): 8-bit images cross the host as bytes and are normalised on the
// device, as Graphcore's ResNet-50 and EfficientNet runs fed them. The same model fed the floats the
// host would have normalised trains to the same weights, bit for bit, on every plan; the host feed
// carries a quarter of the image bytes; a u8 tensor anywhere but a cast (or a reshape, transpose or
// slice) is refused where it is written.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

constexpr int64_t kSamples = 64;
constexpr int64_t kPixels = 28 * 28;

// `image` u8 normalised on the device, or f32 as the host normalised it: otherwise the same model.
std::string model(bool u8) {
  return std::string("import nn\n\nmodel m(batch: int = 8) {\n") +
         (u8 ? "  input image: u8[batch, 28, 28]\n" : "  input image: f32[batch, 28, 28]\n") +
         "  input label: i32[batch]\n"
         "  stage features {\n" +
         (u8 ? "    x = (cast(image, \"f32\") - 127.5) / 127.5\n" : "    x = image\n") +
         "    h = nn.dense(flatten(x), 32, activation = relu)\n"
         "  }\n"
         "  stage classifier {\n"
         "    logits = nn.dense(h, 10)\n"
         "    loss = mean(softmax_cross_entropy(logits, label))\n"
         "  }\n"
         "  minimize loss\n"
         "  output loss\n"
         "}\n";
}

struct Data {
  std::vector<uint8_t> bytes;
  std::vector<float> normalised;  // what a host would send: (b - 127.5) / 127.5 in f32
  std::vector<int32_t> label;
};

Data make_data() {
  Data d;
  uint32_t state = 12345;
  for (int64_t i = 0; i < kSamples * kPixels; ++i) {
    state = state * 1664525u + 1013904223u;
    d.bytes.push_back(static_cast<uint8_t>(state >> 24));
    d.normalised.push_back((static_cast<float>(d.bytes.back()) - 127.5f) / 127.5f);
  }
  for (int64_t i = 0; i < kSamples; ++i) {
    d.label.push_back(d.bytes[static_cast<size_t>(i * kPixels + 100)] % 10);
  }
  return d;
}

Config make_config(const std::string& plan) {
  return config::parse("[optimizer]\nlearning_rate = 0.05\n[training]\nsteps = 8\nseed = 3\n" + plan, "u8.toml");
}

std::vector<WeightInfo> train(bool u8, const std::string& plan, const Data& d) {
  const Config c = make_config(plan);
  Session s(Model::parse(model(u8), "u8.ipu", c.model), c);
  const std::vector<WeightInfo> before = s.weights();
  s.set_data("train", {u8 ? ArrayData::u8("image", {kSamples, 28, 28}, d.bytes.data())
                          : ArrayData::f32("image", {kSamples, 28, 28}, d.normalised.data()),
                       ArrayData::i32("label", {kSamples}, d.label.data())});
  CHECK(s.train().steps == 8);
  CHECK_FALSE(testing::same_bits(before, s.weights()));
  return s.weights();
}

const std::vector<std::string> kPlans = {
    "",  // one IPU
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\n",
    "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 0]\n",  // two replicas
};

std::string refusal(const std::string& text) {
  try {
    Model::parse(text, "bad.ipu");
  } catch (const Error& e) {
    return e.diagnostic().message + " | " + e.diagnostic().hint + " @" + std::to_string(e.diagnostic().span.line) +
           ":" + std::to_string(e.diagnostic().span.col);
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a u8 image normalised on the device trains to the same weights as the host's floats, on every plan") {
  const Data d = make_data();
  for (const std::string& plan : kPlans) {
    CAPTURE(plan);
    CHECK(testing::same_bits(train(true, plan, d), train(false, plan, d)));
  }
}

TEST_CASE("in f16 too: the device's normalisation and the host's floats round to the same halves") {
  // The host's f32 values are the device's f32 results before rounding; the first op that reads
  // them (flatten) rounds its result to f16 as every result is, the division's result too.
  const Data d = make_data();
  const std::string f16 = "precision = \"f16\"\n";  // appended to the config's [training]
  const std::vector<WeightInfo> one = train(true, f16, d);
  CHECK(testing::same_bits(one, train(false, f16, d)));
  for (const WeightInfo& w : one) {
    for (float v : w.values) {
      REQUIRE(std::isfinite(v));
    }
  }
}

TEST_CASE("the plan's host feed carries the u8 image in a quarter of the f32 image's bytes") {
  for (const std::string& plan : kPlans) {
    CAPTURE(plan);
    const Config c = make_config(plan);
    const auto u8 = nlohmann::json::parse(Plan::make(Model::parse(model(true), "u8.ipu", c.model), c).json());
    const auto f32 = nlohmann::json::parse(Plan::make(Model::parse(model(false), "u8.ipu", c.model), c).json());
    const double samples = u8["global_batch"].get<double>();
    REQUIRE(samples == f32["global_batch"].get<double>());
    const double feed_u8 = u8["predicted"]["feed_bytes_per_update"].get<double>();
    const double feed_f32 = f32["predicted"]["feed_bytes_per_update"].get<double>();
    // Everything else the feeds carry (labels, the loss outfed) is the same in both plans.
    const double image_f32 = 4.0 * kPixels * samples;
    const double rest = feed_f32 - image_f32;
    CHECK(rest >= 4.0 * samples);  // at least the i32 labels
    CHECK(feed_u8 - rest == doctest::Approx(image_f32 / 4).epsilon(1e-12));
    MESSAGE("feed bytes per update: u8 " << feed_u8 << ", f32 " << feed_f32 << " (" << samples << " samples)");
    // IPU 0's infeed staging holds prefetch_depth micro-batches of the image: 3 bytes a pixel less.
    const double micro = u8["micro_batch"].get<double>();
    const double staging_u8 = u8["ipus"][0]["memory"]["feed_staging"].get<double>();
    const double staging_f32 = f32["ipus"][0]["memory"]["feed_staging"].get<double>();
    CHECK(staging_f32 - staging_u8 == doctest::Approx(2 * 3.0 * kPixels * micro));  // prefetch_depth 2
  }
}

TEST_CASE("u8 operands are refused where they are written, with the cast to write") {
  const std::string head =
      "import nn\nmodel m(batch: int = 2) {\n  input image: u8[batch, 4]\n  param w: f32[4, 3] = zeros()\n";
  const std::string matmul = refusal(head + "  y = image @ w\n  output y\n}\n");
  CHECK(matmul.find("matmul: operand 'a' is u8[2, 4], and u8 tensors are only cast") != std::string::npos);
  CHECK(matmul.find("cast it first: cast(image, \"f32\")") != std::string::npos);
  CHECK(matmul.find("@5:") != std::string::npos);
  const std::string add = refusal(head + "  y = image + image\n  output y\n}\n");
  CHECK(add.find("add: operand 1 is u8[2, 4]") != std::string::npos);
  CHECK(add.find("@5:7") != std::string::npos);
  // A float next to a u8 tensor: the scalar rule's own error, also with the cast to write.
  CHECK(refusal(head + "  y = image / 255.0\n  output y\n}\n")
            .find("cannot combine float 255 with a tensor of dtype u8") != std::string::npos);
  // What u8 tensors may do: be cast (to every dtype), reshaped, transposed and sliced.
  CHECK(refusal(head + "  y = cast(transpose(reshape(image[:, 1:3], [2, 2]), [1, 0]), \"f32\")\n"
                       "  z = cast(image, \"f16\")\n  b = cast(image, \"bf16\")\n  i = cast(image, \"i32\")\n"
                       "  output y\n}\n") == "accepted");
  CHECK(refusal(head + "  y = cast(w, \"u8\")\n  output y\n}\n").find("must be one of") != std::string::npos);
  CHECK(refusal(head + "  param p: u8[4] = zeros()\n  output image\n}\n").find("must be floating point") !=
        std::string::npos);
}

TEST_CASE("f32 values for a u8 input are refused, naming the field and both types") {
  const Config c = make_config("");
  Session s(Model::parse(model(true), "u8.ipu", c.model), c);
  const Data d = make_data();
  try {
    s.set_data("train", {ArrayData::f32("image", {kSamples, 28, 28}, d.normalised.data()),
                         ArrayData::i32("label", {kSamples}, d.label.data())});
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("stores f32 values but the model's input `image` is u8") != std::string::npos, what);
    CHECK(e.hint().find("uint8") != std::string::npos);
  }
}
