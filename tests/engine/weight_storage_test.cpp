// Where the weights and the optimizer's moments are kept (training.master_weights,
// optimizer.state_dtype): what the memory model counts, what the engine stores, and that every
// plan still computes the same bits.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/half_round.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

struct Run {
  std::vector<WeightInfo> weights;
  RunReport report;
  Plan plan;
};

Run train(const std::string& config_text) {
  Config config = config::parse(config_text, "storage.toml");
  Model model = Model::parse(testing::kMlp4, "model.ipu", config.model);
  Session session(model, config);
  session.train();
  return {session.weights(), session.run_report(), Plan::make(model, config)};
}

// Adam under f16 with stochastic rounding on 1 IPU, or the plan's [ipu] and [pipeline] lines.
std::string config_toml(const std::string& training, const std::string& optimizer = "", const std::string& ipu = "",
                        const std::string& pipeline = "gradient_accumulation_count = 8\n") {
  return "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.01\nloss_scaling = 256.0\n" + optimizer +
         "[data]\ntrain = \"synthetic:samples=1024,classes=10\"\n"
         "[training]\nsteps = 6\nseed = 11\nprecision = \"f16\"\n" +
         training + "[ipu]\n" + ipu + "[ipu.floating_point_behaviour]\nesr = true\n[pipeline]\nreduction_method = \"mean\"\n" + pipeline;
}

bool representable(const std::vector<WeightInfo>& weights, DType type) {
  for (const WeightInfo& w : weights) {
    for (float v : w.values) {
      bool over = false;
      if (round_nearest(v, {type, false, false}, &over) != v) {
        return false;
      }
    }
  }
  return true;
}

int64_t elements(const std::vector<WeightInfo>& weights) {
  int64_t n = 0;
  for (const WeightInfo& w : weights) {
    n += static_cast<int64_t>(w.values.size());
  }
  return n;
}

}  // namespace

TEST_CASE("master_weights = none stores half weights, offloaded computes exactly what on_chip does") {
  const Run on_chip = train(config_toml(""));
  const Run offloaded = train(config_toml("master_weights = \"offloaded\"\n", "", "",
                                          "gradient_accumulation_count = 8\noffload_weight_update_variables = true\n"));
  const Run none = train(config_toml("master_weights = \"none\"\n"));
  // Where the master lives changes no number.
  CHECK(testing::same_bits(offloaded.weights, on_chip.weights));
  // Without a master every update is rounded into f16: the weights are f16 values, which the
  // f32 master of on_chip is not.
  CHECK(representable(none.weights, DType::F16));
  CHECK_FALSE(representable(on_chip.weights, DType::F16));
  CHECK_FALSE(testing::same_bits(none.weights, on_chip.weights));

  // The memory model: 6 bytes a weight on chip, 2 when the master is elsewhere (4 in host memory).
  const int64_t n = elements(on_chip.weights);
  auto total = [](const Plan& p, int64_t PlanMemory::*field) {
    int64_t sum = 0;
    for (const PlanMemory& m : p.memory()) {
      sum += m.*field;
    }
    return sum;
  };
  CHECK(total(on_chip.plan, &PlanMemory::weights) == 6 * n);
  CHECK(total(none.plan, &PlanMemory::weights) == 2 * n);
  CHECK(total(offloaded.plan, &PlanMemory::weights) == 2 * n);
  CHECK(total(offloaded.plan, &PlanMemory::weights_offloaded) == 4 * n);
  CHECK(total(none.plan, &PlanMemory::weights_offloaded) == 0);
  // And the engine holds what the plan says.
  for (const Run* r : {&on_chip, &offloaded, &none}) {
    for (const IpuReport& ipu : r->report.ipus) {
      CHECK(ipu.memory_peak == ipu.memory_estimate);
    }
  }
}

TEST_CASE("half weights and half moments give every plan the same bits") {
  const std::string storage = "master_weights = \"none\"\n";
  const std::string moments = "state_dtype = \"f16\"\n";
  const Run one = train(config_toml(storage, moments, "", "gradient_accumulation_count = 8\n"));
  const Run staged = train(config_toml(storage, moments, "auto_select_ipus = 4\n",
                                       "auto_stages = 2\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\n"));
  const Run interleaved = train(
      config_toml(storage, moments, "auto_select_ipus = 4\n",
                  "device_mapping = [0, 1, 2, 3]\nschedule = \"interleaved\"\ngradient_accumulation_count = 8\n"));
  CHECK(testing::same_bits(staged.weights, one.weights));
  CHECK(testing::same_bits(interleaved.weights, one.weights));
  // Half moments change the result and halve the state: adam keeps 2 moments, 2 bytes each.
  const Run f32_moments = train(config_toml(storage, "", "", "gradient_accumulation_count = 8\n"));
  CHECK_FALSE(testing::same_bits(f32_moments.weights, one.weights));
  const int64_t n = elements(one.weights);
  int64_t state = 0;
  for (const PlanMemory& m : one.plan.memory()) {
    state += m.optimizer_state;
  }
  CHECK(state == 2 * 2 * n);
  for (const IpuReport& ipu : one.report.ipus) {
    CHECK(ipu.memory_peak == ipu.memory_estimate);
  }
}

TEST_CASE("weight storage keys are refused where they cannot act") {
  auto refused = [](const std::string& text, const std::string& part) {
    INFO(text);
    try {
      (void)config::parse(text, "s.toml");
      FAIL("the config loaded");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Config);
      CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.render());
      CHECK(e.span().valid());
      CHECK_FALSE(e.hint().empty());
    }
  };
  refused("[training]\nmaster_weights = \"none\"\n", "needs a half compute type");
  refused("[training]\nprecision = \"f16\"\nmaster_weights = \"offloaded\"\n", "optimizer state is on the IPU");
  refused("[optimizer]\ntype = \"sgd\"\nstate_dtype = \"f16\"\n", "keeps no state");
  refused("[training]\nprecision = \"f16\"\nmaster_weights = \"somewhere\"\n", "master_weights");
}
