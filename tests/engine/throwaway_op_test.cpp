// An op is its row (issue 48, point 1): throwaway ops added through iputrain::register_op alone
// (include/iputrain/custom_op.hpp, the public registry) are priced by the planner from their
// `flops` and `temporary_bytes`, resumed from checkpoints (which record its registration),
// verified against the one-IPU run and documented in the ops reference, with no other line of
// product code. The key half is tests/config/throwaway_key_test.cpp.
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

#include "../scratch_dir.hpp"
#include "core/data/safetensors.hpp"
#include "core/ops/op_docs.hpp"
#include "iputrain/iputrain.hpp"
#include "shrink_op.hpp"
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
  CustomOp op = testing::tanh_shrink_op(name, alpha);
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
    // For the reference only: two operands, two attributes, no gradient, a '|' in its doc.
    CustomOp pick;
    pick.name = "throwaway_pick";
    pick.inputs = {"a", "b"};
    pick.attributes = {{"k", 1.0}, {"tie", 0.25}};
    pick.shape = [](const CustomShapes& in, const CustomAttributes&) { return in[0]; };
    pick.forward = [](const CustomCall& c) {
      const double k = c.attributes.get("k");
      for (int64_t i = 0; i < c.output.size; ++i) {
        const float a = c.inputs[0].data[i];
        const float b = c.inputs[1].data[i];
        c.output.data[i] = std::fabs(a) > k * std::fabs(b) ? a : b;
      }
    };
    pick.doc = "a where |a| > k |b|, else b\n(test).";
    register_op(std::move(pick));
    return true;
  }();
  (void)once;
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
  return Plan::make(Model::parse(testing::shrink_model(call), "tiny.ipu", c), c);
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
        session(Model::parse(testing::shrink_model(call), "tiny.ipu", config), config) {}
};

fs::path throwaway_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("throwaway_op_test") / name;
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
  // The gradient's cost is its own (custom_grad's), not the row's FLOPs: the same, to rounding.
  CHECK(priced.stages()[1].backward_cycles == doctest::Approx(unpriced.stages()[1].backward_cycles).epsilon(1e-12));
  CHECK(priced.cycles_per_update() > unpriced.cycles_per_update());
  // The scratch: 64 KiB per element of the operand, 4 MiB, counted on IPU 1 (stage b's) as the
  // running op's working memory, in its activation arena beside the op's operand and result
  // (256 bytes each), and on no other IPU.
  const std::string working = "working memory of the running op";
  const PlanMemory with = priced.memory()[1];
  const PlanMemory without = unpriced.memory()[1];
  CHECK(contributor(with, working) == 64 * kScratchPerElement);
  CHECK(contributor(without, working) == 0);
  CHECK(with.activations_peak >= 64 * kScratchPerElement + 2 * 256);
  CHECK(with.total_peak - with.activations_peak == without.total_peak - without.activations_peak);
  CHECK(priced.memory()[0].total_peak == unpriced.memory()[0].total_peak);
  CHECK(contributor(priced.memory()[0], working) == 0);
}

TEST_CASE("a throwaway op's run resumed from its checkpoints reaches the straight run's bits") {
  register_throwaway_ops();
  const fs::path dir = throwaway_dir("resume");
  const std::string every_step = "[checkpoint]\ndir = \"" + dir.string() + "\"\nevery = 1\nkeep = 0\n";
  ThrowawayRun straight("throwaway_shrink(h)", throwaway_config(4));
  straight.session.train();
  ThrowawayRun checkpointed("throwaway_shrink(h)", throwaway_config(4, every_step));
  CHECK(checkpointed.session.train().checkpoints.size() == 4);
  CHECK(testing::same_bits(checkpointed.session.weights(), straight.session.weights()));
  const std::string step2 = (dir / "step-00000002.safetensors").string();
  ThrowawayRun resumed("throwaway_shrink(h)", throwaway_config(4));
  const ResumeInfo info = resumed.session.resume(step2);
  CHECK(info.step == 2);
  CHECK(info.remaining == 2);
  CHECK(resumed.session.train().steps == 2);
  CHECK(testing::same_bits(resumed.session.weights(), straight.session.weights()));
  // The check can fail: the op's attribute is read at every call, and alpha = 2 trains other bits.
  ThrowawayRun other_alpha("throwaway_shrink(h, alpha = 2.0)", throwaway_config(4));
  other_alpha.session.resume(step2);
  other_alpha.session.train();
  CHECK_FALSE(testing::same_bits(other_alpha.session.weights(), straight.session.weights()));

  // What the checkpoint records of the run: the model's name, its weights and optimizer state by
  // parameter name, the step, seeds and batch sizes, the run-defining config keys with their
  // values (`run_config`) and the registration of the registered op the model calls
  // (`registered_ops`; tests/engine/checkpoint_ops_test.cpp refuses a resume under another).
  const data::SafetensorsFile file = data::read_safetensors(step2);
  CHECK(file.metadata.at("model") == "tiny");
  CHECK(file.metadata.at("run_config").find("optimizer.learning_rate = 0.02\n") != std::string::npos);
  CHECK(file.metadata.at("registered_ops") ==
        "throwaway_shrink.inputs = [\"x\"]\nthrowaway_shrink.attributes = {alpha = 0.5}\n"
        "throwaway_shrink.differentiable = true\nthrowaway_shrink.version = \"\"\n");
  for (const auto& [key, value] : file.metadata) {
    CAPTURE(key);
    CHECK((key == "registered_ops" || value.find("throwaway") == std::string::npos));
  }
  for (const data::NamedTensor& t : file.tensors) {
    CHECK(t.name.find("throwaway") == std::string::npos);
  }
  // The check is by op: a model that calls another op (throwaway_shrink_steep, alpha's default 2)
  // is another model, whose body no checkpoint records; its resume is accepted with notes naming
  // both ops, and trains under the registration in effect: exactly as throwaway_shrink called with
  // alpha = 2.
  ThrowawayRun steep("throwaway_shrink_steep(h)", throwaway_config(4));
  const ResumeInfo steep_info = steep.session.resume(step2);
  CHECK(steep_info.step == 2);
  REQUIRE(steep_info.notes.size() == 3);  // the third: the config lost its [checkpoint] keys
  CHECK(steep_info.notes[0] == "the checkpoint's model did not call the registered op `throwaway_shrink_steep`");
  CHECK(steep_info.notes[1] ==
        "the checkpoint's model called the registered op `throwaway_shrink`, which this model does not");
  steep.session.train();
  CHECK(testing::same_bits(steep.session.weights(), other_alpha.session.weights()));
}

TEST_CASE("a throwaway op on 2 stages x 2 replicas trains the one-IPU reference's bits, as iputrain verify checks") {
  register_throwaway_ops();
  const std::string call = "throwaway_shrink(h, alpha = 0.75)";
  const Config plan_config = config::parse(throwaway_config(1), "throwaway_op.toml");
  const Model model = Model::parse(testing::shrink_model(call), "tiny.ipu", plan_config);
  const Plan plan = Plan::make(model, plan_config);
  REQUIRE(plan.replicas() == 2);
  REQUIRE(plan.ipus_per_replica() == 2);
  // verify's one-IPU reference (cli/verify_command.cpp, reference_config): the layout keys back to
  // their defaults, every stage on IPU 0, all of the plan's micro-batches accumulated there.
  Config ref_config = config::without_layout(plan_config);
  ref_config.plain.ipu_auto_select_ipus = 1;
  ref_config.plain.pipeline_device_mapping.assign(model.stages().size(), std::vector<int64_t>{0});
  ref_config.plain.pipeline_gradient_accumulation_count = plan.accumulation_count() * plan.replicas();
  ref_config.plain.pipeline_schedule = "sequential";
  const Plan ref_plan = Plan::make(model, ref_config);
  REQUIRE(ref_plan.num_ipus() == 1);
  REQUIRE(ref_plan.global_batch() == plan.global_batch());
  Session session(model, plan_config, plan);
  Session reference(model, ref_config, ref_plan);
  const std::vector<WeightInfo> initial = reference.weights();
  // One update per train() call, every replica's weights and optimizer state compared bit for bit
  // after each, as verify does.
  for (int64_t step = 1; step <= 3; ++step) {
    CAPTURE(step);
    session.train();
    reference.train();
    for (int32_t r = 0; r < session.replicas(); ++r) {
      CAPTURE(r);
      CHECK(same_state_bits(session.training_state(r), reference.training_state(0)));
    }
  }
  // The op's gradient reached stage a (its dense kernel moved), and the op's attribute took part:
  // alpha = 0 (the op an identity) trains other bits.
  REQUIRE(initial.size() == reference.weights().size());
  CHECK(initial[0].values != reference.weights()[0].values);
  Session identity(Model::parse(testing::shrink_model("throwaway_shrink(h, alpha = 0.0)"), "tiny.ipu", ref_config),
                   ref_config);
  for (int step = 1; step <= 3; ++step) {
    identity.train();
  }
  CHECK_FALSE(testing::same_bits(identity.weights(), reference.weights()));
}

TEST_CASE(
    "a throwaway op is documented in the ops reference from its row, and without one the reference is docs/ops.md") {
  register_throwaway_ops();
  REQUIRE(registered_ops() == std::vector<std::string>{"throwaway_shrink", "throwaway_shrink_unpriced",
                                                       "throwaway_shrink_steep", "throwaway_pick"});
  const std::string section = registered_ops_reference();
  CHECK(section.starts_with("## Registered ops\n"));
  const std::string doc = "A throwaway op: x - alpha tanh(x) (test).";
  for (const std::string& row : {
           "| `throwaway_shrink` | `x` | `alpha` = 0.5 | yes | declared | declared | " + doc + " |\n",
           "| `throwaway_shrink_unpriced` | `x` | `alpha` = 0.5 | yes |  |  | " + doc + " |\n",
           "| `throwaway_shrink_steep` | `x` | `alpha` = 2 | yes | declared | declared | " + doc + " |\n",
           std::string("| `throwaway_pick` | `a`, `b` | `k` = 1, `tie` = 0.25 | no |  |  | "
                       "a where \\|a\\| > k \\|b\\|, else b (test). |\n"),
       }) {
    CAPTURE(row);
    CHECK(section.find(row) != std::string::npos);
  }
  CHECK(section.ends_with("\n4 registered ops.\n"));
  // The reference iputrain_gen_ops_doc prints: docs/ops.md when no op is registered (that program
  // registers none: tests/core checks the file against it), then this section when some are.
  const std::string ops_md = file_text(std::string(IPUTRAIN_SOURCE_DIR) + "/docs/ops.md");
  REQUIRE(ops_md.starts_with("<!-- Generated by iputrain_gen_ops_doc"));
  CHECK(ops_md.find("Registered ops") == std::string::npos);
  CHECK(ir::registered_ops_markdown({}).empty());
  CHECK(ir::ops_reference_markdown({}) == ops_md);
  CHECK(ir::ops_reference_markdown(ir::registered_custom_ops()) == ops_md + "\n" + section);
}
