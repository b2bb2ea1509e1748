// docs/seed_api.md maps the seed's Python API to iputrain: every name its middle column ("here")
// gives must exist. A call or a bare name is a builtin, `nn.` / `losses.` / `activations.` a member
// of the standard library, any other dotted path a config key; a few words are the language's
// keywords, a REPL command or an option name, each listed below with what it is.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/builtins.hpp"
#include "frontend/config/schema.hpp"
#include "iputrain/error.hpp"
#include "iputrain/model.hpp"

namespace {
namespace seed_api_test {

// Words of the middle column that are neither builtins, stdlib members nor keys.
const std::map<std::string, std::string> kOther = {
    {"stage", "the language's stage block"},
    {"def", "the language's functions"},
    {"layer", "the language's layers"},
    {"output", "the language's output statement"},
    {"param", "the language's param statement (its `host = true` option: host tables)"},
    {"loop", "the language's loop statement (lowered once, docs/language.md)"},
    {"collect", "the statement that stacks a value over a loop's iterations"},
    {"step", "the REPL's step command"},
    {"epsilon", "an argument of the Keras layers"},
    {"partialsType", "a PopLibs option of the convolution and matmul poplar_options keys"},
};

// The backquoted spans of each table row's second cell, with their line.
std::vector<std::pair<int, std::string>> middle_column(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::pair<int, std::string>> out;
  std::string line;
  const std::regex code("`([^`]+)`");
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("| ", 0) != 0 || line.rfind("| seed", 0) == 0) {
      continue;
    }
    const size_t a = line.find('|', 1);
    const size_t b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos) {
      continue;
    }
    const std::string cell = line.substr(a + 1, b - a - 1);
    for (auto it = std::sregex_iterator(cell.begin(), cell.end(), code); it != std::sregex_iterator(); ++it) {
      out.emplace_back(n, (*it)[1].str());
    }
  }
  return out;
}

bool stdlib_member(const std::string& dotted) {
  try {
    (void)iputrain::Model::parse(
        "import nn\nimport losses\nimport activations\nmodel t() {\n  input x: f32[1]\n  f = " + dotted +
        "\n  output y = x\n}\n");
    return true;
  } catch (const iputrain::Error& e) {
    return std::string(e.what()).find("has no member") == std::string::npos;
  }
}

}  // namespace seed_api_test
}  // namespace

using namespace seed_api_test;

TEST_CASE("every name docs/seed_api.md offers exists in the language or the config") {
  std::set<std::string> builtins;
  for (const auto& b : iputrain::frontend::builtins()) {
    builtins.insert(b.name);
  }
  std::set<std::string> keys;
  for (const auto& k : iputrain::config::schema()) {
    keys.insert(k.path);
  }
  const std::regex name("^([A-Za-z_][A-Za-z0-9_.]*)");
  int checked = 0;
  for (const auto& [line, span] : middle_column(std::string(IPUTRAIN_SOURCE_DIR) + "/docs/seed_api.md")) {
    std::smatch m;
    if (span.rfind("--", 0) == 0 || span.rfind("iputrain ", 0) == 0 || span.rfind("iputrain::", 0) == 0 ||
        span.front() == '<' || !std::regex_search(span, m, name)) {
      continue;  // a command-line option, a command, the C++ API (tests/engine/custom_op_test.cpp), an expression
    }
    const std::string n = m[1].str();
    CAPTURE(line);
    CAPTURE(span);
    const std::string module = n.substr(0, n.find('.'));
    if (n.find('.') == std::string::npos) {
      CHECK_MESSAGE((builtins.count(n) == 1 || kOther.count(n) == 1), "not a builtin: " << n);
    } else if (module == "nn" || module == "losses" || module == "activations") {
      CHECK_MESSAGE(stdlib_member(n), "not in the standard library: " << n);
    } else {
      CHECK_MESSAGE(keys.count(n) == 1, "not a config key: " << n);
    }
    ++checked;
  }
  CHECK(checked >= 50);
  // The check can fail: a name that is none of them.
  CHECK_FALSE(stdlib_member("nn.no_such_layer"));
  CHECK(builtins.count("no_such_builtin") == 0);
}
