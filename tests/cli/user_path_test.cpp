// Issue 33, "checkpoints that behave" and "one path rule" (golden text): a new run refuses a
// checkpoint directory another run used unless --overwrite; --resume refuses a config whose
// run-defining keys changed and names them; --no-checkpoint and checkpoint.every = 0 write
// nothing; `check` opens every data source and fails located on a bad one; a path in a config
// file resolves against its folder, a path on the command line against the current directory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::iputrain;
using cli_test::names_in;
using cli_test::Run;
namespace fs = std::filesystem;

const std::string kCase = "cases/checkpoint.ipu cases/checkpoint.toml ";

// A folder of this process's scratch area (the messages below name it).
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("user_path_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

//! What the command printed to standard error alone (stdout dropped).
Run stderr_of(const std::string& args, const std::string& env = "") { return iputrain(args, "2>&1 >/dev/null", env); }

}  // namespace

TEST_CASE("a new run refuses a used checkpoint directory unless --overwrite") {
  const fs::path dir = fresh_dir("used");
  const std::string set_dir = "--set checkpoint.dir=" + dir.string() + " ";
  REQUIRE(iputrain("train " + kCase + "-q " + set_dir + "--set checkpoint.every=5").status == 0);
  CHECK(names_in(dir) == std::vector<std::string>{"step-00000005.safetensors", "step-00000010.safetensors",
                                                  "step-00000012.safetensors"});
  const Run again = stderr_of("train " + kCase + "-q " + set_dir + "--set training.steps=4");
  CHECK(again.status == 2);
  const std::string set_text = "checkpoint.dir=" + dir.string();
  CHECK(again.out == "--set:1:1: error: checkpoint directory `" + dir.string() +
                         "` holds the checkpoints of another run (the newest at step 12); a new run does not mix its "
                         "checkpoints with them\n"
                         "    " +
                         set_text + "\n    ^" + std::string(set_text.size() - 1, '~') +
                         "\n"
                         "hint: continue that run with `--resume " +
                         dir.string() +
                         "`, start afresh there with --overwrite (deletes its checkpoints), or set `checkpoint.dir` "
                         "to a new directory\n");
  CHECK(names_in(dir).size() == 3);  // nothing touched

  // --overwrite: the old run's files go, the new run's alone remain.
  std::ofstream(dir / "notes.txt") << "mine";
  REQUIRE(iputrain("train " + kCase + "-q " + set_dir + "--set training.steps=4 --overwrite").status == 0);
  CHECK(names_in(dir) == std::vector<std::string>{"notes.txt", "step-00000004.safetensors"});
}

TEST_CASE("--resume refuses a changed run-defining key and names every one") {
  const fs::path dir = fresh_dir("resume");
  const std::string set_dir = "--set checkpoint.dir=" + dir.string() + " ";
  REQUIRE(iputrain("train " + kCase + "-q " + set_dir + "--set training.steps=6").status == 0);
  const Run changed = stderr_of("train " + kCase + "-q --resume " + dir.string() +
                                " --set optimizer.learning_rate=0.02 --set optimizer.beta1=0.8");
  CHECK(changed.status == 2);
  CHECK(
      changed.out ==
      "--set:2:1: error: cannot resume from `" + (dir / "step-00000006.safetensors").string() +
          "`: it was trained under another config (2 keys changed):\n"
          "  `optimizer.beta1` was 0.9, is 0.8\n"
          "  `optimizer.learning_rate` was 0.01, is 0.02\n"
          "    optimizer.beta1=0.8\n"
          "    ^~~~~~~~~~~~~~~~~~~\n"
          "hint: resume with the config that wrote it; only the run's length (training.steps, training.epochs), its "
          "plan (ipu, pipeline, the micro-batch) and bookkeeping keys may change. To start a new run from its weights, "
          "`iputrain export` them and train with --init-from\n");
  // The run's length and its plan may change: it continues, and writes on into its own directory.
  const Run longer = iputrain("train " + kCase + "-q " + set_dir + "--resume " + dir.string() +
                              " --set training.steps=9 --set pipeline.gradient_accumulation_count=2"
                              " --set data.batch_size=8 --set checkpoint.every=3");
  CHECK_MESSAGE(longer.status == 0, longer.out);
  CHECK(longer.out.find("resuming from " + (dir / "step-00000006.safetensors").string() +
                        " at step 6: 3 steps to go") != std::string::npos);
  CHECK(names_in(dir).back() == "step-00000009.safetensors");
}

TEST_CASE("--no-checkpoint, checkpoint.every = 0 and an empty checkpoint.dir write nothing") {
  const fs::path dir = fresh_dir("off");
  const std::string set_dir = "--set checkpoint.dir=" + dir.string() + " --set checkpoint.every=5 ";
  const Run flag = iputrain("train " + kCase + "-q " + set_dir + "--no-checkpoint");
  CHECK_MESSAGE(flag.status == 0, flag.out);
  const Run zero = iputrain("train " + kCase + "-q --set checkpoint.dir=" + dir.string() + " --set checkpoint.every=0");
  CHECK_MESSAGE(zero.status == 0, zero.out);
  CHECK(names_in(dir).empty());
  // Without a directory, `every = 0` is no error; nor is emptying a directory the file sets.
  CHECK(iputrain("train " + kCase + "-q --set checkpoint.every=0").status == 0);
  std::ofstream(dir / "c.toml") << "[data]\ntrain = \"synthetic:samples=256,classes=10\"\n"
                                   "[training]\nsteps = 2\n[checkpoint]\ndir = \"runs\"\nevery = 1\n";
  const Run empty = iputrain("train cases/checkpoint.ipu " + (dir / "c.toml").string() + " -q --set checkpoint.dir=");
  CHECK_MESSAGE(empty.status == 0, empty.out);
  CHECK(!fs::exists(dir / "runs"));
}

TEST_CASE("check opens every data source: its fields against the inputs, and a bad one located") {
  const Run ok = iputrain("check cases/tiny.ipu cases/tiny.toml");
  CHECK(ok.status == 0);
  CHECK(ok.out.find("data.train: synthetic:samples=256,classes=10, 256 samples\n"
                    "  x                                f32[4, 4]  -> input x\n"
                    "  label                            i32[]  -> input label\n"
                    "data.test: synthetic:samples=64,classes=10, 64 samples\n") != std::string::npos);
  const Run kind = stderr_of("check cases/tiny.ipu cases/tiny.toml --set data.train=idxx:fashion/train");
  CHECK(kind.status == 1);
  CHECK(kind.out ==
        "--set:1:1: error: unknown kind of data source \"idxx\" in \"idxx:fashion/train\"\n"
        "    data.train=idxx:fashion/train\n"
        "    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: did you mean \"idx:fashion/train\"? data sources are \"idx:PREFIX\", \"npy:DIR\", \"npz:FILE\", "
        "\"csv:FILE\", \"jsonl:FILE\", \"safetensors:FILE\", \"images:DIR\", \"text:FILE\" or "
        "\"synthetic:samples=N,classes=C\" (docs/data.md)\n");
  const Run missing = stderr_of("check cases/tiny.ipu cases/missing_data.toml");
  CHECK(missing.status == 1);
  CHECK(missing.out ==
        "cases/missing_data.toml:2:1: error: cannot find IDX file `cases/no/such/dir/train-images-idx3-ubyte` (or "
        "`cases/no/such/dir/train-images-idx3-ubyte.gz`)\n"
        "    train = \"idx:no/such/dir/train\"\n"
        "    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: \"idx:PREFIX\" reads PREFIX-images-idx3-ubyte[.gz] and PREFIX-labels-idx1-ubyte[.gz] (MNIST "
        "layout); a relative path in a config file is relative to its folder, `cases`\n");
}

TEST_CASE("a path in a config file resolves against its folder, one on the command line against the current one") {
  const fs::path root = fresh_dir("paths");
  fs::create_directories(root / "conf");
  std::ofstream(root / "conf" / "c.toml") << "[data]\ntrain = \"csv:d.csv\"\n[training]\nsteps = 1\n";
  std::ofstream(root / "conf" / "d.csv") << "a.0,a.1,label\n1,2,0\n3,4,1\n";
  std::ofstream(root / "m.ipu") << "import nn\nmodel m(batch: int = 1) {\n  input a: f32[batch, 2]\n"
                                   "  input label: i32[batch]\n  stage s {\n    logits = nn.dense(a, 2)\n"
                                   "    loss = mean(softmax_cross_entropy(logits, label))\n  }\n"
                                   "  minimize loss\n  output loss\n}\n";
  const std::string in_root = "cd " + root.string() + " &&";
  const Run file = iputrain("check m.ipu conf/c.toml", "2>&1", in_root);
  CHECK_MESSAGE(file.out.find("data.train: csv:conf/d.csv, 2 samples\n") != std::string::npos, file.out);
  const Run typed = iputrain("check m.ipu conf/c.toml --set data.train=csv:conf/d.csv", "2>&1", in_root);
  CHECK_MESSAGE(typed.out.find("data.train: csv:conf/d.csv, 2 samples\n") != std::string::npos, typed.out);
  const Run wrong = stderr_of("check m.ipu conf/c.toml --set data.train=csv:d.csv", in_root);
  CHECK(wrong.status == 1);
  CHECK(wrong.out ==
        "--set:1:1: error: cannot open `d.csv`\n"
        "    data.train=csv:d.csv\n"
        "    ^~~~~~~~~~~~~~~~~~~~\n"
        "hint: check the path and permissions; a relative path given on the command line is relative to the "
        "current directory\n");
  // A config file in the current directory: its folder is the current one, and the hint says it
  // was the file's path, not one typed on the command line.
  std::ofstream(root / "here.toml") << "[data]\ntrain = \"csv:gone.csv\"\n[training]\nsteps = 1\n";
  const Run here = stderr_of("check m.ipu here.toml", in_root);
  CHECK(here.status == 1);
  CHECK(here.out ==
        "here.toml:2:1: error: cannot open `gone.csv`\n"
        "    train = \"csv:gone.csv\"\n"
        "    ^~~~~~~~~~~~~~~~~~~~~~\n"
        "hint: check the path and permissions; a relative path in a config file is relative to its folder, `.`\n");
  // checkpoint.dir from --set: in the current directory, not next to the config.
  const Run run = iputrain("train m.ipu conf/c.toml -q --set checkpoint.dir=runs/a", "2>&1", in_root);
  CHECK_MESSAGE(run.status == 0, run.out);
  CHECK(fs::exists(root / "runs" / "a" / "step-00000001.safetensors"));
  CHECK(!fs::exists(root / "conf" / "runs"));
}
