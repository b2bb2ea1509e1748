// Emulated half precision (training.precision), loss scaling and stochastic rounding: the rounding
// against known bit patterns and Eigen's own conversions, training under f16/bf16 against f32,
// static and dynamic loss scaling, and plan independence with every feature on.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "core/half_round.hpp"
#include "core/rng.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

constexpr HalfRounding kF16{DType::F16, false, false};
constexpr HalfRounding kBF16{DType::BF16, false, false};

float nearest(float x, const HalfRounding& r, bool* overflow = nullptr) {
  bool ignored = false;
  return round_nearest(x, r, overflow != nullptr ? overflow : &ignored);
}

uint32_t bits(float x) {
  return std::bit_cast<uint32_t>(x);
}

}  // namespace

TEST_CASE("f16 rounding to nearest even: ties, subnormals, overflow") {
  CHECK(nearest(1.0f, kF16) == 1.0f);
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: the even mantissa (1) wins.
  CHECK(nearest(1.0f + 0x1p-11f, kF16) == 1.0f);
  // 1 + 3 x 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  CHECK(nearest(1.0f + 3 * 0x1p-11f, kF16) == 1.0f + 0x1p-9f);
  CHECK(nearest(1.0f + 0x1p-11f + 0x1p-20f, kF16) == 1.0f + 0x1p-10f);  // just above the tie
  CHECK(nearest(-2.0f - 0x1p-10f, kF16) == -2.0f);                      // sign kept, tie to even
  // Subnormals are spaced 2^-24 apart.
  CHECK(nearest(0x1p-24f, kF16) == 0x1p-24f);
  CHECK(nearest(0x1p-25f, kF16) == 0.0f);  // halfway to the smallest subnormal: to 0
  CHECK(nearest(0x1p-25f + 0x1p-30f, kF16) == 0x1p-24f);
  CHECK(nearest(3 * 0x1p-25f, kF16) == 0x1p-23f);         // 1.5 units: to the even 2 units
  CHECK(nearest(5 * 0x1p-26f, kF16) == 0x1p-24f);         // 1.25 units
  CHECK(nearest(0x1p-14f - 0x1p-26f, kF16) == 0x1p-14f);  // rounds up into the normal range
  CHECK(std::signbit(nearest(-1e-12f, kF16)));            // underflow keeps the sign of zero
  CHECK(bits(nearest(-1e-12f, kF16)) == 0x80000000u);
  // The largest half is 65504; the spacing there is 32, so 65520 is the tie that rounds up.
  bool over = false;
  CHECK(nearest(65504.0f, kF16, &over) == 65504.0f);
  CHECK(nearest(65519.0f, kF16, &over) == 65504.0f);
  CHECK_FALSE(over);
  CHECK(nearest(65520.0f, kF16, &over) == 65504.0f);  // saturates (nanoo off) ...
  CHECK(over);
  over = false;
  CHECK(nearest(-1e6f, kF16, &over) == -65504.0f);
  CHECK(over);
  over = false;
  CHECK(std::isnan(nearest(65520.0f, {DType::F16, false, true}, &over)));  // ... or is NaN (nanoo)
  CHECK(over);
  over = false;
  CHECK(std::isinf(nearest(std::numeric_limits<float>::infinity(), kF16, &over)));  // inputs pass
  CHECK(over);
  over = false;
  CHECK(std::isnan(nearest(std::numeric_limits<float>::quiet_NaN(), kF16, &over)));
  CHECK(over);
}

TEST_CASE("bf16 rounding to nearest even: ties, subnormals, overflow") {
  CHECK(nearest(1.0f + 0x1p-8f, kBF16) == 1.0f);
  CHECK(nearest(1.0f + 3 * 0x1p-8f, kBF16) == 1.0f + 0x1p-6f);
  CHECK(bits(nearest(std::bit_cast<float>(0x3F808000u), kBF16)) == 0x3F800000u);  // tie, even stays
  CHECK(bits(nearest(std::bit_cast<float>(0x3F818000u), kBF16)) == 0x3F820000u);  // tie, odd rounds up
  // bf16 keeps f32's exponent range, so f32 subnormals become bf16 subnormals (spacing 2^-133).
  CHECK(nearest(0x1p-133f, kBF16) == 0x1p-133f);
  CHECK(nearest(0x1p-134f, kBF16) == 0.0f);
  CHECK(nearest(3 * 0x1p-134f, kBF16) == 0x1p-132f);
  bool over = false;
  const float max = std::bit_cast<float>(0x7F7F0000u);
  CHECK(half_max(DType::BF16) == max);
  CHECK(nearest(std::bit_cast<float>(0x7F7F7FFFu), kBF16, &over) == max);
  CHECK_FALSE(over);
  CHECK(nearest(std::numeric_limits<float>::max(), kBF16, &over) == max);
  CHECK(over);
}

TEST_CASE("nearest rounding agrees with Eigen's half and bfloat16 conversions") {
  Rng rng(3, "precision_test");
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    // Random bit patterns over every finite f32: all binades, subnormals and both signs.
    const float x = std::bit_cast<float>(rng.next_u32());
    if (!std::isfinite(x)) {
      continue;
    }
    const auto h = static_cast<float>(Eigen::half(x));
    if (std::isfinite(h)) {
      REQUIRE(bits(nearest(x, kF16)) == bits(h));
    }
    const auto b = static_cast<float>(Eigen::bfloat16(x));
    if (std::isfinite(b)) {
      REQUIRE(bits(nearest(x, kBF16)) == bits(b));
    }
    ++checked;
  }
  CHECK(checked > 190000);
}

TEST_CASE("stochastic rounding is unbiased and a pure function of its key") {
  const HalfRounding sr{DType::F16, true, false};
  // x lies a quarter of the way from 1 to 1 + 2^-10.
  const float x = 1.0f + 0x1p-12f;
  const int64_t n = 1 << 16;
  std::vector<float> a(static_cast<size_t>(n), x);
  CHECK(round_in_place(a.data(), n, sr, rounding_key(7, 12, 3)) == 0);
  double sum = 0;
  int64_t up = 0;
  for (float v : a) {
    CHECK((v == 1.0f || v == 1.0f + 0x1p-10f));
    sum += v;
    up += v > 1.0f ? 1 : 0;
  }
  // Up with probability 1/4: the mean is x within a few standard errors.
  const double p = static_cast<double>(up) / static_cast<double>(n);
  CHECK(std::abs(p - 0.25) < 5 * std::sqrt(0.25 * 0.75 / static_cast<double>(n)));
  CHECK(std::abs(sum / static_cast<double>(n) - static_cast<double>(x)) <
        5 * 0x1p-10 * std::sqrt(0.1875 / n));

  // The same key gives the same bits; another value, micro-batch or seed gives others.
  std::vector<float> b(static_cast<size_t>(n), x);
  round_in_place(b.data(), n, sr, rounding_key(7, 12, 3));
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  for (const uint64_t other : {rounding_key(7, 13, 3), rounding_key(7, 12, 4), rounding_key(8, 12, 3)}) {
    std::vector<float> c(static_cast<size_t>(n), x);
    round_in_place(c.data(), n, sr, other);
    CHECK(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)) != 0);
  }
  // Values already representable never move; bf16 rounds stochastically too.
  std::vector<float> exact = {1.0f, -0.5f, 0x1p-24f, 65504.0f, 0.0f};
  round_in_place(exact.data(), static_cast<int64_t>(exact.size()), sr, rounding_key(1, 2, 3));
  CHECK(exact == std::vector<float>{1.0f, -0.5f, 0x1p-24f, 65504.0f, 0.0f});
  std::vector<float> d(4096, 1.0f + 0x1p-9f);  // a quarter of bf16's spacing 2^-7 above 1
  round_in_place(d.data(), 4096, {DType::BF16, true, false}, rounding_key(1, 2, 3));
  double mean = 0;
  for (float v : d) {
    CHECK((v == 1.0f || v == 1.0f + 0x1p-7f));
    mean += v / 4096.0;
  }
  CHECK(mean == doctest::Approx(1.0 + 0x1p-9).epsilon(2e-4));
}

namespace {

// Loads `text` expecting a located Config error mentioning `part` on line `line`.
void rejects(const std::string& text, const std::string& part, int line) {
  INFO(text);
  try {
    (void)config::parse(text, "p.toml");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Config);
    CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.render());
    REQUIRE(e.span().valid());
    CHECK(e.span().line == line);
    CHECK_FALSE(e.hint().empty());
    return;
  }
  FAIL("the config loaded");
}

}  // namespace

TEST_CASE("precision and loss-scaling keys are checked where they are written") {
  rejects("[training]\nprecision = \"f8\"\n", "precision", 2);
  const char* needs_dynamic = "has no effect without `optimizer.loss_scaling_mode = \"dynamic\"`";
  rejects("[optimizer]\nloss_scaling_growth_interval = 100\n", needs_dynamic, 2);
  rejects("[optimizer]\nloss_scaling_mode = \"static\"\nloss_scaling_backoff_factor = 0.25\n", needs_dynamic, 3);
  rejects("[optimizer]\nloss_scaling_mode = \"dynamic\"\nloss_scaling_backoff_factor = 1.5\n",
          "loss_scaling_backoff_factor", 3);
  rejects("[optimizer]\nloss_scaling_mode = \"dynamic\"\nloss_scaling_growth_factor = 1.0\n",
          "loss_scaling_growth_factor", 3);
  rejects("[ipu.floating_point_behaviour]\nesr = true\n", "training.precision", 2);
  rejects("[training]\nprecision = \"f32\"\n[ipu.floating_point_behaviour]\nnanoo = true\n", "f32", 4);
  // Accepted: the flags under half compute, set_all under f32, dynamic scaling under f32.
  CHECK(config::parse("[training]\nprecision = \"bf16\"\n[ipu.floating_point_behaviour]\nesr = true\n")
            .plain.ipu_floating_point_behaviour_esr);
  CHECK(config::resolve(config::parse("[ipu.floating_point_behaviour]\nset_all = true\n"))
            .plain.ipu_floating_point_behaviour_nanoo);
  // Dynamic scaling starts from 65536 unless a scale is written: the line's DERIVE settles it, and the
  // Config keeps what was written (so `config show` loads back the same).
  const Config dynamic = config::parse("[optimizer]\nloss_scaling_mode = \"dynamic\"\n");
  CHECK(dynamic.plain.optimizer_loss_scaling == 1.0);
  CHECK(config::resolve(dynamic).plain.optimizer_loss_scaling == 65536.0);
  CHECK(config::resolve(config::parse("[optimizer]\nloss_scaling_mode = \"dynamic\"\nloss_scaling = 8.0\n"))
            .plain.optimizer_loss_scaling == 8.0);
  CHECK(config::resolve(config::parse("[optimizer]\nloss_scaling_mode = \"dynamic\"\nloss_scaling = 1.0\n"))
            .plain.optimizer_loss_scaling == 1.0);
  CHECK(config::resolve(config::parse("")).plain.optimizer_loss_scaling == 1.0);
  Config in_code;  // a Config built in code: a scale other than the default is the user's
  in_code.plain.optimizer_loss_scaling_mode = LossScaling::Dynamic;
  in_code.plain.optimizer_loss_scaling = 1024.0;
  CHECK(config::resolve(in_code).plain.optimizer_loss_scaling == 1024.0);
}

namespace {

struct Run {
  std::vector<WeightInfo> before;
  std::vector<WeightInfo> weights;
  TrainSummary summary;
  RunReport report;
};

Run train(const std::string& model, const std::string& config_text) {
  Config config = config::parse(config_text, "precision.toml");
  Session session(Model::parse(model, "model.ipu", config.model), config);
  Run r;
  r.before = session.weights();
  r.summary = session.train();
  r.weights = session.weights();
  r.report = session.run_report();
  return r;
}

bool all_half(const std::vector<WeightInfo>& w) {
  for (const WeightInfo& t : w) {
    for (float v : t.values) {
      bool over = false;
      if (round_nearest(v, kF16, &over) != v) {
        return false;
      }
    }
  }
  return true;
}

std::string mlp_config(int steps, const std::string& training = "", const std::string& optimizer = "") {
  return "[optimizer]\nlearning_rate = 0.1\n" + optimizer +
         "[data]\ntrain = \"synthetic:samples=512,classes=10\"\n[training]\nsteps = " +
         std::to_string(steps) + "\nseed = 7\n" + training;
}

}  // namespace

TEST_CASE("an MLP trains under f16 and bf16 to a loss close to f32's") {
  const Run f32 = train(testing::kMlp, mlp_config(150));
  const Run f16 = train(testing::kMlp, mlp_config(150, "precision = \"f16\"\n"));
  const Run bf16 = train(testing::kMlp, mlp_config(150, "precision = \"bf16\"\n"));
  const double first = f32.summary.last_values.at(0);
  MESSAGE("final loss: f32 " << first << ", f16 " << f16.summary.last_values[0] << ", bf16 "
                             << bf16.summary.last_values[0]);
  // The loss falls well below ln(10) = 2.30 in every precision. f16 keeps 11 significant bits
  // (relative error 2^-11 per result) and bf16 8 (2^-8); over 150 updates of SGD the losses of one
  // batch stay within a few percent of f32's, bf16 further than f16.
  CHECK(first < 1.5);
  CHECK(f16.summary.last_values[0] == doctest::Approx(first).epsilon(0.02));
  CHECK(bf16.summary.last_values[0] == doctest::Approx(first).epsilon(0.08));
  // The rounding really happens: the runs differ from f32 and from each other, and the master
  // weights, updated in f32, are not all half values.
  CHECK_FALSE(testing::same_bits(f16.weights, f32.weights));
  CHECK_FALSE(testing::same_bits(bf16.weights, f16.weights));
  CHECK_FALSE(all_half(f16.weights));
  CHECK(f16.summary.skipped_updates == 0);
}

TEST_CASE("half compute halves the activations in the memory model and the measured peak agrees") {
  const std::string pipeline =
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\n";
  const Run f32 = train(testing::kMlp, mlp_config(2, "", "") + pipeline);
  const Run f16 = train(testing::kMlp, mlp_config(2, "precision = \"f16\"\n") + pipeline);
  REQUIRE(f16.report.ipus.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const IpuReport& h = f16.report.ipus[i];
    CHECK(h.memory_peak == h.memory_estimate);
    CHECK(f32.report.ipus[i].memory_peak == f32.report.ipus[i].memory_estimate);
    // Weights grow by their half copy, activations and links shrink: the total still falls.
    CHECK(h.memory_estimate < f32.report.ipus[i].memory_estimate);
  }
}

TEST_CASE("static loss scaling") {
  SUBCASE("a power-of-two scale changes no bit of f32 training") {
    const Run plain = train(testing::kMlp, mlp_config(20));
    const Run scaled = train(testing::kMlp, mlp_config(20, "", "loss_scaling = 1024.0\n"));
    CHECK(testing::same_bits(plain.weights, scaled.weights));
    CHECK(scaled.summary.loss_scale == 1024.0);
    // With momentum and clipping the gradient goes through more arithmetic; still exact.
    const std::string extra = "type = \"momentum\"\ngradient_clip_norm = 0.5\n";
    CHECK(testing::same_bits(train(testing::kMlp, mlp_config(10, "", extra)).weights,
                    train(testing::kMlp, mlp_config(10, "", extra + "loss_scaling = 0.125\n")).weights));
  }
  SUBCASE("tiny f16 gradients flush to zero without scaling and survive with it") {
    // The loss is shrunk by 1e-8, so the backward pass starts from 1e-8, below half of the smallest
    // f16 subnormal (6e-8): every gradient is zero. A learning rate 1e8 times larger makes up for
    // the shrinking wherever the gradient survives.
    std::string model = testing::kMlp;
    const std::string loss = "loss = mean(softmax_cross_entropy(logits, label))";
    model.replace(model.find(loss), loss.size(), loss + " * 0.00000001");
    auto config = [](const std::string& training, const std::string& optimizer) {
      return "[optimizer]\nlearning_rate = 5000000.0\n" + optimizer +
             "[data]\ntrain = \"synthetic:samples=512,classes=10\"\n[training]\nsteps = 10\nseed = 7\n" +
             training;
    };
    const Run f32 = train(model, config("", ""));
    const Run without = train(model, config("precision = \"f16\"\n", ""));
    const Run with = train(model, config("precision = \"f16\"\n", "loss_scaling = 65536.0\n"));
    CHECK(testing::same_bits(without.weights, without.before));
    CHECK_FALSE(testing::same_bits(with.weights, with.before));
    // Scaled f16 moves the weights as f32 does: the distance between the two runs is a small
    // part of how far training moved them.
    double moved = 0;
    double apart = 0;
    for (size_t i = 0; i < f32.weights.size(); ++i) {
      for (size_t k = 0; k < f32.weights[i].values.size(); ++k) {
        moved += std::pow(f32.weights[i].values[k] - f32.before[i].values[k], 2);
        apart += std::pow(with.weights[i].values[k] - f32.weights[i].values[k], 2);
      }
    }
    MESSAGE("f32 moved the weights by " << std::sqrt(moved) << ", scaled f16 ends " << std::sqrt(apart)
                                        << " away");
    CHECK(moved > 0);
    CHECK(std::sqrt(apart) < 0.05 * std::sqrt(moved));
  }
}

TEST_CASE("dynamic loss scaling") {
  SUBCASE("an overflowing update is skipped and the scale halved") {
    // 2^40 overflows f16 in the first backward results.
    const Run r =
        train(testing::kMlp, mlp_config(1, "precision = \"f16\"\n",
                                        "loss_scaling = 1099511627776.0\nloss_scaling_mode = \"dynamic\"\n"));
    CHECK(testing::same_bits(r.weights, r.before));
    CHECK(r.summary.skipped_updates == 1);
    CHECK(r.summary.loss_scale == 549755813888.0);
  }
  SUBCASE("the scale backs off until updates are clean, then grows every N clean updates") {
    const std::string opt =
        "loss_scaling = 1099511627776.0\nloss_scaling_mode = \"dynamic\"\nloss_scaling_growth_interval = 4\n";
    const Run r = train(testing::kMlp, mlp_config(80, "precision = \"f16\"\n", opt));
    const int64_t skipped = r.summary.skipped_updates;
    MESSAGE("skipped " << skipped << ", final scale " << r.summary.loss_scale);
    CHECK(skipped >= 10);  // 2^40 / 2^skipped must come down to what f16 holds
    CHECK_FALSE(testing::same_bits(r.weights, r.before));
    CHECK(r.summary.last_values[0] < 1.9);  // ln(10) = 2.30 at the start
    // Clean updates since the last backoff grow the scale: after the last skip, each run of 4
    // clean updates doubles it (unless another overflow intervened, which the count reflects).
    CHECK(r.summary.loss_scale >= std::ldexp(1.0, 40 - static_cast<int>(skipped)));
  }
  SUBCASE("growth under f32: no overflow, the scale doubles every interval") {
    const Run r = train(testing::kMlp, mlp_config(10, "",
                                                  "loss_scaling = 1.0\nloss_scaling_mode = \"dynamic\"\n"
                                                  "loss_scaling_growth_interval = 3\n"));
    CHECK(r.summary.skipped_updates == 0);
    CHECK(r.summary.loss_scale == 8.0);  // grown after updates 3, 6 and 9
    // Powers of two all along: the weights are those of unscaled training.
    CHECK(testing::same_bits(r.weights, train(testing::kMlp, mlp_config(10)).weights));
  }
  SUBCASE("dynamic scaling starts from 65536 unless told otherwise") {
    const Config config = config::parse(mlp_config(1, "", "loss_scaling_mode = \"dynamic\"\n"), "precision.toml");
    Session session(Model::parse(testing::kMlp, "model.ipu", config.model), config);
    CHECK(session.train().loss_scale == 65536.0);
    // A checkpoint records the scale the run started from (the line's record_settled mark), as it did
    // when the loader wrote it into the Config, so checkpoints written before resume the same.
    const std::string path = session.save_checkpoint(iputrain_tests::scratch_dir("precision_test").string());
    CHECK(data::read_safetensors(path).metadata.at("run_config").find("optimizer.loss_scaling = 65536.0\n") !=
          std::string::npos);
  }
}

namespace {


std::string half_config(const std::string& precision, const std::string& ipu, const std::string& pipeline) {
  return "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.01\nloss_scaling_mode = \"dynamic\"\n"
         "loss_scaling = 1048576.0\nloss_scaling_growth_interval = 3\n"
         "[data]\ntrain = \"synthetic:samples=2048,classes=10\"\n"
         "[training]\nsteps = 16\nsteps_per_execution = 4\nseed = 7\nprecision = \"" +
         precision +
         "\"\n"
         "[ipu]\n" +
         ipu +
         "[ipu.floating_point_behaviour]\nesr = true\n"
         "[pipeline]\nreduction_method = \"mean\"\n" +
         pipeline;
}

}  // namespace

TEST_CASE("f16 with stochastic rounding and dynamic scaling gives every plan the same bits") {
  for (const char* precision : {"f16", "bf16"}) {
    CAPTURE(precision);
    const Run one = train(testing::kMlp4, half_config(precision, "", "gradient_accumulation_count = 8\n"));
    if (std::string(precision) == "f16") {
      CHECK(one.summary.skipped_updates > 0);  // 2^20 overflows at first: the skip path is exercised
    }
    CHECK_FALSE(testing::same_bits(one.weights, one.before));
    const Run two_by_two =
        train(testing::kMlp4, half_config(precision, "auto_select_ipus = 4\n",
                                 "auto_stages = 2\ndevice_mapping = [0, 1]\nschedule = \"grouped\"\n"
                                 "gradient_accumulation_count = 4\n"));
    CHECK(testing::same_bits(two_by_two.weights, one.weights));
    CHECK(two_by_two.summary.skipped_updates == one.summary.skipped_updates);
    CHECK(two_by_two.summary.loss_scale == one.summary.loss_scale);
    const Run four_stages =
        train(testing::kMlp4, half_config(precision, "auto_select_ipus = 4\nallow_recompute = true\n",
                                 "device_mapping = [0, 1, 2, 3]\nschedule = \"interleaved\"\n"
                                 "gradient_accumulation_count = 8\n"));
    CHECK(testing::same_bits(four_stages.weights, one.weights));
    const Run replicas = train(testing::kMlp4, half_config(precision, "auto_select_ipus = 4\n",
                                                  "auto_stages = 1\ngradient_accumulation_count = 2\n"));
    CHECK(testing::same_bits(replicas.weights, one.weights));
  }
  // Without esr the result differs: the stochastic rounding really takes part.
  std::string nearest = half_config("f16", "", "gradient_accumulation_count = 8\n");
  nearest.replace(nearest.find("esr = true"), 10, "esr = false");
  CHECK_FALSE(testing::same_bits(train(testing::kMlp4, nearest).weights,
                        train(testing::kMlp4, half_config("f16", "", "gradient_accumulation_count = 8\n")).weights));
}
