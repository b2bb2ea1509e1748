// An op is its row (issue 48, point 1): throwaway ops added through iputrain::register_op alone
// (include/iputrain/custom_op.hpp, the public registry) are priced by the planner from their
// `flops` and `temporary_bytes`, resumed from checkpoints, verified against the one-IPU run and
// documented in the ops reference, with no other line of product code. The key half is
// tests/config/throwaway_key_test.cpp.
//
// The ops: x - alpha tanh(x), with its gradient 1 - alpha (1 - tanh(x)^2). `throwaway_shrink`
// declares 40 FLOPs per element and 64 KiB of scratch per element; `throwaway_shrink_unpriced` is
// the same op without either; `throwaway_shrink_steep` the same op with alpha's default 2.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/data/safetensors.hpp"
#include "core/ops/op_docs.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
namespace fs = std::filesystem;

namespace {
namespace throwaway_op_test {

constexpr int64_t kScratchPerElement = 64 * 1024;

int64_t elements_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

CustomOp shrink_op(const std::string& name, double alpha, bool priced) {
  CustomOp op;
  op.name = name;
  op.attributes = {{"alpha", alpha}};
  op.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
  op.forward = [](const CustomCall& c) {
    const double a = c.attributes.get("alpha");
    for (int64_t i = 0; i < c.output.size; ++i) {
      const double x = c.inputs[0].data[i];
      c.output.data[i] = static_cast<float>(x - a * std::tanh(x));
    }
  };
  op.backward = [](const CustomGradCall& c) {
    const double a = c.attributes.get("alpha");
    for (int64_t i = 0; i < c.grad.size; ++i) {
      const double t = std::tanh(static_cast<double>(c.inputs[0].data[i]));
      c.grad.data[i] = static_cast<float>(c.dy.data[i] * (1.0 - a * (1.0 - t * t)));
    }
  };
  if (priced) {
    op.flops = [](const CustomShapes& in, const CustomAttributes&) {
      return 40.0 * static_cast<double>(elements_of(in[0]));
    };
    op.temporary_bytes = [](const CustomShapes& in, const CustomAttributes&) {
      return kScratchPerElement * elements_of(in[0]);
    };
  }
  op.doc = "A throwaway op: x - alpha tanh(x) (test).";
  return op;
}

// Registered once for the program, by the first case that needs them.
void register_throwaway_ops() {
  static const bool once = [] {
    register_op(shrink_op("throwaway_shrink", 0.5, true));
    register_op(shrink_op("throwaway_shrink_unpriced", 0.5, false));
    register_op(shrink_op("throwaway_shrink_steep", 2.0, true));
    return true;
  }();
  (void)once;
}

// Two stages; `call` is what stage b makes of the first stage's result `h`.
std::string throwaway_model(const std::string& call) {
  return R"(import nn

model tiny(batch: int = 4) {
  input x: f32[batch, 8]
  input label: i32[batch]
  stage a {
    h = nn.dense(x, 16, activation = tanh)
  }
  stage b {
    g = )" + call + R"(
    logits = nn.dense(g, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
}

// Two stages on two IPUs, two replicas of two micro-batches each: a global batch of 16.
std::string throwaway_config(int64_t steps, const std::string& extra = "") {
  return "[optimizer]\ntype = \"adam\"\nlearning_rate = 0.02\n"
         "[data]\ntrain = \"synthetic:samples=512,classes=10\"\nshuffle = true\n"
         "[training]\nsteps = " +
         std::to_string(steps) +
         "\nseed = 9\n"
         "[ipu]\nauto_select_ipus = 4\n"
         "[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"interleaved\"\ngradient_accumulation_count = 2\n"
         "reduction_method = \"mean\"\n" +
         extra;
}

Plan throwaway_plan(const std::string& call) {
  const Config c = config::parse(throwaway_config(4), "throwaway_op.toml");
  return Plan::make(Model::parse(throwaway_model(call), "tiny.ipu", c), c);
}

int64_t contributor(const PlanMemory& m, const std::string& starts) {
  for (const auto& [what, bytes] : m.contributors) {
    if (what.starts_with(starts)) {
      return bytes;
    }
  }
  return 0;
}

struct ThrowawayRun {
  Config config;
  Session session;
  ThrowawayRun(const std::string& call, const std::string& text)
      : config(config::parse(text, "throwaway_op.toml")),
        session(Model::parse(throwaway_model(call), "tiny.ipu", config), config) {}
};

fs::path throwaway_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "iputrain_throwaway_op_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool same_state_bits(const std::vector<StateTensor>& a, const std::vector<StateTensor>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].values.size() != b[i].values.size() ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace throwaway_op_test
}  // namespace

using namespace throwaway_op_test;

TEST_CASE("a throwaway op is priced by its row: its FLOPs set its stage's cycles, its scratch its IPU's memory") {
  register_throwaway_ops();
  const Plan priced = throwaway_plan("throwaway_shrink(h)");
  const Plan unpriced = throwaway_plan("throwaway_shrink_unpriced(h)");
  REQUIRE(priced.stages().size() == 2);
  REQUIRE(priced.micro_batch() == 4);
  // Stage b's forward: the one op that differs. 4 x 16 = 64 elements on 1472 tiles at PopLibs'
  // elementwise rates (planner/vertex_estimates.cpp): 0.67 per tile cycle at the default one FLOP
  // per element, 0.25 for a transcendental (>= 10 FLOPs per element, the row's 40), each divided by
  // the calibrated efficiency 0.606; the memory bound (8 bytes an element at 16 a tile cycle) is below both.
  const double elements = 64;
  const double tiles = 1472;
  const double want = elements / tiles * (1 / 0.25 - 1 / 0.67) / 0.606;
  CHECK(priced.stages()[1].forward_cycles - unpriced.stages()[1].forward_cycles == doctest::Approx(want).epsilon(1e-9));
  CHECK(priced.stages()[0].forward_cycles == unpriced.stages()[0].forward_cycles);
  CHECK(priced.stages()[1].backward_cycles == unpriced.stages()[1].backward_cycles);  // the gradient's own cost
  CHECK(priced.cycles_per_update() > unpriced.cycles_per_update());
  // The scratch: 64 KiB per element of the operand, 4 MiB, counted on IPU 1 (stage b's) as the
  // running op's working memory, and on no other IPU.
  const std::string working = "working memory of the running op";
  CHECK(contributor(priced.memory()[1], working) == 64 * kScratchPerElement);
  CHECK(contributor(unpriced.memory()[1], working) == 0);
  CHECK(priced.memory()[1].total_peak - unpriced.memory()[1].total_peak >= 64 * kScratchPerElement);
  CHECK(priced.memory()[0].total_peak == unpriced.memory()[0].total_peak);
  CHECK(contributor(priced.memory()[0], working) == 0);
}
