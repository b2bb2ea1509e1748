// The training log's pieces (cli/progress.hpp): the Keras-like progress bar and validation lines.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cli/progress.hpp"

using iputrain::ValidationRecord;
using iputrain::cli::bar_text;
using iputrain::cli::validation_text;

TEST_CASE("the progress bar shows the fraction, the step, the ETA, the running loss and the rate") {
  CHECK(bar_text(450, 1000, 12.4, "loss", 0.43219, true, 1234.4) ==
        "[#############.................]  45%  step 450/1000  ETA 0:12  loss 0.4322  1234 samples/s");
  // Over an hour the ETA shows hours; before the first step it is unknown.
  CHECK(bar_text(1, 100, 3725, "loss", 0, true, 5).find("ETA 1:02:05") != std::string::npos);
  CHECK(bar_text(0, 100, -1, "loss", 0, false, 0) ==
        "[..............................]   0%  step 0/100  ETA ?  0 samples/s");
  CHECK(bar_text(100, 100, 0, "acc", 0.5, true, 10).starts_with("[##############################] 100%"));
}

TEST_CASE("a validation line names the step, the epoch and every val_ metric") {
  const ValidationRecord v{40, 2.0, {0.31, 0.88}};
  CHECK(validation_text(v, {"val_loss", "val_accuracy"}) ==
        "validation at step 40 (epoch 2.00):  val_loss 0.3100  val_accuracy 0.8800");
}

TEST_CASE("a step line: the metrics in order, the learning rate, the rate and the ETA but on the last line") {
  using iputrain::cli::StepLine;
  StepLine s{40, 400, 0.5, {"loss", "accuracy"}, {0.43219, 0.88}, 0.001, 51234.4, 2.0, 12.4};
  CHECK(iputrain::cli::step_text(s) ==
        "step  40/400  epoch 0.50  loss 0.4322  accuracy 0.8800  lr 0.001  51234 samples/s  ETA 0:12");
  s.step = 400;
  CHECK(iputrain::cli::step_text(s).ends_with("lr 0.001  51234 samples/s"));
  s.learning_rate = 3.75e-05;
  CHECK(iputrain::cli::step_text(s).find("  lr 3.75e-05  ") != std::string::npos);
}

TEST_CASE("a step as JSON: its fields in order, the metrics in the model's order, NaN as null") {
  using iputrain::cli::StepLine;
  const StepLine s{40, 400, 0.5, {"loss", "accuracy"}, {std::nan(""), 0.875}, 0.001, 1000, 2.0, -1};
  CHECK(iputrain::cli::step_json(s).dump() ==
        R"({"event":"step","step":40,"steps":400,"epoch":0.5,"metrics":{"loss":null,"accuracy":0.875},)"
        R"("learning_rate":0.001,"samples_per_second":1000.0,"elapsed_seconds":2.0,"eta_seconds":null})");
  const ValidationRecord v{40, 2.0, {0.31, 0.88}};
  CHECK(iputrain::cli::validation_json(v, {"val_loss", "val_accuracy"}).dump() ==
        R"({"event":"validation","step":40,"epoch":2.0,"metrics":{"val_loss":0.31,"val_accuracy":0.88}})");
}

TEST_CASE("the ETA and the learning rate as the log writes them") {
  CHECK(iputrain::cli::eta_text(-1) == "?");
  CHECK(iputrain::cli::eta_text(59.6) == "1:00");
  CHECK(iputrain::cli::eta_text(3725) == "1:02:05");
  CHECK(iputrain::cli::learning_rate_text(0.1) == "0.1");
  CHECK(iputrain::cli::learning_rate_text(static_cast<float>(0.09567727)) == "0.09568");
  CHECK(iputrain::cli::learning_rate_text(0) == "0");
}
