// engine.spread_kernels (engine/cluster/spread_tuner.hpp): which kernels split their blocks over the
// arena. The tuner's choices from given execution times, for_blocks honouring the thread's limit,
// and the weights bitwise the same for every value (only where blocks run changes).
#include <doctest/doctest.h>

#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.hpp"
#include "engine/cluster/spread_tuner.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;
using engine::SpreadTuner;

namespace {

constexpr int64_t kAlways = SpreadTuner::kLimits[0];
constexpr int64_t kLarge = SpreadTuner::kLimits[1];

// A [16, 256] x [256, 128] product (524k multiply-adds: split under `always`, not under
// `large_only`), its gradients and the update.
const std::string kSmallMlp = R"(import nn

model small(batch: int = 16) {
  input image: f32[batch, 16, 16]
  input label: i32[batch]
  h = nn.dense(flatten(image), 128, activation = relu)
  logits = nn.dense(h, 10)
  loss = mean(softmax_cross_entropy(logits, label))
  minimize loss
  output loss
}
)";

struct Trained {
  std::vector<WeightInfo> weights;
  RunReport report;
};

Trained trained(const std::string& spread) {
  Config config = config::parse("[engine]\nthreads = 2\nspread_kernels = \"" + spread +
                                    "\"\n[optimizer]\ntype = \"adam\"\nlearning_rate = 0.002\n"
                                    "[data]\ntrain = \"synthetic:samples=512,classes=10\"\n"
                                    "[training]\nsteps = 40\nsteps_per_execution = 2\nseed = 5\n",
                                "spread.toml");
  Session session(Model::parse(kSmallMlp, "spread.ipu", config.model), config);
  session.train();
  return {session.weights(), session.run_report()};
}

}  // namespace

TEST_CASE("always and large_only keep their limit in every execution") {
  SpreadTuner always(SpreadKernels::Always);
  SpreadTuner large(SpreadKernels::LargeOnly);
  for (int e = 0; e < 40; ++e) {
    CHECK(always.next() == kAlways);
    always.measured(e % 2 == 0 ? 1.0 : 0.1, 1);  // times never move them
    CHECK(large.next() == kLarge);
    large.measured(e % 2 == 0 ? 1.0 : 0.1, 1);
  }
  CHECK(always.executions()[0] == 40);
  CHECK(large.executions()[1] == 40);
}

TEST_CASE("auto times both limits, keeps the faster and tries the other every 16 executions") {
  SpreadTuner t(SpreadKernels::Auto);
  // Warm-up: not compared, however slow.
  CHECK(t.next() == kAlways);
  t.measured(100.0, 10);
  CHECK(t.next() == kAlways);
  t.measured(2.0, 10);  // 0.2 s per update
  CHECK(t.next() == kLarge);
  t.measured(1.0, 10);  // 0.1: large_only is kept
  for (int e = 3; e < 18; ++e) {
    CAPTURE(e);
    CHECK(t.next() == kLarge);
    t.measured(1.0, 10);
  }
  CHECK(t.next() == kAlways);  // execution 18: the other limit again
  t.measured(0.99, 10);        // faster by less than the margin: large_only stays
  CHECK(t.next() == kLarge);
  t.measured(1.0, 10);
  for (int e = 20; e < 34; ++e) {
    t.next();
    t.measured(1.0, 10);
  }
  CHECK(t.next() == kAlways);  // execution 34
  t.measured(0.5, 10);         // the cores came closer: always takes over
  CHECK(t.next() == kAlways);
  t.measured(0.5, 5);  // a short last execution is compared per update
  CHECK(t.executions()[0] + t.executions()[1] == 36);
}

TEST_CASE("auto keeps always when the first comparison does not favour large_only") {
  SpreadTuner t(SpreadKernels::Auto);
  t.next();
  t.measured(1.0, 1);
  t.next();
  t.measured(1.0, 1);
  CHECK(t.next() == kLarge);
  t.measured(1.2, 1);
  CHECK(t.next() == kAlways);
}

TEST_CASE("for_blocks keeps work below the calling thread's limit on that thread") {
  par::set_threads(2);
  std::set<std::thread::id> ran;
  std::mutex mu;
  auto record = [&](int64_t, int64_t) {
    std::lock_guard lock(mu);
    ran.insert(std::this_thread::get_id());
  };
  par::set_parallel_work(kLarge);
  par::for_blocks(64, 1, kLarge - 1, record);
  CHECK(ran == std::set{std::this_thread::get_id()});
  std::thread other([] { CHECK(par::parallel_work() == par::kParallelWork); });  // per thread
  other.join();
  par::set_parallel_work(1);  // never below the fixed threshold: bias_relu's overlap guard needs it
  CHECK(par::parallel_work() == par::kParallelWork);
}

TEST_CASE("the weights are bitwise the same for every engine.spread_kernels") {
  const Trained always = trained("always");
  const Trained large = trained("large_only");
  const Trained automatic = trained("auto");
  CHECK(testing::same_bits(large.weights, always.weights));
  CHECK(testing::same_bits(automatic.weights, always.weights));
  CHECK(always.report.executions == 20);
  CHECK(always.report.large_only_executions == 0);
  CHECK(large.report.large_only_executions == 20);
  const RunReport& a = automatic.report;
  CHECK(a.large_only_executions >= 1);  // execution 2 runs large_only, whatever the times
  CHECK(a.large_only_executions < a.executions);
}
