// The training log's pieces (cli/progress.hpp): the Keras-like progress bar and validation lines.
#include <doctest/doctest.h>

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
