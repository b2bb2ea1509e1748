// Golden error tests: every bad/NAME.toml must fail to load with exactly the text in bad/NAME.err.
// Lines `# --set key=value` at the top of a .toml are passed as --set overrides.
// Regenerate with IPUTRAIN_UPDATE_GOLDEN=1 (then read the diff).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iputrain/config_loader.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> set_directives(const std::string& text) {
  std::vector<std::string> sets;
  std::istringstream in(text);
  const std::string tag = "# --set ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(tag, 0) == 0) {
      sets.push_back(line.substr(tag.size()));
    }
  }
  return sets;
}

}  // namespace

TEST_CASE("golden bad configs render the expected errors") {
  const fs::path dir = fs::path(IPUTRAIN_TEST_DATA_DIR) / "config" / "bad";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".toml") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 40);
  const bool update = std::getenv("IPUTRAIN_UPDATE_GOLDEN") != nullptr;
  for (const auto& file : files) {
    INFO("config: " << file.filename().string());
    const std::string text = read_text(file);
    // A path relative to tests/config keeps the golden text independent of the checkout location.
    const std::string shown = "bad/" + file.filename().string();
    std::string rendered;
    try {
      (void)iputrain::config::parse(text, shown, set_directives(text));
      FAIL("the config loaded without an error");
    } catch (const iputrain::Error& e) {
      CHECK(e.kind() == iputrain::ErrorKind::Config);
      rendered = e.render();
      // Every error has a position and a hint.
      CHECK(e.span().valid());
      CHECK_FALSE(e.hint().empty());
    }
    fs::path expected_file = file;
    expected_file.replace_extension(".err");
    if (update) {
      std::ofstream(expected_file, std::ios::binary) << rendered;
      continue;
    }
    REQUIRE_MESSAGE(fs::exists(expected_file),
                    "missing " << expected_file << "; run with IPUTRAIN_UPDATE_GOLDEN=1");
    CHECK(rendered == read_text(expected_file));
  }
}

TEST_CASE("golden warnings: keys with no effect warn, located, when set to a non-default value") {
  const fs::path dir = fs::path(IPUTRAIN_TEST_DATA_DIR) / "config" / "warn";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".toml") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 2);
  const bool update = std::getenv("IPUTRAIN_UPDATE_GOLDEN") != nullptr;
  for (const auto& file : files) {
    INFO("config: " << file.filename().string());
    const std::string text = read_text(file);
    const iputrain::Config config =
        iputrain::config::parse(text, "warn/" + file.filename().string(), set_directives(text));
    std::string rendered;
    for (const std::string& w : config.warnings()) {
      rendered += w;
    }
    CHECK(rendered.find("warning: ") != std::string::npos);
    fs::path expected_file = file;
    expected_file.replace_extension(".out");
    if (update) {
      std::ofstream(expected_file, std::ios::binary) << rendered;
      continue;
    }
    REQUIRE_MESSAGE(fs::exists(expected_file), "missing " << expected_file << "; run with IPUTRAIN_UPDATE_GOLDEN=1");
    CHECK(rendered == read_text(expected_file));
  }
}
