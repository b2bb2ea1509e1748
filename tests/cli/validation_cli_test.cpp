// `train` with validation (data.validation_split, training.validate_every, checkpoint.keep_best):
// the log's validation lines, the outfeed file's validation table, the trace's validation slices
// and the kept best checkpoint.
#include <doctest/doctest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace fs = std::filesystem;
using cli_test::Run;

TEST_CASE("train validates where the config says and shows it in the log, the outfeed file and the trace") {
  const fs::path dir = iputrain_tests::scratch_dir("validation_cli");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "v.toml") << "extends = \"" << fs::absolute("cases/tiny.toml").string() << "\"\n"
                                << "[data]\nvalidation_split = 0.25\n"
                                << "[training]\nsteps = 30\nsteps_per_execution = 4\nvalidate_every = 10\n"
                                << "validate_every_unit = \"steps\"\n"
                                << "[checkpoint]\ndir = \"ck\"\nkeep_best = \"val_loss\"\n";
  const std::string out = (dir / "o.csv").string();
  const std::string trace = (dir / "t.json").string();
  const Run r = cli_test::iputrain("train cases/tiny.ipu " + (dir / "v.toml").string() + " --no-eval --outfeed " + out +
                                   " --trace " + trace);
  REQUIRE(r.status == 0);
  for (const char* line : {"validation at step 10 (epoch", "validation at step 20 (epoch", "validation at step 30 (epoch"}) {
    CHECK(r.out.find(line) != std::string::npos);
  }
  CHECK(r.out.find("  val_loss ") != std::string::npos);
  CHECK(r.out.find("kept the best checkpoint (val_loss ") != std::string::npos);
  CHECK(fs::exists(dir / "ck" / "best.safetensors"));

  std::ifstream table(dir / "o.validation.csv");
  std::vector<std::string> rows;
  for (std::string line; std::getline(table, line);) {
    rows.push_back(line);
  }
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] == "step,epoch,val_loss,val_accuracy");
  CHECK(rows[1].starts_with("10,"));
  CHECK(rows[3].starts_with("30,"));

  std::ifstream in(trace);
  std::stringstream s;
  s << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(s.str());
  int validations = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "validation") {
      ++validations;
      CHECK(e["args"].contains("val_loss"));
      CHECK(e["cat"] == "host");
    }
  }
  CHECK(validations == 3);
  // eval reads the held-out split by name.
  const Run e = cli_test::iputrain("eval cases/tiny.ipu " + (dir / "v.toml").string() + " --weights " +
                                   (dir / "ck" / "best.safetensors").string() + " --split validation");
  CHECK(e.status == 0);
  CHECK(e.out.find("validation:  loss") != std::string::npos);
}
