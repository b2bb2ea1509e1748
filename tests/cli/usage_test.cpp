// Issue 33, "a CLI that corrects": a mistyped command or option, a config key tried as an option
// and swapped MODEL and CONFIG each get a message located on the command line that names what was
// meant (golden text, exit status 2, nothing run); an error telling a root user to use mpirun
// names --allow-run-as-root.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::Run;

const std::string kFiles = "cases/tiny.ipu cases/tiny.toml";

//! What the command printed to standard error alone (stdout dropped).
Run stderr_of(const std::string& args) { return cli_test::iputrain(args, "2>&1 >/dev/null"); }

}  // namespace

TEST_CASE("a mistyped command names the nearest command") {
  const Run r = stderr_of("trian " + kFiles);
  CHECK(r.status == 2);
  CHECK(r.out ==
        "command line:1:10: error: `trian` is not an iputrain command\n"
        "    iputrain trian cases/tiny.ipu cases/tiny.toml\n"
        "             ^~~~~\n"
        "hint: did you mean `train`? (the commands: `train`, `export`, `inspect`, `eval`, `predict`, `bench-data`, "
        "`check`, `plan`, `repl`, `config`, `tune`, `verify`)\n");
  const Run nested = stderr_of("config shwo cases/tiny.toml");
  CHECK(nested.status == 2);
  CHECK(nested.out ==
        "command line:1:17: error: `shwo` is not a command of `iputrain config`\n"
        "    iputrain config shwo cases/tiny.toml\n"
        "                    ^~~~\n"
        "hint: did you mean `show`? (the commands: `show`, `explain`, `keys`, `docs`)\n");
  // Nothing like a command: the list alone.
  const Run far = stderr_of("xyzzy " + kFiles);
  CHECK(far.status == 2);
  CHECK(far.out.find("hint: the commands: `train`, `export`") != std::string::npos);
  const Run none = stderr_of("");
  CHECK(none.status == 2);
  CHECK(none.out ==
        "command line:1:10: error: `iputrain` needs a command\n"
        "    iputrain\n"
        "            ^\n"
        "hint: the commands: `train`, `export`, `inspect`, `eval`, `predict`, `bench-data`, `check`, `plan`, `repl`, "
        "`config`, `tune`, `verify` "
        "(add --help to one for its arguments)\n");
}

TEST_CASE("a mistyped option names the nearest option of its command") {
  const Run r = stderr_of("train " + kFiles + " --sav x");
  CHECK(r.status == 2);
  CHECK(r.out ==
        "command line:1:47: error: `train` has no option `--sav`\n"
        "    iputrain train cases/tiny.ipu cases/tiny.toml --sav x\n"
        "                                                  ^~~~~\n"
        "hint: did you mean `--save`?\n");
  // Another command's option says whose it is.
  const Run other = stderr_of("eval " + kFiles + " --save w.safetensors");
  CHECK(other.status == 2);
  CHECK(other.out ==
        "command line:1:46: error: `eval` has no option `--save`\n"
        "    iputrain eval cases/tiny.ipu cases/tiny.toml --save w.safetensors\n"
        "                                                 ^~~~~~\n"
        "hint: `--save` is an option of `train`; the options of `eval`: --set, --weights, --split\n");
  // Before the files, with `=`, and under `config`.
  const Run early = stderr_of("plan --gant g.svg " + kFiles);
  CHECK(early.status == 2);
  CHECK(early.out.find("error: `plan` has no option `--gant`") != std::string::npos);
  CHECK(early.out.find("hint: did you mean `--gantt`?") != std::string::npos);
  const Run version = stderr_of("--verison");
  CHECK(version.status == 2);
  CHECK(version.out.find("hint: did you mean `--version`?") != std::string::npos);
  const Run letter = stderr_of("train -z " + kFiles);
  CHECK(letter.status == 2);
  CHECK(letter.out.find("hint: the options of `train`: --set, --init-from, --save, --quiet") != std::string::npos);
  // Dashes alone are an unknown option too, never a crash.
  for (const char* dashes : {"---", "--=3", "-"}) {
    const Run r = stderr_of("train " + kFiles + " " + dashes);
    CHECK(r.status == 2);
  }
  const Run show = stderr_of("config show cases/tiny.toml --sett=training.steps=3");
  CHECK(show.status == 2);
  CHECK(show.out.find("error: `config show` has no option `--sett`") != std::string::npos);
  CHECK(show.out.find("hint: did you mean `--set`?") != std::string::npos);
}

TEST_CASE("a config key tried as an option gets the --set it needs") {
  const Run r = stderr_of("train " + kFiles + " --steps 10");
  CHECK(r.status == 2);
  CHECK(r.out ==
        "command line:1:47: error: `train` has no option `--steps`: config keys are set with --set\n"
        "    iputrain train cases/tiny.ipu cases/tiny.toml --steps 10\n"
        "                                                  ^~~~~~~\n"
        "hint: write `--set training.steps=10`\n");
  const auto hint = [](const std::string& args) {
    const Run run = stderr_of(args);
    CHECK(run.status == 2);
    const size_t at = run.out.find("hint: ");
    return at == std::string::npos ? run.out : run.out.substr(at, run.out.find('\n', at) - at);
  };
  CHECK(hint("train " + kFiles + " --steps=10") == "hint: write `--set training.steps=10`");
  CHECK(hint("train " + kFiles + " --lr 0.1") == "hint: write `--set optimizer.learning_rate=0.1`");
  CHECK(hint("train " + kFiles + " --learning-rate 0.1") == "hint: write `--set optimizer.learning_rate=0.1`");
  CHECK(hint("train " + kFiles + " --batch-size 64") == "hint: write `--set data.batch_size=64`");
  CHECK(hint("eval " + kFiles + " --epochs 2") == "hint: write `--set training.epochs=2`");
  CHECK(hint("train " + kFiles + " --seed 7") == "hint: write one of `--set data.seed=7`, `--set training.seed=7`");
  CHECK(hint("train --step 10 " + kFiles) == "hint: write `--set training.steps=10`");
  // No value given: a placeholder, not the next option.
  CHECK(hint("train " + kFiles + " --steps --quiet") == "hint: write `--set training.steps=VALUE`");
}

TEST_CASE("every config key whose last part names it alone, tried as an option, gets its --set") {
  const Run keys = cli_test::iputrain("config keys", "2>/dev/null");
  REQUIRE(keys.status == 0);
  std::istringstream in(keys.out);
  std::map<std::string, std::vector<std::string>> by_leaf;
  for (std::string key; std::getline(in, key);) {
    by_leaf[key.substr(key.rfind('.') + 1)].push_back(key);
  }
  REQUIRE(by_leaf.size() > 100);
  const Run train_help = cli_test::iputrain("train --help");
  // The [tune] keys mirror `tune`'s flags: for those, the hint names the command that has the option.
  const Run tune_help = cli_test::iputrain("tune --help");
  int tried = 0;
  for (const auto& [leaf, paths] : by_leaf) {
    std::string flag = leaf;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (paths.size() > 1 || train_help.out.find("--" + flag + " ") != std::string::npos ||
        tune_help.out.find("--" + flag + " ") != std::string::npos) {
      continue;  // several keys share it (tested above), or `train` or `tune` has an option of that name
    }
    CAPTURE(flag);
    const Run r = stderr_of("train " + kFiles + " --" + flag + " 3");
    CHECK(r.status == 2);
    CHECK(r.out.find("hint: write `--set " + paths.front() + "=3`") != std::string::npos);
    ++tried;
  }
  CHECK(tried > 100);
}

TEST_CASE("swapped MODEL and CONFIG are named before either is read") {
  const Run r = stderr_of("train cases/tiny.toml cases/tiny.ipu");
  CHECK(r.status == 2);
  CHECK(r.out ==
        "command line:1:16: error: MODEL and CONFIG are swapped: `cases/tiny.toml` is a config and "
        "`cases/tiny.ipu` a model\n"
        "    iputrain train cases/tiny.toml cases/tiny.ipu\n"
        "                   ^~~~~~~~~~~~~~~\n"
        "hint: the model comes first: `iputrain train cases/tiny.ipu cases/tiny.toml`\n");
  const Run twice = stderr_of("check cases/tiny.ipu cases/tiny.ipu");
  CHECK(twice.status == 2);
  CHECK(twice.out ==
        "command line:1:16: error: `cases/tiny.ipu` is a model file, given where the config goes\n"
        "    iputrain check cases/tiny.ipu cases/tiny.ipu\n"
        "                   ^~~~~~~~~~~~~~\n"
        "hint: `iputrain check` takes the model file (*.ipu) first, then the config (TOML, *.toml; "
        "docs/config.md)\n");
  const Run configs = stderr_of("plan cases/tiny.toml cases/tiny.toml");
  CHECK(configs.status == 2);
  CHECK(configs.out ==
        "command line:1:15: error: `cases/tiny.toml` is a config (TOML), given where the model goes\n"
        "    iputrain plan cases/tiny.toml cases/tiny.toml\n"
        "                  ^~~~~~~~~~~~~~~\n"
        "hint: `iputrain plan` takes the model file (*.ipu) first, then the config\n");
  const Run show = stderr_of("config show cases/tiny.ipu");
  CHECK(show.status == 2);
  CHECK(show.out.find("error: `cases/tiny.ipu` is a model file, given where the config goes") != std::string::npos);
}

TEST_CASE("a model file is told from a config by its content, whatever its name") {
  const auto dir = iputrain_tests::scratch_dir("usage_test");
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file("cases/tiny.ipu", dir / "model.txt", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file("cases/tiny.toml", dir / "run.cfg", std::filesystem::copy_options::overwrite_existing);
  const std::string model = (dir / "model.txt").string();
  const std::string config = (dir / "run.cfg").string();
  const Run swapped = stderr_of("check " + config + " " + model);
  CHECK(swapped.status == 2);
  CHECK(swapped.out.find("error: MODEL and CONFIG are swapped") != std::string::npos);
  // The right order is read as usual, extensions or not.
  CHECK(cli_test::iputrain("check " + model + " " + config).status == 0);
  // A file neither language starts like is left to the readers, which say what is wrong.
  std::ofstream(dir / "junk.toml") << "not a config\n";
  const Run junk = stderr_of("check cases/tiny.ipu " + (dir / "junk.toml").string());
  CHECK(junk.status == 2);
  CHECK(junk.out.find("swapped") == std::string::npos);
  CHECK(junk.out.find("junk.toml:1:") != std::string::npos);
  // A model file that starts like TOML is the model parser's to report, not called a config.
  std::ofstream(dir / "odd.ipu") << "x = 3\n";
  const Run odd = stderr_of("check " + (dir / "odd.ipu").string() + " cases/tiny.toml");
  CHECK(odd.status == 2);
  CHECK(odd.out.find("is a config") == std::string::npos);
  CHECK(odd.out.find("odd.ipu:1:") != std::string::npos);
}

TEST_CASE("an error that says to launch with mpirun names --allow-run-as-root to root") {
  const Run r = stderr_of("check " + kFiles + " --set ipu.experimental.multi_replica_distribution.process_count=2");
  CHECK(r.status == 2);
  CHECK(r.out.find("mpirun -n") != std::string::npos);
  const std::string note =
      "note: this process runs as root, and Open MPI's mpirun refuses root: add --allow-run-as-root (`mpirun "
      "--allow-run-as-root -n N iputrain ...`) or set OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "(docs/distributed.md#troubleshooting)\n";
  const bool ends_with_note =
      r.out.size() > note.size() && r.out.compare(r.out.size() - note.size(), note.size(), note) == 0;
  // CI runs as root; elsewhere the note must stay away.
  CHECK(ends_with_note == (geteuid() == 0));
  // An error that has nothing to do with mpirun has no such note.
  const Run other = stderr_of("check " + kFiles + " --set training.stepz=3");
  CHECK(other.status == 2);
  CHECK(other.out.find("allow-run-as-root") == std::string::npos);
}

TEST_CASE("--help and --version still exit 0 and a bad value keeps CLI11's message") {
  CHECK(cli_test::iputrain("--help", "2>&1 >/dev/null").status == 0);
  CHECK(cli_test::iputrain("train --help", "2>&1 >/dev/null").status == 0);
  CHECK(cli_test::iputrain("--version").status == 0);
  const Run split = stderr_of("eval " + kFiles + " --split tset");
  CHECK(split.status == 2);
  CHECK(split.out.find("--split: tset not in {test,train,validation}") != std::string::npos);
}

TEST_CASE("a file that does not exist is located on the command line, with the nearest name") {
  // Issue 44, item 10: CLI11's raw "model: File does not exist: …" before.
  const Run typo = stderr_of("check cases/tiny.ipu cases/tiny.tml");
  CHECK(typo.status == 2);
  CHECK(typo.out ==
        "command line:1:31: error: config file `cases/tiny.tml` does not exist\n"
        "    iputrain check cases/tiny.ipu cases/tiny.tml\n"
        "                                  ^~~~~~~~~~~~~~\n"
        "hint: did you mean `cases/tiny.toml`?\n");
  const Run folder = stderr_of("train no_such_folder/m.ipu cases/tiny.toml");
  CHECK(folder.status == 2);
  CHECK(folder.out.find("error: model file `no_such_folder/m.ipu` does not exist") != std::string::npos);
  CHECK(folder.out.find("hint: the folder `no_such_folder` does not exist either; a path on the command line is "
                        "relative to the current folder, ") != std::string::npos);
  const Run weights = stderr_of("eval " + kFiles + " --weights=nothing_like_it.safetensors");
  CHECK(weights.status == 2);
  CHECK(weights.out.find("error: --weights path `nothing_like_it.safetensors` does not exist") != std::string::npos);
  CHECK(weights.out.find("^~~~") != std::string::npos);
}

TEST_CASE("predict --output given a file name points to -o") {
  // Issue 44, item 10: `--output preds.csv` was taken as a value name of the model.
  const Run r = stderr_of("predict " + kFiles + " --output preds.csv");
  CHECK(r.status == 2);
  CHECK(r.out ==
        "command line:1:58: error: `--output` names a value of the model to write, not a file: `preds.csv`\n"
        "    iputrain predict cases/tiny.ipu cases/tiny.toml --output preds.csv\n"
        "                                                             ^~~~~~~~~\n"
        "hint: write the file with `-o preds.csv` (and pick the values with --output NAME)\n");
  CHECK(!std::filesystem::exists("preds.csv"));
  // Each extension of a file predict writes or reads, JSON Lines too.
  for (const std::string name : {"preds.npy", "preds.npz", "preds.json", "preds.jsonl", "preds.txt"}) {
    CAPTURE(name);
    const Run file = stderr_of("predict " + kFiles + " --output " + name);
    CHECK(file.status == 2);
    CHECK(file.out.find("error: `--output` names a value of the model to write, not a file: `" + name + "`") !=
          std::string::npos);
  }
}
