"""Several instances on one machine (docs/distributed.md): samples/s of one process holding two
replicas against two processes (mpirun -n 2) holding one each, on the same model and config, and
the all-reduce's bandwidth per bucket size (allreduce_bench). Prints figures; fails only when a run
fails or the two runs' weights differ (they must be bitwise equal)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MODEL = """import nn

model mlp(batch: int = 32, hidden: int = 512) {
  input image: f32[batch, 28, 28]
  input label: i32[batch]
  h = nn.dense(flatten(image), hidden, activation = relu)
  h2 = nn.dense(h, hidden, activation = relu)
  logits = nn.dense(h2, 10)
  loss = mean(softmax_cross_entropy(logits, label))
  minimize loss
  output loss
}
"""

CONFIG = """[ipu]
auto_select_ipus = 2
[pipeline]
gradient_accumulation_count = 4
[optimizer]
type = "adam"
learning_rate = 0.001
[data]
train = "synthetic:samples=8192,classes=10"
batch_size = 32
[training]
steps = 40
steps_per_execution = 4
"""

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def run(cmd):
    env = dict(os.environ, **MPI_ENV)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        sys.exit(f"distributed.py: {' '.join(cmd)} failed with status {r.returncode}")
    return r.stdout


def samples_per_second(out):
    m = re.search(r"training at ([0-9.]+) samples/s", out)
    if not m:
        sys.exit("distributed.py: no samples/s in the log:\n" + out)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iputrain", required=True)
    ap.add_argument("--allreduce", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    args = ap.parse_args()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"machine: {os.cpu_count()} cores, {cpu}")
    with tempfile.TemporaryDirectory() as d:
        model, config = os.path.join(d, "m.ipu"), os.path.join(d, "c.toml")
        open(model, "w").write(MODEL)
        open(config, "w").write(CONFIG)
        train = [args.iputrain, "train", model, config, "-q", "--no-eval"]
        one = samples_per_second(run(train + ["--save", os.path.join(d, "one.safetensors")]))
        # Each instance on one core, as a user sharing a machine between processes would set it.
        two = samples_per_second(run([args.mpiexec, "-n", "2"] + train +
                                     ["--save", os.path.join(d, "two.safetensors"), "--set", "engine.threads=1"]))
        same = open(os.path.join(d, "one.safetensors"), "rb").read() == open(os.path.join(d, "two.safetensors"), "rb").read()
        print(f"1 process x 2 replicas:  {one:10.0f} samples/s")
        print(f"2 processes x 1 replica: {two:10.0f} samples/s  ({two / one:.2f}x the one process)")
        print(f"weights bitwise equal: {same}")
        if not same:
            sys.exit("distributed.py: the two runs' weights differ")
    print(run([args.mpiexec, "-n", "2", args.allreduce]), end="")


if __name__ == "__main__":
    main()
