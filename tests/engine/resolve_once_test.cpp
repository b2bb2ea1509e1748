// One run resolves its config once (issue 48, point 2): Model::load, Plan::make and Session take a
// ResolvedConfig, which `iputrain train` makes once (cli/commands.cpp) and hands to all three. The
// resolutions are counted by config::resolve's test hook (frontend/config/resolve_count.hpp).
#include <doctest/doctest.h>

#include <string>

#include "frontend/config/resolve_count.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

const std::string kResolveOnceRun =
    "[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.05\n"
    "[data]\ntrain = \"synthetic:samples=64,classes=10\"\nbatch_size = 16\n"
    "[training]\nsteps = 2\nseed = 3\n";

}  // namespace

TEST_CASE("a run made from one ResolvedConfig resolves its config once") {
  const Config config = config::parse(kResolveOnceRun, "once.toml");
  const int64_t before = config::resolutions();
  const ResolvedConfig run(config);
  const Model model = Model::parse(testing::kMlp, "mlp.ipu", run);
  const Plan plan = Plan::make(model, run);
  Session planned(model, run, plan);
  planned.train();
  Session own(model, run);  // planning itself, from the same settings
  own.train();
  CHECK(config::resolutions() - before == 1);
  CHECK(planned.weights()[0].values == own.weights()[0].values);
}

TEST_CASE("a Config handed to each of model, plan and session is resolved by each") {
  const Config config = config::parse(kResolveOnceRun, "each.toml");
  const int64_t before = config::resolutions();
  const Model model = Model::parse(testing::kMlp, "mlp.ipu", config);
  const Plan plan = Plan::make(model, config);
  Session session(model, config, plan);
  CHECK(config::resolutions() - before == 3);
}

TEST_CASE("a ResolvedConfig folds the instances of a launched run into the settings, not the config") {
  const Config config = config::parse(kResolveOnceRun, "launch.toml");
  const ResolvedConfig alone(config);
  CHECK(alone.settings().ipu.instances == 1);
  CHECK(alone.instances() == Instances{});
  const ResolvedConfig launched(config, Instances{2, 1, true});
  CHECK(launched.settings().ipu.instances == 2);
  CHECK(launched.instances() == Instances{2, 1, true});
  // The config stays as given: what `config show` and checkpoints write.
  CHECK(config::value_text(launched.config(), "ipu.experimental.multi_replica_distribution.process_count") == "0");
  // A config that names another count than the launch is refused at its key.
  const Config four = config::parse(
      kResolveOnceRun + "[ipu.experimental.multi_replica_distribution]\nprocess_count = 4\n", "four.toml");
  try {
    const ResolvedConfig refused(four, Instances{2, 0, true});
    FAIL("a process_count other than mpirun's was accepted");
  } catch (const Error& e) {
    CHECK(e.diagnostic().message == "`process_count` = 4, but mpirun started 2 instances");
    CHECK(e.span().line == 11);
  }
}
