#!/usr/bin/env python3
"""The speed suite of issue 15, in one run: training samples/s of five models and a larger
transformer (with issue 35's targets), and of an LSTM, a GRU, a depthwise-separable CNN and a 1-D
convolution stack (issue 35's new rows: no target, the ratio is printed with "none"), in iputrain
and in PyTorch (Debian's python3-torch on OpenBLAS, at its best of one thread and every core), an
sgemm roofline (the best of OpenBLAS through torch and numpy, and of
Eigen, at 2048^3), each model's achieved GFLOP/s as a share of it, and a 4-IPU pipelined run's wall
time against the 1-IPU run at the same global batch. Prints a table, writes JSON (--json).

Setup: bash bench/setup.sh (installs the peer), then build (bash .ci/setup)."""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT = "/usr/share/common-licenses/GPL-3"


def machine():
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break  # the first CPU's fields
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    vendor = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}.get(fields.get("vendor_id", ""), fields.get("vendor_id", "?"))
    return {"cpu": fields.get("model name", "?"), "vendor": vendor, "family": fields.get("cpu family", "?"),
            "model": fields.get("model", "?"), "cores": os.cpu_count(), "avx512": "avx512f" in fields.get("flags", ""),
            "vector_width": vector_width(fields.get("flags", "").split()), "flags": fields.get("flags", "").split(),
            "kernel": platform.release()}


# OpenBLAS (DYNAMIC_ARCH) picks its kernels from the CPU's family and model; a CPU newer than the
# library falls back to older kernels: Debian's 0.3.21 runs Prescott's SSE3 kernels on an Emerald
# Rapids Xeon (family 6 model 207, about 4.5x slower than its AVX-512 ones). An environment may also
# pin narrower ones: the Zen 5 machines here set OPENBLAS_CORETYPE=Haswell (AVX2: 198-208 against
# 380-391 GFLOP/s on 2 threads; OpenBLAS's own choice there is Cooperlake). Comparing against that
# would flatter iputrain, so when the kernels are narrower than the CPU's vectors the suite re-runs
# itself without such a setting, or with OPENBLAS_CORETYPE naming the widest kernels the library has
# for that width, on any vendor. Vector width of OpenBLAS's x86-64 cores (openblas_get_corename, lower case); any other
# name is taken as 128 bits (SSE).
CORE_WIDTH = {"skylakex": 512, "cooperlake": 512, "sapphirerapids": 512,
              "haswell": 256, "zen": 256, "sandybridge": 256, "bulldozer": 256, "piledriver": 256,
              "steamroller": 256, "excavator": 256}
# The kernels forced per width, and the CPU flags they need.
FORCED_CORE = {512: ("SkylakeX", ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")),
               256: ("Haswell", ("avx2", "fma"))}


def vector_width(flags):
    """The widest vectors OpenBLAS has kernels for among the CPU's `flags`."""
    for width, (_, needs) in sorted(FORCED_CORE.items(), reverse=True):
        if all(f in flags for f in needs):
            return width
    return 128


def core_to_force(core, flags):
    """The OPENBLAS_CORETYPE that gives the CPU's full vector width when `core` falls short, else None."""
    width = vector_width(flags)
    if core is None or width == 128 or CORE_WIDTH.get(core.lower(), 128) >= width:
        return None
    return FORCED_CORE[width][0]


def openblas_core(loaded):
    """The core OpenBLAS chose (openblas_get_corename), or None when it is not loaded."""
    import ctypes
    for path in loaded:
        if "openblas" in os.path.basename(path):
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
    return None


def coretype_action(core, flags, environment, keep):
    """What the suite does about OpenBLAS's kernels: ("keep", None) when they are as wide as the CPU's
    vectors (or nothing wider exists); ("unset", None) when a narrower core came from an
    OPENBLAS_CORETYPE the suite did not set (this machine's environment sets Haswell on an AVX-512
    Zen 5): the suite drops it and lets OpenBLAS choose, unless `keep` (--keep-coretype); ("force",
    CORE) when OpenBLAS's own choice is narrower."""
    forced = core_to_force(core, flags)
    if forced is None or keep:
        return ("keep", None)
    if environment is not None:
        return ("unset", None)
    return ("force", forced)


def fair_openblas_or_reexec(info, keep):
    core = openblas_core(info["peer"]["loaded"])
    peer = info["peer"]
    peer["openblas_core"] = core
    peer["coretype_forced"] = os.environ.get("IPUTRAIN_SUITE_FORCED_CORETYPE") == "1"
    peer["coretype_dropped"] = os.environ.get("IPUTRAIN_SUITE_DROPPED_CORETYPE")
    set_outside = None if peer["coretype_forced"] else os.environ.get("OPENBLAS_CORETYPE")
    peer["coretype_environment"] = set_outside
    action, forced = coretype_action(core, info["machine"]["flags"], set_outside, keep)
    width = f"{CORE_WIDTH.get((core or '').lower(), 128)}-bit"
    if keep and core_to_force(core, info["machine"]["flags"]) is not None:
        print(f"speed_suite.py: --keep-coretype: OpenBLAS runs its {core} kernels ({width}) on a CPU with "
              f"{vector_width(info['machine']['flags'])}-bit vectors; the ratios flatter iputrain", file=sys.stderr)
    if action == "keep":
        return
    if action == "unset":
        os.environ["IPUTRAIN_SUITE_DROPPED_CORETYPE"] = set_outside
        del os.environ["OPENBLAS_CORETYPE"]
        print(f"speed_suite.py: the environment's OPENBLAS_CORETYPE={set_outside} gives {width} kernels on a CPU with "
              f"{vector_width(info['machine']['flags'])}-bit vectors; re-running without it (--keep-coretype keeps it)",
              file=sys.stderr)
    else:
        os.environ["OPENBLAS_CORETYPE"] = forced
        os.environ["IPUTRAIN_SUITE_FORCED_CORETYPE"] = "1"
        print(f"speed_suite.py: OpenBLAS chose its {core} kernels ({width}) on a CPU with "
              f"{vector_width(info['machine']['flags'])}-bit vectors; re-running with OPENBLAS_CORETYPE={forced}",
              file=sys.stderr)
    os.execv(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:])


def torch_blas(torch):
    """The BLAS torch was built with and the library it loaded (from /proc/self/maps)."""
    config = torch.__config__.show()
    built = re.search(r"BLAS_INFO=(\w+)", config)
    loaded = sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.lower() and ".so" in line})
    return {"torch": torch.__version__, "blas_info": built.group(1) if built else "?", "loaded": loaded}


# ---- FLOPs per sample (training = 3x the forward products; attention products counted) ----------

def mlp_flops(sizes):
    return 3 * sum(2 * a * b for a, b in zip(sizes, sizes[1:]))


def lenet_flops():
    fwd = 2 * 28 * 28 * 16 * 25 * 1 + 2 * 10 * 10 * 32 * 25 * 16 + 2 * 800 * 128 + 2 * 128 * 10
    return 3 * fwd


def lm_flops(seq, dim, layers, vocab=96):
    per_token = layers * (2 * 4 * dim * dim + 2 * 8 * dim * dim + 2 * 2 * seq * dim) + 2 * dim * vocab
    return 3 * per_token * seq


def rnn_flops(seq, dim, units, gates, vocab=96):
    per_step = 2 * dim * gates * units + 2 * units * gates * units + 2 * units * vocab
    return 3 * per_step * seq


def separable_cnn_flops():
    fwd = 2 * 14 * 14 * 32 * 9 + 2 * 14 * 14 * 32 * 9 + 2 * 14 * 14 * 32 * 64
    fwd += 2 * 7 * 7 * 64 * 9 + 2 * 7 * 7 * 64 * 128 + 2 * 7 * 7 * 128 * 9 + 2 * 7 * 7 * 128 * 128 + 2 * 128 * 10
    return 3 * fwd


def conv1d_flops(filters=128):
    return 3 * (2 * 28 * 5 * 28 * filters + 2 * 2 * 28 * 5 * filters * filters + 2 * filters * 10)


# ---- iputrain ------------------------------------------------------------------------------------

def iputrain_run(model, config, sets):
    """Steady-state samples/s of one run, as PyTorch's figure is taken after warm-up steps:
    iputrain's own rate after its first execution (the first touch of the arenas, starting the
    pool's threads and filling the infeed are left out)."""
    args = ["train", model, config, "--quiet", "--no-eval"]
    for s in sets:
        args += ["--set", s]
    out = common.run_iputrain(args)
    match = re.search(r"samples/s \(([0-9]+) after the first execution\)", out)
    if not match:
        sys.exit(f"cannot find the steady-state samples/s in iputrain's output:\n{out}")
    return float(match.group(1))


def cross_core_ns():
    """The cores' cache-line round trip now (bench/cross_core_latency.cpp), or None."""
    probe = os.path.join(os.path.dirname(common.iputrain_binary()), "bench", "cross_core_latency")
    if not os.path.exists(probe):
        return None
    out = subprocess.run([probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["round_trip_ns"]


def target_cell(case):
    """The table's target column: the issue's target and whether it was met, or "none" for the rows
    issue 35 added without a target (recurrent, depthwise and 1-D convolution models)."""
    if case["target"] is None:
        return f"{'none':>9}"
    return f"{'>=' + str(case['target']) + 'x':>6} {'ok' if case['met'] else '--'}"


def write_config(directory, text, name="bench.toml"):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- PyTorch peers ------------------------------------------------------------------------------

def torch_throughput(torch, make, batch_fn, batch, steps, lr=0.01):
    model = make()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    batches = [batch_fn() for _ in range(4)]
    for i in range(3):  # warm-up
        x, y = batches[i % 4]
        opt.zero_grad()
        loss_fn(model(x).reshape(-1, model.classes), y.reshape(-1)).backward()
        opt.step()
    start = time.perf_counter()
    for i in range(steps):
        x, y = batches[i % 4]
        opt.zero_grad()
        loss_fn(model(x).reshape(-1, model.classes), y.reshape(-1)).backward()
        opt.step()
    return steps * batch / (time.perf_counter() - start)


def torch_models(torch):
    nn = torch.nn

    class Mlp(nn.Module):
        def __init__(self, sizes):
            super().__init__()
            layers = [nn.Flatten()]
            for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
                layers.append(nn.Linear(a, b))
                if i < len(sizes) - 2:
                    layers.append(nn.ReLU())
            self.net = nn.Sequential(*layers)
            self.classes = sizes[-1]

        def forward(self, x):
            return self.net(x / 255.0)

    class LeNet(nn.Module):
        classes = 10

        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 5),
                                     nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 128), nn.ReLU(),
                                     nn.Linear(128, 10))

        def forward(self, x):
            return self.net(x.reshape(-1, 1, 28, 28) / 255.0)

    class Attention(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.heads = heads

        def forward(self, x):
            b, s, d = x.shape
            h = self.heads
            split = lambda t: t.reshape(b, s, h, d // h).transpose(1, 2)  # noqa: E731
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = (q @ k.transpose(-1, -2)) * (d // h) ** -0.5
            mask = torch.ones(s, s, dtype=torch.bool).tril()
            scores = torch.where(mask, scores, torch.tensor(-1e9))
            o = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
            return self.o(o)

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-6), nn.LayerNorm(d, eps=1e-6)
            self.att = Attention(d, heads)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            x = x + self.att(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class Lm(nn.Module):
        classes = 96

        def __init__(self, seq, d, layers, heads):
            super().__init__()
            self.emb = nn.Embedding(96, d)
            self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
            self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
            self.ln = nn.LayerNorm(d, eps=1e-6)
            self.head = nn.Linear(d, 96)

        def forward(self, t):
            return self.head(self.ln(self.blocks(self.emb(t) + self.pos)))

    class RnnLm(nn.Module):
        classes = 96

        def __init__(self, cell, dim=64, units=256):
            super().__init__()
            self.emb = nn.Embedding(96, dim)
            self.rnn = cell(dim, units, batch_first=True)
            self.head = nn.Linear(units, 96)

        def forward(self, t):
            return self.head(self.rnn(self.emb(t))[0])

    def separable(cin, cout, stride):
        return [nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin), nn.ReLU(), nn.Conv2d(cin, cout, 1),
                nn.ReLU()]

    class SeparableCnn(nn.Module):
        classes = 10

        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(1, 32, 3, stride=2, padding=1), nn.ReLU(), *separable(32, 64, 1),
                                     *separable(64, 128, 2), *separable(128, 128, 1), nn.AdaptiveAvgPool2d(1),
                                     nn.Flatten(), nn.Linear(128, 10))

        def forward(self, x):
            return self.net(x.reshape(-1, 1, 28, 28) / 255.0)

    class Conv1dStack(nn.Module):
        classes = 10

        def __init__(self, filters=128):
            super().__init__()
            self.net = nn.Sequential(nn.Conv1d(28, filters, 5, padding=2), nn.ReLU(),
                                     nn.Conv1d(filters, filters, 5, padding=2), nn.ReLU(),
                                     nn.Conv1d(filters, filters, 5, padding=2), nn.ReLU())
            self.head = nn.Linear(filters, 10)

        def forward(self, x):  # [b, 28 steps, 28 features] -> channels first
            return self.head(self.net((x / 255.0).transpose(1, 2)).mean(-1))

    return Mlp, LeNet, Lm, RnnLm, SeparableCnn, Conv1dStack


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="rounds: each figure is the best of one run per round")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every step count")
    parser.add_argument("--json", default=os.path.join(common.ROOT, "build", "speed_suite.json"))
    parser.add_argument("-k", action="append", default=[], metavar="TEXT",
                        help="only the rows whose name contains TEXT (case-insensitive; repeatable); "
                             "the pipelined-IPU comparison runs only without -k")
    parser.add_argument("--keep-coretype", action="store_true",
                        help="keep an OPENBLAS_CORETYPE set by the environment even when it is narrower than the CPU")
    args = parser.parse_args()
    torch = common.import_torch_or_exit(__file__)
    Mlp, LeNet, Lm, RnnLm, SeparableCnn, Conv1dStack = torch_models(torch)
    cores = os.cpu_count()
    info = {"machine": machine(), "peer": torch_blas(torch), "date": time.strftime("%Y-%m-%d")}
    fair_openblas_or_reexec(info, args.keep_coretype)
    steps = lambda n: max(3, int(n * args.scale))  # noqa: E731

    # sgemm roofline: OpenBLAS through torch (1 thread and every core) and numpy, Eigen in C++.
    roof = {}
    a = torch.rand(2048, 2048)
    b = torch.rand(2048, 2048)
    for t in sorted({1, cores}):
        torch.set_num_threads(t)
        torch.mm(a, b)
        best = 0.0
        for _ in range(5):
            s = time.perf_counter()
            torch.mm(a, b)
            best = max(best, 2 * 2048 ** 3 / (time.perf_counter() - s) / 1e9)
        roof[f"torch_openblas_{t}thread"] = round(best, 1)
    try:
        import numpy as np
        x = np.random.rand(2048, 2048).astype(np.float32)
        best = 0.0
        for _ in range(5):
            s = time.perf_counter()
            x @ x
            best = max(best, 2 * 2048 ** 3 / (time.perf_counter() - s) / 1e9)
        roof["numpy"] = round(best, 1)
    except ImportError:
        pass
    eigen_bin = os.path.join(os.path.dirname(common.iputrain_binary()), "bench", "sgemm_roofline")
    if not os.path.exists(eigen_bin):
        print(f"speed_suite.py: {eigen_bin} is not built: the roofline leaves out the engine's GEMM and Eigen "
              "(build the bench targets: bash .ci/setup)", file=sys.stderr)
    if os.path.exists(eigen_bin):
        e = json.loads(subprocess.run([eigen_bin, "2048"], capture_output=True, text=True, check=True).stdout)
        roof["iputrain_gemm"] = e["iputrain_gemm_gflops"]
        roof["iputrain_gemm_1thread"] = e["iputrain_gemm_1thread_gflops"]
        roof["eigen_1thread"] = e["eigen_1thread_gflops"]
    roofline = max(roof.values())
    info["roofline"] = {"gflops": roofline, "measured": roof}

    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        # Four global batches of synthetic images, as the peer cycles over four batches it made beforehand.
        synth = lambda bs: write_config(tmp, "[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.01\n[data]\n"  # noqa: E731
                                             f"train = \"synthetic:samples={4 * bs},classes=10\"\nshuffle = false\n"
                                             "[training]\nseed = 1\n", f"synthetic{bs}.toml")
        text = os.path.join(tmp, "text.toml")
        with open(text, "w") as f:
            f.write(f"[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.01\n[data]\ntrain = \"text:{TEXT}\"\n"
                    "shuffle = false\n[training]\nseed = 1\n")
        ex = lambda p: os.path.join(common.ROOT, p)  # noqa: E731
        img = lambda bs: (lambda: (torch.rand(bs, 28, 28) * 255, torch.randint(0, 10, (bs,))))  # noqa: E731
        tok = lambda bs, s: (lambda: (torch.randint(0, 96, (bs, s)), torch.randint(0, 96, (bs, s))))  # noqa: E731
        specs = [
            ("MNIST MLP 784-128-10, batch 32", ex("examples/mnist_mlp.ipu"), synth(32), 32, steps(3000), 100,
             [], lambda: Mlp([784, 128, 10]), img(32), mlp_flops([784, 128, 10]), 3.0),
            ("MLP 784-1024-1024-10, batch 256, 1 IPU", ex("bench/models/mlp_wide.ipu"), synth(256), 256, steps(150), 10,
             ["pipeline.auto_stages=1"], lambda: Mlp([784, 1024, 1024, 10]), img(256),
             mlp_flops([784, 1024, 1024, 10]), 1.2),
            ("LeNet (examples/lenet.ipu), batch 32", ex("examples/lenet.ipu"), synth(32), 32, steps(300), 50,
             [], LeNet, img(32), lenet_flops(), 2.0),
            ("tiny_lm (batch 8, seq 64, d 128, 4 layers)", ex("examples/tiny_lm.ipu"), text, 8, steps(60), 10,
             [], lambda: Lm(64, 128, 4, 4), tok(8, 64), lm_flops(64, 128, 4), 1.5),
            ("transformer (batch 16, seq 128, d 256, 4 layers)", ex("bench/models/lm_large.ipu"), text, 16,
             steps(12), 4, [], lambda: Lm(128, 256, 4, 8), tok(16, 128), lm_flops(128, 256, 4), 1.3),
            ("LSTM 256 units (batch 32, seq 64)", ex("bench/models/lstm_lm.ipu"), text, 32, steps(20), 5,
             [], lambda: RnnLm(torch.nn.LSTM), tok(32, 64), rnn_flops(64, 64, 256, 4), None),
            ("GRU 256 units (batch 32, seq 64)", ex("bench/models/lstm_lm.ipu"), text, 32, steps(20), 5,
             ["model.cell=gru"], lambda: RnnLm(torch.nn.GRU), tok(32, 64), rnn_flops(64, 64, 256, 3), None),
            ("depthwise-separable CNN, batch 32", ex("bench/models/separable_cnn.ipu"), synth(32), 32, steps(100), 20,
             [], SeparableCnn, img(32), separable_cnn_flops(), None),
            ("conv1d stack (3 x 128 filters, width 5), batch 32", ex("bench/models/conv1d_stack.ipu"), synth(32), 32,
             steps(200), 20, [], Conv1dStack, img(32), conv1d_flops(), None),
        ]
        if args.k:
            specs = [s for s in specs if any(k.lower() in s[0].lower() for k in args.k)]
            if not specs:
                sys.exit(f"speed_suite.py: no row matches -k {' -k '.join(args.k)}")
        # Rounds: every case of both sides once per round, the best of the rounds kept. The shared
        # machine's state (cross_core_ns) changes every minute or so, so a case's runs are spread
        # over the whole suite instead of one minute of it, and both sides get the same chances.
        mlp = ex("bench/models/mlp_wide.ipu")
        # Cluster overhead: 4 pipelined IPUs against 1 IPU at the same global batch (32 x 8: grouped
        # training with 4 stages needs an accumulation count that is a multiple of 8).
        pipe_sets = [f"training.steps={steps(60)}", "data.batch_size=32", "training.steps_per_execution=10",
                     "pipeline.gradient_accumulation_count=8"]
        ours = [0.0] * len(specs)
        peer = [{t: 0.0 for t in sorted({1, cores})} for _ in specs]
        one = four = 0.0
        probes = [cross_core_ns()]
        for r in range(args.repeats):
            for i, (name, model, config, batch, n, spe, sets, make, batch_fn, flops, target) in enumerate(specs):
                ours[i] = max(ours[i], iputrain_run(model, config, [f"training.steps={n}", f"data.batch_size={batch}",
                                                                    f"training.steps_per_execution={spe}"] + sets))
                for t in peer[i]:
                    torch.set_num_threads(t)
                    peer[i][t] = max(peer[i][t], torch_throughput(torch, make, batch_fn, batch, n))
            if not args.k:
                one = max(one, iputrain_run(mlp, synth(256), pipe_sets + ["pipeline.auto_stages=1"]))
                four = max(four, iputrain_run(mlp, synth(256), pipe_sets + ["ipu.auto_select_ipus=4",
                                                                       "pipeline.device_mapping=[0,1,2,3]"]))
            probes.append(cross_core_ns())
            print(f"  round {r + 1} of {args.repeats} done (cross-core round trip {probes[-1]} ns)", file=sys.stderr)
        for i, (name, model, config, batch, n, spe, sets, make, batch_fn, flops, target) in enumerate(specs):
            best_t = max(peer[i], key=peer[i].get)
            ratio = ours[i] / peer[i][best_t]
            gflops = ours[i] * flops / 1e9
            cases.append({"model": name, "iputrain": round(ours[i], 1),
                          "torch": {str(k): round(v, 1) for k, v in peer[i].items()}, "torch_best_threads": best_t,
                          "ratio": round(ratio, 2), "target": target,
                          "met": None if target is None else ratio >= target,
                          "gflops": round(gflops, 1), "roofline_share": round(gflops / roofline, 3)})
        pipeline = None if args.k else {
            "model": "MLP 784-1024-1024-10, micro-batch 32 x 8 accumulated", "one_ipu": round(one, 1),
            "four_ipus": round(four, 1), "wall_time_ratio": round(one / four, 3), "target": 1.2, "met": one / four <= 1.2}

    known = [p for p in probes if p is not None]
    info["cross_core_round_trip_ns"] = probes
    info["cases"] = cases
    info["pipeline"] = pipeline
    m = info["machine"]
    print(f"machine: {m['vendor']} {m['cpu']} (family {m['family']}, model {m['model']}), {m['cores']} cores, "
          f"AVX-512 {'yes' if m['avx512'] else 'no'}")
    p = info["peer"]
    own = f"{CORE_WIDTH.get((p['openblas_core'] or '').lower(), 128)}-bit kernels on {m['vector_width']}-bit vectors"
    if p["coretype_forced"]:
        forced = (f" (OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')} set by the suite: OpenBLAS's own choice "
                  f"was narrower than the CPU's {m['vector_width']}-bit vectors)")
    elif p["coretype_environment"]:
        forced = f" (OPENBLAS_CORETYPE={p['coretype_environment']} from the environment, kept: {own})"
    else:
        forced = f" (its own choice, {own})"
    if p["coretype_dropped"]:
        forced += f"; the environment's OPENBLAS_CORETYPE={p['coretype_dropped']} was dropped"
    print(f"peer: torch {p['torch']}, BLAS {p['blas_info']}, loaded {', '.join(p['loaded']) or '?'}, "
          f"OpenBLAS core {p['openblas_core'] or '-'}{forced}, threads tried 1 and {cores}")
    if known:
        print(f"cross-core round trip: {min(known):.0f}-{max(known):.0f} ns over the run "
              f"(bench/cross_core_latency; ~55 ns when the VM's two CPUs share a core complex)")
    print("sgemm 2048^3 GFLOP/s: " + ", ".join(f"{k} {v}" for k, v in roof.items()) + f"; roofline {roofline}")
    print()
    print(f"| {'model (training samples/s)':50} | {'iputrain':>9} | {'PyTorch':>9} | {'thr':>3} | {'ratio':>6} | "
          f"{'target':>6} | {'GFLOP/s':>7} | {'roof':>5} |")
    print(f"|{'-' * 52}|{'-' * 11}|{'-' * 11}|{'-' * 5}|{'-' * 8}|{'-' * 8}|{'-' * 9}|{'-' * 7}|")
    for c in cases:
        t = c["torch"][str(c["torch_best_threads"])]
        print(f"| {c['model']:50} | {c['iputrain']:9.0f} | {t:9.0f} | {c['torch_best_threads']:3} | "
              f"{c['ratio']:5.2f}x | {target_cell(c)} | "
              f"{c['gflops']:7.1f} | {100 * c['roofline_share']:4.0f}% |")
    if pipeline:
        print()
        print(f"4 pipelined IPUs vs 1 IPU (same global batch 256): {pipeline['four_ipus']:.0f} vs {pipeline['one_ipu']:.0f} "
              f"samples/s, wall time {pipeline['wall_time_ratio']:.2f}x the 1-IPU run (target <= 1.2x: "
              f"{'ok' if pipeline['met'] else 'not met'})")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({**info, "machine": {k: v for k, v in info["machine"].items() if k != "flags"}}, f, indent=2)
    print(f"JSON: {args.json}")


if __name__ == "__main__":
    main()
