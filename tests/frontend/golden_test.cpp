// Golden tests: every good model's IR text and every bad model's rendered error, compared with the
// file next to it. IPUTRAIN_UPDATE_GOLDEN=1 rewrites the expected files instead of comparing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iputrain/model.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(IPUTRAIN_TEST_DATA_DIR) + "/frontend";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool updating() {
  const char* v = std::getenv("IPUTRAIN_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// Compares `actual` with the golden file, or rewrites it when updating.
void check_golden(const fs::path& golden, const std::string& actual) {
  if (updating()) {
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  INFO("golden file: ", golden.string());
  REQUIRE(fs::exists(golden));
  CHECK(read(golden) == actual);
}

// A first line `# overrides: a=1, b=2.5, c=true, d="x"` sets model parameters, as [model] would.
std::map<std::string, iputrain::ParamValue> overrides_of(const std::string& text) {
  std::map<std::string, iputrain::ParamValue> out;
  const std::string tag = "# overrides:";
  if (!text.starts_with(tag)) {
    return out;
  }
  std::stringstream line(text.substr(tag.size(), text.find('\n') - tag.size()));
  std::string item;
  while (std::getline(line, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string v = item.substr(eq + 1);
    if (v == "true" || v == "false") {
      out[key] = v == "true";
    } else if (v.starts_with("\"")) {
      out[key] = v.substr(1, v.size() - 2);
    } else if (v.find('.') != std::string::npos) {
      out[key] = std::stod(v);
    } else {
      out[key] = static_cast<int64_t>(std::stoll(v));
    }
  }
  return out;
}

std::vector<fs::path> ipu_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    // Files starting with "# module" are imported by other cases, not models themselves.
    if (e.path().extension() == ".ipu" && !read(e.path()).starts_with("# module")) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Paths in messages are shown relative to the test data folder, so goldens do not depend on
// where the checkout lives.
std::string relative(std::string text) {
  const std::string prefix = kDir + "/";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix)) {
    text.erase(at, prefix.size());
  }
  return text;
}

std::string expected_ir(const fs::path& model) {
  const iputrain::Model m = iputrain::Model::load(model.string(), overrides_of(read(model)));
  std::string out = m.ir_text();
  for (const auto& w : m.warnings()) {
    out += relative(w);
  }
  return out;
}

const char* kind_name(iputrain::ErrorKind k) {
  switch (k) {
    case iputrain::ErrorKind::Syntax:
      return "syntax";
    case iputrain::ErrorKind::Semantic:
      return "semantic";
    case iputrain::ErrorKind::Config:
      return "config";
    case iputrain::ErrorKind::Io:
      return "io";
    default:
      return "other";
  }
}

}  // namespace

TEST_CASE("good models lower to the stored IR") {
  const auto files = ipu_files(kDir + "/good");
  CHECK(files.size() >= 5);
  for (const auto& f : files) {
    INFO("model: ", f.string());
    std::string ir;
    try {
      ir = expected_ir(f);
    } catch (const iputrain::Error& e) {
      FAIL_CHECK(e.render());
      continue;
    }
    check_golden(fs::path(f).replace_extension(".ir"), ir);
  }
}

TEST_CASE("the example model lowers to the stored IR") {
  const fs::path example = fs::path(IPUTRAIN_SOURCE_DIR) / "examples" / "mnist_mlp.ipu";
  check_golden(kDir + "/good/mnist_mlp_example.ir", expected_ir(example));
}

TEST_CASE("bad models fail with the stored error") {
  const auto files = ipu_files(kDir + "/bad");
  CHECK(files.size() >= 14);
  for (const auto& f : files) {
    INFO("model: ", f.string());
    std::string rendered;
    try {
      (void)iputrain::Model::load(f.string(), overrides_of(read(f)));
      FAIL_CHECK("no error raised");
      continue;
    } catch (const iputrain::Error& e) {
      rendered = std::string("[") + kind_name(e.kind()) + "]\n" + relative(e.render());
    }
    check_golden(fs::path(f).replace_extension(".err"), rendered);
  }
}
