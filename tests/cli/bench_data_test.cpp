// `iputrain bench-data`: the seed's dataset-benchmark fields per epoch, measured, and the plan's
// consumption rate beside them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.hpp"

namespace {

using cli_test::Run;

}  // namespace

TEST_CASE("bench-data --format json gives the seed's fields per epoch, measured") {
  // tiny.toml: 256 synthetic training samples of x f32[16] and label i32, micro-batch 8.
  const Run r = cli_test::iputrain("bench-data cases/tiny.ipu cases/tiny.toml --epochs 3 --format json");
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["epochs"].size() == 3);
  const int64_t element_bytes = j["element"]["bytes"];
  const int64_t samples = j["element"]["samples"];
  CHECK(element_bytes == samples * (16 * 4 + 4));
  for (const auto& e : j["epochs"]) {
    for (const char* field : {"elements_processed", "total_bytes_processed", "time_elapsed", "elements_per_second", "bandwidth"}) {
      CAPTURE(field);
      REQUIRE(e.contains(field));
      CHECK(e[field].get<double>() > 0);
    }
    CHECK(e["elements_processed"] == 256 / samples);  // one epoch: the split's whole batches
    CHECK(e["total_bytes_processed"] == e["elements_processed"].get<int64_t>() * element_bytes);
    // The rates follow from the measured time.
    const double t = e["time_elapsed"];
    CHECK(e["elements_per_second"].get<double>() == doctest::Approx(e["elements_processed"].get<double>() / t));
    CHECK(e["bandwidth"].get<double>() == doctest::Approx(e["total_bytes_processed"].get<double>() / t / 1e9));
  }
  CHECK(j["device"]["samples_per_second"].get<double>() > 0);
  CHECK(j["feed_bound"].is_boolean());
}

TEST_CASE("bench-data prints a table with the device's rate, and refuses bad arguments") {
  const Run t = cli_test::iputrain("bench-data cases/tiny.ipu cases/tiny.toml --split test --elements 5");
  REQUIRE(t.status == 0);
  CHECK(t.out.find("elements_processed") != std::string::npos);
  // Epoch 1: 5 elements of 8 samples x (16 f32 + 1 i32) = 2720 bytes.
  CHECK(t.out.find("                   5                   2720  ") != std::string::npos);
  CHECK(t.out.find("device: the plan consumes") != std::string::npos);
  CHECK(cli_test::iputrain("bench-data cases/tiny.ipu cases/tiny.toml --epochs 0").status == 2);
  CHECK(cli_test::iputrain("bench-data cases/tiny.ipu cases/tiny.toml --split valid").status == 2);
}
