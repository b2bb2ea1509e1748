// Fuzz target: typed boundary values for the config's keys (issue 30). The bytes choose one to
// three keys of the schema (frontend/config/schema.hpp) and, for each, a value at the edge of its
// type or range: 0, -1, the range's bounds and one past them, 2^31-1, 2^63-1, huge and tiny
// floats, nan, ±inf, empty and very long strings, wrong types, lists of odd lengths. A value goes
// into the TOML text under its table or into a `--set` override (the bytes choose). Then the small
// fixed two-stage model below is loaded, planned and trained for one device execution on one or
// two IPUs. The answer must be a run or an iputrain::Error that is not internal and is located
// (file:line:col of the config or the model; a plan or data error on the config as a whole, such
// as a plan too big for the memory, may name the keys instead); anything else aborts with the
// config on stderr.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "frontend/config/schema.hpp"
#include "fuzz_input.hpp"
#include "fuzz_train.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"
#include "program_gen.hpp"

namespace {

using namespace iputrain;
using namespace iputrain::fuzz;
namespace fs = std::filesystem;

const char* const kModel = R"(import nn
model fixed(batch: int = 2, hidden: int = 4) {
  input x: f32[batch, 3]
  input label: i32[batch]
  stage a { h = nn.dense(x, hidden, activation = relu) }
  stage b {
    logits = nn.dense(nn.dropout(h, 0.1), 2)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
  output accuracy = mean(argmax(logits, axis = -1) == label)
}
)";

// The run's own folder: the folders a run writes (checkpoint.dir, profiling.report_directory,
// ipu.serialization_output_folder) are kept inside it, relative values included, and it is
// emptied after each input.
const fs::path& run_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::path(scratch_dir()) / "run";
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

bool writes_folder(const std::string& key) {
  return key.find("dir") != std::string::npos || key.find("folder") != std::string::npos;
}

const std::string& model_path() {
  static const std::string path = write_scratch("model/fixed.ipu", kModel);
  return path;
}

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

//! The numbers at and around an integer key's range, when they are integers.
void range_ints(const config::Range& r, std::vector<std::string>& out) {
  for (const double b : {r.min, r.max}) {
    if (std::isfinite(b) && std::abs(b) < 9e18) {
      const auto v = static_cast<int64_t>(b);
      out.insert(out.end(), {std::to_string(v), std::to_string(v - 1), std::to_string(v + 1)});
    }
  }
}

std::vector<std::string> int_values(const config::KeySpec& k) {
  std::vector<std::string> v{"0",
                             "-1",
                             "1",
                             "2",
                             "3",
                             "2147483647",
                             "2147483648",
                             "-2147483648",
                             "4294967296",
                             "9223372036854775807",
                             "-9223372036854775808",
                             "1.5",
                             "\"1\"",
                             "true",
                             "[1]"};
  range_ints(k.range, v);
  return v;
}

std::vector<std::string> float_values(const config::KeySpec& k) {
  std::vector<std::string> v{
      "0.0",    "-0.0",  "-1.0", "1.0", "0.5",  "1e308",      "1.7976931348623157e308", "-1e308", "5e-324",
      "1e-300", "nan",   "-nan", "inf", "-inf", "2147483647", "9223372036854775807",    "1e-45",  "\"0.1\"",
      "true",   "3.4e38"};
  for (const double b : {k.range.min, k.range.max}) {
    if (std::isfinite(b)) {
      v.insert(v.end(), {fmt::format("{:e}", b), fmt::format("{:e}", std::nextafter(b, -INFINITY)),
                         fmt::format("{:e}", std::nextafter(b, INFINITY))});
    }
  }
  return v;
}

std::vector<std::string> string_values(const config::KeySpec& k) {
  std::vector<std::string> v{"\"\"",
                             in_quotes(std::string(4096, 'a')),
                             "\"/proc/iputrain-fuzz/none\"",
                             "\"a/../b\"",
                             "\"\\u0000\"",
                             "\"x\"",
                             "\"auto\"",
                             "0",
                             "[\"a\"]",
                             "\" \""};
  for (const std::string& a : k.allowed) {
    v.push_back(in_quotes(a));
    std::string upper = a;
    for (char& c : upper) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    v.push_back(in_quotes(upper));
  }
  return v;
}

std::vector<std::string> values_of(const config::KeySpec& k) {
  using config::KeyType;
  switch (k.type) {
    case KeyType::Int:
      return int_values(k);
    case KeyType::Float:
      return float_values(k);
    case KeyType::Bool:
      return {"true", "false", "1", "\"true\""};
    case KeyType::String:
    case KeyType::Enum:
      return string_values(k);
    case KeyType::AutoBool:
      return {"true", "false", "\"auto\"", "\"maybe\"", "0"};
    case KeyType::IntList:
    case KeyType::NestedIntList:
      return {"[]",
              "[0]",
              "[-1]",
              "[2147483647]",
              "[9223372036854775807]",
              "[0, 0]",
              "[0, 1]",
              "[1, 0]",
              "[1, 2, 3, 4, 5, 6, 7, 8]",
              "[\"a\"]",
              "[1.5]",
              "0",
              "[[]]",
              "[0, [1, 2]]",
              "[[0, 1]]",
              "[[0], [1]]",
              "[0, [0, 1], 1]",
              "[-9223372036854775808, 0]"};
    case KeyType::FloatList:
      return {"[]", "[0.5]", "[0]", "[1, 0.25]", "[-1.0]", "[nan]", "[inf]", "[\"0.5\"]", "0.5"};
    case KeyType::BoolList:
      return {"[]", "[true]", "[true, false, true]", "[1]", "true"};
    case KeyType::StringList:
      return {"[]", "[\"\"]", "[\"a\", \"b\"]", "[\"a\", \"a\"]", "[0]", "\"a\""};
    case KeyType::OptionMap:
      return {"{}", "{ a = \"b\" }", "{ a = 1 }", "{ \"\" = \"\" }", "[]"};
    case KeyType::StageOptions:
      return {"{}", "{ convolution_options = {} }", "{ matmul_options = { a = \"b\" } }", "{ x = 1 }", "1"};
    case KeyType::StageOptionsList:
      return {"[]", "[{}]", "[{}, {}]", "[{}, {}, {}]", "[1]"};
    case KeyType::FreeTable:
      return {};
  }
  return {};
}

// The `[model]` table's keys are the model's parameters (and an unknown one).
std::vector<std::string> model_values() {
  return {"0", "-1", "1", "2147483647", "9223372036854775807", "1e308", "nan", "\"a\"", "true"};
}

struct Setting {
  std::string path;
  std::string value;
};

Setting choose(ByteReader& in) {
  const auto& schema = config::schema();
  const config::KeySpec& k = schema[in.pick(schema.size())];
  if (k.type == config::KeyType::FreeTable) {
    static const char* const kNames[] = {"batch", "hidden", "depth"};
    const auto values = model_values();
    return {k.path + "." + kNames[in.pick(3)], values[in.pick(values.size())]};
  }
  const auto values = values_of(k);
  std::string value = values.empty() ? "0" : values[in.pick(values.size())];
  if (writes_folder(k.path) && value.size() > 2 && value.front() == '"' && value[1] != '/') {
    value.insert(1, run_dir().string() + "/");
  }
  return {k.path, value};
}

std::string toml_of(const std::map<std::string, std::string>& entries) {
  std::map<std::string, std::vector<std::string>> tables;
  for (const auto& [path, value] : entries) {
    const size_t dot = path.rfind('.');
    tables[dot == std::string::npos ? "" : path.substr(0, dot)].push_back(
        (dot == std::string::npos ? path : path.substr(dot + 1)) + " = " + value);
  }
  std::string text;
  for (const auto& [table, lines] : tables) {
    text += table.empty() ? "" : "[" + table + "]\n";
    for (const std::string& l : lines) {
      text += l + "\n";
    }
  }
  return text;
}

[[noreturn]] void finding(const std::string& text, const std::vector<std::string>& sets, const std::string& what) {
  std::fprintf(stderr, "config_values finding: %s\n--- config\n%s--- sets\n", what.c_str(), text.c_str());
  for (const std::string& s : sets) {
    std::fprintf(stderr, "%s\n", s.c_str());
  }
  std::abort();
}

//! Where an error points the user: its span (file:line:col), or for the planner's and the data's
//! verdicts on the config as a whole (a plan that does not fit in memory), the key paths its
//! message or hint names.
bool located(const Error& e) {
  if (e.span().valid()) {
    return true;
  }
  if (e.kind() != ErrorKind::Plan && e.kind() != ErrorKind::Data && e.kind() != ErrorKind::Io) {
    return false;
  }
  const std::string text = std::string(e.what()) + "\n" + e.hint();
  for (const config::KeySpec& k : config::schema()) {
    if (text.find(k.path) != std::string::npos) {
      return true;
    }
  }
  return false;
}

int64_t updates_per_execution(const Config& c) {
  const int64_t spe = std::max<int64_t>(1, c.plain.training_steps_per_execution);
  const int64_t repeats = std::max<int64_t>(1, c.plain.pipeline_repeat_count);
  return spe > kMaxSamplesPerExecution || repeats > kMaxSamplesPerExecution ? kMaxSamplesPerExecution + 1
                                                                            : spe * repeats;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const auto& e : fs::directory_iterator(run_dir())) {
    fs::remove_all(e.path());
  }
  ByteReader in(data, size);
  const bool two = in.coin();
  std::map<std::string, std::string> entries{{"ipu.auto_select_ipus", two ? "2" : "1"},
                                             {"optimizer.type", "\"sgd\""},
                                             {"optimizer.learning_rate", "0.01"},
                                             {"data.batch_size", "2"},
                                             {"training.steps", "1"},
                                             {"training.steps_per_execution", "1"},
                                             {"training.seed", "1"},
                                             {"profiling.report_directory", in_quotes(run_dir().string())}};
  if (two) {
    entries["pipeline.device_mapping"] = "[0, 1]";
  }
  std::vector<std::string> sets;
  const int64_t count = in.range(1, 3);
  for (int64_t i = 0; i < count; ++i) {
    const Setting s = choose(in);
    if (verbose()) {
      std::fprintf(stderr, "chosen: %s = %.60s\n", s.path.c_str(), s.value.c_str());
    }
    if (in.coin()) {
      sets.push_back(s.path + "=" + s.value);
    } else {
      entries[s.path] = s.value;
    }
  }
  const std::string text = toml_of(entries);
  if (verbose()) {
    std::fprintf(stderr, "--- config\n%s--- sets\n", text.c_str());
    for (const std::string& set : sets) {
      std::fprintf(stderr, "%s\n", set.c_str());
    }
  }
  try {
    const Config config = config::parse(text, "fuzz.toml", sets);
    const Model model = Model::load(model_path(), config);
    plan_and_train(model, config, {}, updates_per_execution(config));
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal || !located(e)) {
      finding(text, sets,
              std::string(e.kind() == ErrorKind::Internal ? "an internal" : "an unlocated") + " error (" +
                  error_kind_name(e.kind()) + "):\n" + e.render());
    }
    if (verbose()) {
      std::fprintf(stderr, "diagnosed: %s\n", e.render().c_str());
    }
  }
  return 0;
}
