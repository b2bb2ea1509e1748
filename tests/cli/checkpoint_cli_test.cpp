// `train --resume` and `export` end to end, and a training process killed by SIGKILL in the
// middle of a checkpoint write (IPUTRAIN_FAULT_KILL_IN_CHECKPOINT): the previous checkpoint stays
// readable and resuming from it gives the uninterrupted run's weights, byte for byte.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::bytes_of;
using cli_test::iputrain;
using cli_test::names_in;
using cli_test::Run;
namespace fs = std::filesystem;

const std::string kCase = "cases/checkpoint.ipu cases/checkpoint.toml ";

bool has(const Run& r, const std::string& text) {
  if (r.out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << r.out);
  return false;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = iputrain_tests::scratch_dir("checkpoint_cli_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("a run killed during a checkpoint write resumes from the previous checkpoint exactly") {
  const fs::path dir = fresh_dir("killed");
  const std::string ckpt = "--set checkpoint.dir=" + dir.string() + " --set checkpoint.every=5 ";
  const fs::path want = dir.parent_path() / "uninterrupted.safetensors";
  const fs::path got = dir.parent_path() / "resumed.safetensors";
  REQUIRE(iputrain("train " + kCase + "-q --save " + want.string()).status == 0);

  // The second checkpoint write (step 10) dies half way through its temporary file.
  setenv("IPUTRAIN_FAULT_KILL_IN_CHECKPOINT", "2", 1);
  const Run killed = iputrain("train " + kCase + "-q " + ckpt);
  unsetenv("IPUTRAIN_FAULT_KILL_IN_CHECKPOINT");
  CHECK(killed.status == 128 + 9);
  const std::vector<std::string> files = names_in(dir);
  REQUIRE(files.size() == 2);
  CHECK(files[0].rfind(".step-00000010.safetensors.tmp.", 0) == 0);  // the torn temporary file
  CHECK(files[1] == "step-00000005.safetensors");

  const Run exported = iputrain("export " + kCase + "--from " + dir.string() + " -o " +
                                (dir.parent_path() / "at5.safetensors").string());
  CHECK(exported.status == 0);
  CHECK(has(exported, "(step 5)"));

  const Run resumed = iputrain("train " + kCase + "-q " + ckpt + "--resume " + dir.string() + " --save " + got.string());
  CHECK(resumed.status == 0);
  CHECK(has(resumed, "step-00000005.safetensors at step 5: 7 steps to go"));
  CHECK(has(resumed, "trained 7 steps"));
  CHECK(names_in(dir) == std::vector<std::string>{"step-00000005.safetensors", "step-00000010.safetensors",
                                                  "step-00000012.safetensors"});
  CHECK(bytes_of(got) == bytes_of(want));

  // Resuming a finished run has nothing to do.
  const Run again = iputrain("train " + kCase + "-q --resume " + dir.string());
  CHECK(again.status == 0);
  CHECK(has(again, "nothing to do"));
}

TEST_CASE("exported weights, and a checkpoint itself, load with eval --weights and train --init-from") {
  const fs::path dir = fresh_dir("export");
  REQUIRE(iputrain("train " + kCase + "-q --set checkpoint.dir=" + dir.string()).status == 0);
  const std::string w = (dir.parent_path() / "exported.safetensors").string();
  const Run e = iputrain("export " + kCase + "--from " + (dir / "step-00000012.safetensors").string() + " -o " + w);
  CHECK(e.status == 0);
  CHECK(has(e, "(step 12)"));
  const Run ev = iputrain("eval " + kCase + "--weights " + w + " --split train");
  CHECK(ev.status == 0);
  CHECK(has(ev, "train:  loss"));
  CHECK(iputrain("train " + kCase + "-q --no-eval --set training.steps=1 --init-from " + w).status == 0);
  // The checkpoint itself, as a file or as its directory, gives the same weights to eval.
  const Run from_file = iputrain("eval " + kCase + "--weights " + (dir / "step-00000012.safetensors").string() +
                                 " --split train");
  CHECK(from_file.status == 0);
  CHECK(from_file.out == ev.out);
  const Run from_dir = iputrain("eval " + kCase + "--weights " + dir.string() + " --split train");
  CHECK(from_dir.status == 0);
  CHECK(from_dir.out == ev.out);
}

TEST_CASE("bad --resume and --from inputs give a message, a hint and the usual exit status") {
  const fs::path dir = fresh_dir("bad");
  REQUIRE(iputrain("train " + kCase + "-q --set training.steps=2 --set checkpoint.dir=" + dir.string()).status == 0);
  SUBCASE("a path that does not exist") {
    const Run r = iputrain("train " + kCase + "--resume " + (dir / "nope").string());
    CHECK(r.status == 2);
    CHECK(has(r, "the path does not exist"));
    CHECK(has(r, "hint:"));
  }
  SUBCASE("a directory without checkpoints") {
    const fs::path empty = fresh_dir("empty");
    const Run r = iputrain("export " + kCase + "--from " + empty.string() + " -o " + (empty / "w.safetensors").string());
    CHECK(r.status == 1);
    CHECK(has(r, "holds no checkpoint"));
  }
  SUBCASE("another model") {
    const Run r = iputrain("train cases/tiny.ipu cases/tiny.toml --resume " + dir.string());
    CHECK(r.status == 1);
    CHECK(has(r, "step-00000002.safetensors"));
    CHECK(has(r, "hint:"));
    const Run x = iputrain("export " + kCase + "--set model.hidden=8 --from " + dir.string() + " -o " +
                           (dir.parent_path() / "narrow.safetensors").string());
    CHECK(x.status == 1);
    CHECK(has(x, "tensor `features/dense/kernel` is f32[16, 16] but model `ckpt` needs f32[16, 8]"));
  }
  SUBCASE("--resume with --init-from") {
    const Run r = iputrain("train " + kCase + "--resume " + dir.string() + " --init-from cases/tiny.toml");
    CHECK(r.status == 2);
    CHECK(has(r, "--init-from and --resume"));
  }
}

TEST_CASE("a relative checkpoint directory made by the run takes all its checkpoints, and resume continues it") {
  // The README's example (`--set checkpoint.dir=runs/a`) in a folder with no runs/ in it: the run
  // used to stop at its second checkpoint, the directory then taken for another run's.
  const fs::path work = fresh_dir("relative");
  const fs::path cases = fs::current_path() / "cases";
  const std::string model = (cases / "checkpoint.ipu").string() + " " + (cases / "checkpoint.toml").string() + " ";
  const std::string in_work = "cd " + work.string() + " && ";
  const Run whole = iputrain("train " + model + "-q --save whole.safetensors", "2>&1", in_work);
  REQUIRE(whole.status == 0);
  const Run first = iputrain("train " + model +
                                 "-q --set training.steps=6 --set checkpoint.dir=runs/a "
                                 "--set checkpoint.every=3",
                             "2>&1", in_work);
  CHECK(has(first, ""));
  REQUIRE(first.status == 0);
  CHECK(names_in(work / "runs" / "a") ==
        std::vector<std::string>{"step-00000003.safetensors", "step-00000006.safetensors"});
  // Resumed through a trailing slash, it goes on writing there and ends on the whole run's bytes.
  const Run rest = iputrain("train " + model +
                                "-q --set checkpoint.dir=runs/a/ --set checkpoint.every=3 --resume runs/a "
                                "--save resumed.safetensors",
                            "2>&1", in_work);
  CHECK(has(rest, ""));
  REQUIRE(rest.status == 0);
  CHECK(names_in(work / "runs" / "a").size() == 4);
  CHECK(bytes_of(work / "resumed.safetensors") == bytes_of(work / "whole.safetensors"));
}

TEST_CASE("round trips: export of the last checkpoint gives the bytes --save wrote at the same step") {
  // Issue 44: what one command writes, another reads back to the same bytes.
  const fs::path dir = fresh_dir("round_trip");
  const std::string saved = (dir / "saved.safetensors").string();
  REQUIRE(iputrain("train " + kCase + "-q --no-eval --set checkpoint.dir=" + (dir / "ck").string() + " --save " + saved)
              .status == 0);
  const std::string exported = (dir / "exported.safetensors").string();
  REQUIRE(iputrain("export " + kCase + "--from " + (dir / "ck").string() + " -o " + exported).status == 0);
  CHECK(bytes_of(exported) == bytes_of(saved));
}

TEST_CASE(
    "round trips: a weight file exported again keeps its bytes, and another model's is refused as --init-from refuses "
    "it") {
  // Issue 44: save -> read as --init-from reads it -> save gives the same bytes.
  const fs::path dir = fresh_dir("weights_round_trip");
  const std::string saved = (dir / "saved.safetensors").string();
  REQUIRE(iputrain("train " + kCase + "-q --no-eval --no-checkpoint --save " + saved).status == 0);
  const std::string again = (dir / "again.safetensors").string();
  const Run e = iputrain("export " + kCase + "--from " + saved + " -o " + again);
  CHECK(e.status == 0);
  CHECK(has(e, "(a weight file, read as --init-from reads it)"));
  CHECK(bytes_of(again) == bytes_of(saved));
  // The same model with other sizes.
  const std::string smaller = "cases/checkpoint.ipu cases/checkpoint.toml --set model.hidden=8 ";
  const Run other = iputrain("export " + smaller + "--from " + saved + " -o " + (dir / "other.safetensors").string());
  CHECK(other.status == 1);
  CHECK(has(other, "the weights were saved from a model with other sizes"));
  const Run init = iputrain("train " + smaller + "-q --no-eval --init-from " + saved);
  CHECK(init.status == 1);
  CHECK(other.out == init.out);
  CHECK(!fs::exists(dir / "other.safetensors"));
}

TEST_CASE("a run resumed through a symlink to its checkpoint directory ends on the whole run's bytes") {
  const fs::path work = fresh_dir("symlink");
  fs::create_directories(work / "real");
  fs::create_directory_symlink(work / "real", work / "link");
  const std::string whole = (work / "whole.safetensors").string();
  REQUIRE(iputrain("train " + kCase + "-q --no-eval --save " + whole).status == 0);
  const std::string link = (work / "link").string();
  const Run first = iputrain("train " + kCase +
                             "-q --no-eval --set training.steps=6 --set checkpoint.every=3 "
                             "--set checkpoint.dir=" +
                             link);
  REQUIRE_MESSAGE(first.status == 0, first.out);
  // Resumed with the real path as the checkpoint directory and the link to resume from: one run.
  const std::string resumed = (work / "resumed.safetensors").string();
  const Run rest = iputrain("train " + kCase + "-q --no-eval --set checkpoint.every=3 --set checkpoint.dir=" +
                            (work / "real").string() + " --resume " + link + " --save " + resumed);
  REQUIRE_MESSAGE(rest.status == 0, rest.out);
  CHECK(bytes_of(resumed) == bytes_of(whole));
}
