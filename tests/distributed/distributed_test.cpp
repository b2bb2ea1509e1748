// `mpirun -n P iputrain train …` against one process: the same weights, bit for bit, whatever the
// number of instances; resume across instance counts; an instance that dies or hangs ends the run
// with an error naming it; a launch that does not fit the plan is refused.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"

namespace fs = std::filesystem;
using cli_test::bytes_of;

namespace {

// Two stages on two IPUs, four replicas: instance k of P holds replicas 4k/P .. 4(k+1)/P - 1.
const char* kModel = R"(import nn

model mlp(batch: int = 4, hidden: int = 24) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]

  stage features {
    h = nn.dense(flatten(image), hidden, activation = relu)
  }
  stage classifier {
    logits = nn.dense(h, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }

  minimize loss
  output loss
}
)";

const char* kConfig = R"([ipu]
auto_select_ipus = 8
[pipeline]
stages = ["features", "classifier"]
device_mapping = [0, 1]
gradient_accumulation_count = 4
[optimizer]
type = "adam"
learning_rate = 0.01
loss_scaling_mode = "dynamic"
[data]
train = "synthetic:samples=1024,classes=10"
batch_size = 4
[training]
steps = 6
steps_per_execution = 2
seed = 11
)";

// Open MPI as root in a container, more processes than cores, shared memory without ptrace.
const char* kMpiEnv =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none "
    "OMPI_MCA_rmaps_base_oversubscribe=1";

struct Files {
  fs::path dir;
  Files() : dir(fs::temp_directory_path() / ("iputrain_mpi_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "m.ipu") << kModel;
    std::ofstream(dir / "c.toml") << kConfig;
  }
  ~Files() { fs::remove_all(dir); }
  std::string model() const { return (dir / "m.ipu").string(); }
  //! The config copied into folder `run`, with `checkpoint.dir = "ck"`, which a config file
  //! resolves against its own folder: every run's config, hence its checkpoints' config hash, is the
  //! same, and its checkpoints land in run/ck.
  std::string config_in(const std::string& run) const {
    fs::create_directories(dir / run);
    fs::copy_file(dir / "c.toml", dir / run / "c.toml", fs::copy_options::overwrite_existing);
    std::ofstream(dir / run / "c.toml", std::ios::app) << "[checkpoint]\ndir = \"ck\"\n";
    return (dir / run / "c.toml").string();
  }
  std::string config() const { return (dir / "c.toml").string(); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

cli_test::Run shell(const std::string& cmd) {
  cli_test::Run r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) {
    r.out.append(buf, n);
  }
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

// `iputrain ARGS` in `instances` processes under mpirun (0: one process, no mpirun).
cli_test::Run run(int instances, const std::string& args, const std::string& env = "") {
  if (instances == 0) {
    return cli_test::iputrain(args, "2>&1", env);
  }
  return shell(std::string(kMpiEnv) + " " + env + " " + MPIEXEC + " -n " + std::to_string(instances) + " " +
               IPUTRAIN_BIN + " " + args);
}

std::string train_args(const Files& f, const std::string& extra) {
  return "train " + f.model() + " " + f.config() + " -q " + extra;
}

// Training with the config of folder `run`, checkpoints in run/ck.
std::string train_in(const Files& f, const std::string& run, const std::string& extra) {
  return "train " + f.model() + " " + f.config_in(run) + " -q " + extra;
}

// This test's instances (their model is in f's folder) still running, after waiting up to
// `seconds` for them to end (a hang guard: the wait ends as soon as none is left). Other tests'
// processes do not count; the bracket keeps the pattern from matching the shell that runs pgrep.
std::string still_running(const Files& f, double seconds) {
  const std::string dir = f.dir.string();
  const std::string pattern = "[" + dir.substr(0, 1) + "]" + dir.substr(1) + "/m.ipu";
  std::string left;
  for (int i = 0; i < static_cast<int>(seconds * 10); ++i) {
    left = shell("pgrep -a -f '" + pattern + "' || true").out;
    if (left.empty()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return left;
}

// The end of a long log (a failed check shows this much).
std::string tail(const std::string& out) { return out.size() > 3000 ? out.substr(out.size() - 3000) : out; }

bool has(const std::string& out, const std::string& what) { return out.find(what) != std::string::npos; }

// The summary's line with the last log window's values ("mean of steps 4-6:  loss …").
std::string final_values(const std::string& out) {
  const size_t line = out.find("\nmean of step");
  const size_t at = line == std::string::npos ? line : line + 1;
  return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
}

}  // namespace

TEST_CASE("two and four instances train the same weights as one process, bit for bit") {
  Files f;
  const auto one = run(0, train_in(f, "one", "--save " + f.path("one.safetensors")));
  REQUIRE_MESSAGE(one.status == 0, one.out);
  for (int n : {2, 4}) {
    CAPTURE(n);
    const std::string name = "n" + std::to_string(n);
    const auto many = run(n, train_in(f, name, "--save " + f.path(name + ".safetensors")));
    REQUIRE_MESSAGE(many.status == 0, many.out);
    CHECK(bytes_of(f.path(name + ".safetensors")) == bytes_of(f.path("one.safetensors")));
    // The checkpoint holds the optimizer state and the loss scale too, written once.
    CHECK(cli_test::names_in(f.path(name + "/ck")) == std::vector<std::string>{"step-00000006.safetensors"});
    CHECK(bytes_of(f.path(name + "/ck/step-00000006.safetensors")) ==
          bytes_of(f.path("one/ck/step-00000006.safetensors")));
    // The log comes from instance 0, with every replica's losses in the mean.
    CHECK(!final_values(one.out).empty());
    CHECK(final_values(many.out) == final_values(one.out));
  }
}

// The model's own collectives across instances: the first local replica of each IPU trades its
// instance's operands with the others over the IPU's channel, between the gradient reductions.
const char* kCollectiveModel = R"(import nn

model coll(batch: int = 4) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage features {
    h = nn.dense(flatten(image), 16, activation = relu)
    s = cross_replica_mean(h)
    g = mean(all_gather(h, group = 2), axis = [0])
    t = reshape(all_to_all(g, split_axis = 0, concat_axis = 1, group = 4), [batch, 16])
  }
  stage classifier {
    z = nn.batch_norm(reshape(s + t, [batch, 4, 4]))
    logits = nn.dense(flatten(z), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";

TEST_CASE("the model's collectives and distributed batch norm give the same bits on 1, 2 and 4 instances") {
  Files f;
  std::ofstream(f.dir / "coll.ipu") << kCollectiveModel;
  std::ofstream(f.dir / "c.toml", std::ios::app)
      << "[ipu.norms.experimental]\ndistributed_batch_norm_replica_group_size = 2\n";
  const std::string args = "train " + f.path("coll.ipu") + " " + f.config() + " -q --save ";
  const auto one = run(0, args + f.path("one.safetensors"));
  REQUIRE_MESSAGE(one.status == 0, one.out);
  for (int n : {2, 4}) {
    CAPTURE(n);
    const std::string name = "n" + std::to_string(n) + ".safetensors";
    const auto many = run(n, args + f.path(name));
    REQUIRE_MESSAGE(many.status == 0, tail(many.out));
    CHECK(bytes_of(f.path(name)) == bytes_of(f.path("one.safetensors")));
    CHECK(final_values(many.out) == final_values(one.out));
  }
}

TEST_CASE("a run resumes exactly with another number of instances") {
  Files f;
  const std::string every = " --set checkpoint.every=2";
  REQUIRE(run(0, train_in(f, "one", "--save " + f.path("one.safetensors") + every)).status == 0);
  // One process's checkpoint at step 2, finished by two instances.
  const auto two = run(2, train_in(f, "two", "--resume " + f.path("one/ck/step-00000002.safetensors") + " --save " +
                                               f.path("r2.safetensors") + every));
  REQUIRE_MESSAGE(two.status == 0, two.out);
  CHECK(bytes_of(f.path("r2.safetensors")) == bytes_of(f.path("one.safetensors")));
  CHECK(bytes_of(f.path("two/ck/step-00000006.safetensors")) == bytes_of(f.path("one/ck/step-00000006.safetensors")));
  // Four instances' checkpoint at step 4, finished by one process.
  REQUIRE(run(4, train_in(f, "four", every + " --set training.steps=4")).status == 0);
  const auto back = run(0, train_args(f, "--resume " + f.path("four/ck/step-00000004.safetensors") + " --save " +
                                             f.path("r1.safetensors")));
  REQUIRE_MESSAGE(back.status == 0, back.out);
  CHECK(bytes_of(f.path("r1.safetensors")) == bytes_of(f.path("one.safetensors")));
}

// Starts a long two-instance run, waits until instance 1 has trained a little, sends `signal` to
// it (or to mpirun, `to_mpirun`) and reports mpirun's status, its output and whether the run hung:
// still running 60 s after the signal (a hang guard, not a speed verdict; mpirun is then killed).
// `extra`: more arguments of the run.
struct Fault {
  int status = -1;
  std::string out;
  int hung = -1;
};

Fault fault(const Files& f, const std::string& signal, const std::string& env, bool to_mpirun = false,
            const std::string& extra = "") {
  const std::string script = f.path("fault.sh");
  std::ofstream(script)
      << "#!/bin/bash\n"
      << env << " " << MPIEXEC << " -n 2 " << IPUTRAIN_BIN << " "
      << "train " << f.model() << " " << f.config() << " --set training.steps=1000000 " << extra << " > "
      << f.path("fault.out") << " 2>&1 &\n"
      << "launcher=$!\n"
      << "for i in $(seq 1 600); do\n"
      << "  for p in $(pgrep -x iputrain); do\n"
      << "    if tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then\n"
      << "      victim=$p; break 2; fi\n"
      << "  done\n"
      << "  sleep 0.1\n"
      << "done\n"
      << "if [ -z \"$victim\" ]; then echo 'instance 1 never started'; kill $launcher; exit 3; fi\n"
      // Past the start (MPI_Init and the link are mpirun's to time): instance 0 has logged.
      << "for i in $(seq 1 600); do grep -q 'share the replicas' " << f.path("fault.out")
      << " && break; sleep 0.1; done\n"
      << "sleep 1\n"
      << "kill -" << signal << (to_mpirun ? " $launcher" : " $victim") << "\n"
      << "hung=1\n"
      << "for i in $(seq 1 600); do\n"
      << "  kill -0 $launcher 2>/dev/null || { hung=0; break; }; sleep 0.1\n"
      << "done\n"
      << "[ $hung = 1 ] && kill -KILL $launcher $victim\n"
      << "wait $launcher\n"
      << "status=$?\n"
      << "echo \"status $status hung $hung\"\n";
  const auto r = shell("bash " + script);
  Fault out;
  out.out = bytes_of(f.path("fault.out")) + r.out;
  const size_t at = r.out.find("status ");
  if (at != std::string::npos) {
    std::sscanf(r.out.c_str() + at, "status %d hung %d", &out.status, &out.hung);
  }
  return out;
}

// The run of `r` failed, ended after the signal (of a run of a million steps) and left none of its
// processes running.
void check_ended(const Files& f, const Fault& r) {
  CHECK(r.status != 0);
  CHECK(r.hung == 0);
  CHECK(still_running(f, 60).empty());
}

TEST_CASE("an instance that is killed ends the run, named") {
  Files f;
  const Fault r = fault(f, "KILL", kMpiEnv);
  CAPTURE(tail(r.out));
  check_ended(f, r);
  CHECK(has(r.out, "rank 1"));  // mpirun names the instance that died
}

TEST_CASE("Ctrl-C on mpirun stops every instance with a checkpoint that resumes") {
  Files f;
  // mpirun sends SIGCONT, waits odls_base_sigkill_timeout seconds, sends SIGTERM, waits as long
  // again and kills what is left. The instances agree to stop after the execution under way,
  // instance 0 writes the checkpoint and all leave without waiting for MPI_Finalize. Open MPI's
  // default wait, 1 s, is enough on an idle machine; 3 s keeps the test valid on a loaded one.
  const Fault r = fault(f, "INT", std::string(kMpiEnv) + " OMPI_MCA_odls_base_sigkill_timeout=3", true,
                        "--set checkpoint.dir=" + f.path("ck"));
  CAPTURE(tail(r.out));
  check_ended(f, r);
  CHECK(has(r.out, "terminated (SIGTERM): stopping after the execution under way"));
  const std::vector<std::string> written = cli_test::names_in(f.path("ck"));
  REQUIRE(written.size() == 1);
  CHECK(has(r.out, "stopped by SIGTERM at step "));
  // The checkpoint is whole: one process finishes from it.
  const auto back = run(0, train_args(f, "--resume " + f.path("ck/" + written.front()) + " --set training.steps=" +
                                             std::to_string(std::stoi(written.front().substr(5, 8)) + 2)));
  CHECK_MESSAGE(back.status == 0, back.out);
}

TEST_CASE("an instance that hangs ends the run after the instance timeout, named") {
  Files f;
  const Fault r = fault(f, "STOP", std::string(kMpiEnv) + " IPUTRAIN_INSTANCE_TIMEOUT=4");
  CAPTURE(tail(r.out));
  check_ended(f, r);
  CHECK(has(r.out, "instance 0 of 2: error: instance 0 waited 4 s for instance 1"));
}

TEST_CASE("a launch that does not fit the plan is refused, located") {
  Files f;
  // 4 replicas cannot be shared by 3 instances.
  const auto three = run(3, train_args(f, ""));
  CHECK(three.status == 2);
  CHECK(has(three.out, "4 replicas cannot be shared by 3 instances"));
  CHECK(has(three.out, "`process_count`, mpirun's count when unset"));
  CHECK(has(three.out, "mpirun -n N for N among 1, 2, 4"));
  // The config names 2 instances; mpirun started 4.
  const auto wrong = run(4, train_args(f, "--set ipu.experimental.multi_replica_distribution.process_count=2"));
  CHECK(wrong.status == 2);
  CHECK(has(wrong.out, "`process_count` = 2, but mpirun started 4 instances"));
  // The config names 2 instances; this process runs alone.
  const auto alone = run(0, train_args(f, "--set ipu.experimental.multi_replica_distribution.process_count=2"));
  CHECK(alone.status == 2);
  CHECK(has(alone.out, "shares its replicas among 2 instances, but this run has 1"));
  CHECK(has(alone.out, "mpirun -n 2"));
}

TEST_CASE("the plan shows which replicas each instance holds") {
  Files f;
  const std::string set = " --set ipu.experimental.multi_replica_distribution.process_count=2";
  const auto text = cli_test::iputrain("plan " + f.model() + " " + f.config() + set);
  REQUIRE_MESSAGE(text.status == 0, text.out);
  CHECK(has(text.out, "instances: 2 (mpirun -n 2), 2 replicas each: 0 holds replicas 0-1; 1 holds replicas 2-3"));
  const auto json = cli_test::iputrain("plan " + f.model() + " " + f.config() + set + " --format json");
  REQUIRE(json.status == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j.at("instances").dump() == R"([{"instance":0,"replicas":[0,1]},{"instance":1,"replicas":[2,3]}])");
}
