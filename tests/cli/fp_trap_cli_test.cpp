// `train --set ipu.floating_point_behaviour.*`: a trapped op is a located runtime error (exit 1),
// printed in full (golden text); without the flag the same run completes with a NaN loss.
#include <doctest/doctest.h>

#include <string>

#include "run_cli.hpp"

namespace {

const std::string kTrain = "train cases/fp_trap.ipu cases/tiny.toml --no-eval -q --set training.steps=3";

}  // namespace

TEST_CASE("train --set ipu.floating_point_behaviour.oflo=true stops at the overflowing op") {
  const cli_test::Run r =
      cli_test::iputrain(kTrain + " --set ipu.floating_point_behaviour.oflo=true", "2>&1 >/dev/null");
  CHECK(r.status == 1);
  CHECK(r.out ==
        "cases/fp_trap.ipu:7:33: error: `exp` (value %5, forward pass of stage 0 'features') produced an overflow "
        "(a finite result beyond the f32 range) in training step 1, micro-batch 0 of replica 0 (global "
        "micro-batch 0)\n"
        "      stage features { h = nn.dense(exp(flatten(x) * 100.0), 16, activation = relu) }\n"
        "                                    ^~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: trapped by `ipu.floating_point_behaviour.oflo`; scale the inputs, lower the learning rate or clip "
        "the gradients, or set `ipu.floating_point_behaviour.oflo` to false to let the value through\n");
}

TEST_CASE("the other flags, or none, let the overflow through") {
  const cli_test::Run div0 = cli_test::iputrain(kTrain + " --set ipu.floating_point_behaviour.div0=true");
  CHECK(div0.status == 0);
  const cli_test::Run off =
      cli_test::iputrain("train cases/fp_trap.ipu cases/tiny.toml --no-eval --set training.steps=3");
  CHECK(off.status == 0);
  const bool nan_loss = off.out.find("loss -nan") != std::string::npos || off.out.find("loss nan") != std::string::npos;
  CHECK(nan_loss);
}
