// The schema table is consistent with itself and with the Config structs.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "frontend/config/schema.hpp"

using namespace iputrain::config;
using iputrain::Config;

TEST_CASE("schema defaults equal the Config member initialisers") {
  Config c;
  for (const auto& k : schema()) {
    INFO(k.path);
    if (k.type == KeyType::FreeTable || k.path == "extends") {
      CHECK_FALSE(k.access.get);
      continue;
    }
    REQUIRE(k.access.get);
    REQUIRE(k.access.set);
    CHECK(k.access.get(c) == k.default_value);
    // The default's C++ type matches the key type.
    switch (k.type) {
      case KeyType::Int:
        CHECK(std::holds_alternative<int64_t>(k.default_value));
        break;
      case KeyType::Float:
        CHECK(std::holds_alternative<double>(k.default_value));
        break;
      case KeyType::Bool:
        CHECK(std::holds_alternative<bool>(k.default_value));
        break;
      case KeyType::AutoBool:
        CHECK(k.default_value == Value("auto"));
        break;
      case KeyType::IntList:
      case KeyType::FloatList:
      case KeyType::NestedIntList:
      case KeyType::BoolList:
      case KeyType::StringList:
      case KeyType::StageOptionsList:
        CHECK(std::holds_alternative<ValueList>(k.default_value));
        break;
      case KeyType::OptionMap:
      case KeyType::StageOptions:
        CHECK(std::holds_alternative<ValueTable>(k.default_value));
        break;
      default:
        CHECK(std::holds_alternative<std::string>(k.default_value));
        break;
    }
  }
}

TEST_CASE("schema rows are well formed") {
  std::set<std::string> paths;
  for (const auto& k : schema()) {
    INFO(k.path);
    CHECK(paths.insert(k.path).second);
    CHECK_FALSE(k.doc.empty());
    CHECK(k.doc.find('\n') == std::string::npos);  // one line
    if (k.unique) {
      CHECK((k.type == KeyType::IntList || k.type == KeyType::StringList));
    }
    CHECK(k.path.find(' ') == std::string::npos);
    if (k.type == KeyType::Enum) {
      CHECK_FALSE(k.allowed.empty());
      CHECK(std::find(k.allowed.begin(), k.allowed.end(), std::get<std::string>(k.default_value)) !=
            k.allowed.end());
    }
    // Every table a key lives in is declared (and documented) as a section.
    for (size_t dot = k.path.find('.'); dot != std::string::npos; dot = k.path.find('.', dot + 1)) {
      CHECK(is_section(k.path.substr(0, dot)));
    }
    // A refused or no-effect key says why (and a refused one what to do instead); the others
    // carry no reason, which would otherwise be shown nowhere.
    const bool explained = k.effect == iputrain::config::Effect::Refused || k.effect == iputrain::config::Effect::None;
    CHECK(k.reason.empty() != explained);
    CHECK(k.hint.empty() != (k.effect == iputrain::config::Effect::Refused));
    for (const auto& other : k.conflicts) {
      const KeySpec* o = find_key(other);
      REQUIRE(o != nullptr);
      CHECK(std::find(o->conflicts.begin(), o->conflicts.end(), k.path) != o->conflicts.end());
    }
  }
  for (const auto& s : sections()) {
    CHECK_FALSE(s.doc.empty());
    CHECK_FALSE(find_key(s.path));
  }
}

TEST_CASE("ranges") {
  CHECK(Range::at_least(1).str() == ">= 1");
  CHECK(Range::at_least(0, true).str() == "> 0");
  CHECK(Range::between(0, 1).str() == "between 0 and 1");
  CHECK(Range{}.str().empty());
  CHECK(Range::at_least(0, true).contains(1e-30));
  CHECK_FALSE(Range::at_least(0, true).contains(0));
  CHECK_FALSE(Range::at_least(0).contains(std::nan("")));
  CHECK(Range::between(0.5, 1.5).contains(1.5));
  CHECK(find_key("data.batch_size")->expected() == "integer >= 1");
  CHECK(find_key("optimizer.type")->expected() ==
        "one of \"sgd\", \"momentum\", \"adam\", \"adamw\", \"lamb\", \"rmsprop\", \"adagrad\", \"lion\", "
        "\"adafactor\", \"lars\"");
  CHECK(find_key("ipu.select_ipus")->expected() == "list of integers between 0 and 30");
}

TEST_CASE("suggestions for unknown keys") {
  CHECK(suggest_key("data.batchsize") == "data.batch_size");
  CHECK(suggest_key("training.batch_size") == "data.batch_size");
  CHECK(suggest_key("dat") == "data");
  CHECK(suggest_key("trainig") == "training");
  CHECK(suggest_key("optimizer.lr").empty());
  CHECK(suggest_key("steps") == "training.steps");
  CHECK(keys_in("optimizer").size() == 31);
  CHECK(keys_in("ipu.norms") == std::vector<std::string>{"use_stable_statistics", "experimental"});
  CHECK(suggest_key("ipu.optimisations") == "ipu.optimizations");
  CHECK(suggest_key("ipu.optimizations.combine_matmul") == "ipu.optimizations.combine_matmuls");
  CHECK(suggest_key("pipeline.pipeline_schedule").empty());
  CHECK(suggest_key("gradient_accumulation_count") == "pipeline.gradient_accumulation_count");
  CHECK(enum_folded("Recompute_Then-Backpropagate") == "recomputethenbackpropagate");
}

TEST_CASE("show round-trips through the loader") {
  Config c = parse("[model]\nhidden = 3\nname = \"x\"\n[data]\nbatch_size = 5\n[training]\nepochs = 1.5\n", "c.toml",
                   {"optimizer.learning_rate=0.5"});
  const std::string text = show(c);
  CHECK(text.find("[model]\nhidden = 3\nname = \"x\"\n") == 0);
  // Keys the config did not set are comments, so that they stay unset when the text is read back.
  CHECK(text.find("[optimizer]\n# type = \"sgd\"  (default)\n") != std::string::npos);
  CHECK(text.find("\nlearning_rate = 0.5\n") != std::string::npos);
  CHECK(text.find("# steps = 0  (unset)\n") != std::string::npos);
  Config back = parse(text, "shown.toml");
  CHECK(back.model == c.model);
  CHECK(back.plain.data_batch_size == 5);
  CHECK(back.plain.training_epochs == 1.5);
  CHECK(back.plain.optimizer_learning_rate == 0.5);
  CHECK(back.plain.training_seed == c.plain.training_seed);
}
