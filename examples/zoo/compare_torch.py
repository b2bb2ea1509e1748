#!/usr/bin/env python3
"""Trains a zoo model (examples/zoo/NAME.ipu with NAME.toml) in iputrain and its PyTorch twin
(torch_twins.py) from the same initial weights, on the same batches, with the same optimizer, and
compares the loss of every step and every weight at the end.

  compare_torch.py NAME [--steps N]      one model (CTest runs each as zoo.NAME)
  compare_torch.py --list                the registered models

The initial weights are drawn here (bench/torch_agreement.py's random_init: Glorot-uniform kernels,
gains near 1, small random biases and moving statistics, so every gradient is exercised) and given
to iputrain with --init-from; iputrain trains with data.shuffle = false, so step k reads samples
k * batch .. (k + 1) * batch - 1 of the data source, which the twin reads too; the per-step loss
comes from --outfeed. Both run in float32. The verdict: every step's loss and every weight
(non-trainable state included) within LIMIT relative (|ours - theirs| / max |theirs|, per tensor).
Exit status 1 on a disagreement, or when PyTorch is missing (a comparison that skips cannot fail).

Adding a model: NAME.ipu, NAME.toml, its twin in torch_twins.py and one entry in MODELS."""
import csv
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import common  # noqa: E402

STEPS, LIMIT = 20, 1e-4


@dataclass
class Entry:
    """A zoo model's comparison: its data (`fashion_mnist` or `text`), the optimizer as iputrain
    --set overrides and as a torch.optim factory, and the twin's name in torch_twins.py (the
    model's name by default)."""
    data: str
    optimizer: list
    torch_optimizer: object
    twin: str = ""
    sets: list = field(default_factory=list)  # more overrides (smaller sizes for the comparison)


def momentum(lr):
    return (["optimizer.type=momentum", f"optimizer.learning_rate={lr}", "optimizer.momentum=0.9"],
            lambda torch, ps: torch.optim.SGD(ps, lr=lr, momentum=0.9))


def adamw(lr, weight_decay=0.01, eps=1e-5):
    # eps well above float32 rounding of sqrt(v): with a tiny eps an element whose gradient is
    # within rounding of 0 moves by about +-lr whichever way rounding goes (bench/torch_agreement.py).
    return ([f"optimizer.type=adamw", f"optimizer.learning_rate={lr}", f"optimizer.weight_decay={weight_decay}",
             f"optimizer.epsilon={eps}"],
            lambda torch, ps: torch.optim.AdamW(ps, lr=lr, betas=(0.9, 0.999), eps=eps, weight_decay=weight_decay))


MODELS = {
    "llama": Entry("text", *adamw(0.003)),
    "mobilenet": Entry("fashion_mnist", *momentum(0.02)),
    "resnext": Entry("fashion_mnist", *momentum(0.05)),
    "vit": Entry("fashion_mnist", *momentum(0.05)),
    "efficientnet": Entry("fashion_mnist", *momentum(0.05)),
}


def read_config_value(config, section, key):
    """A value of the model's config (the data source, the batch size), read with iputrain itself."""
    out = common.run_iputrain(["config", "show", config])
    current = ""
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
        elif current == section and line.split("=", 1)[0].strip() == key:
            return line.split("=", 1)[1].split("#", 1)[0].strip().strip('"')
    sys.exit(f"{config}: no {section}.{key}")


def batches(entry, config, shapes, steps, torch):
    """The first `steps` unshuffled batches of the model's training data, as the twin takes them."""
    import numpy as np
    batch = int(read_config_value(config, "data", "batch_size"))
    source = read_config_value(config, "data", "train")
    if entry.data == "fashion_mnist":
        assert source.startswith("idx:"), f"{config}: expected an idx: source, got {source}"
        raw, labels = common.fashion_mnist_raw(os.path.basename(source[4:]), steps * batch)
        x = torch.from_numpy(raw.astype(np.float32))
        y = torch.from_numpy(labels)
    else:
        assert source.startswith("text:"), f"{config}: expected a text: source, got {source}"
        seq = shapes["__seq__"]
        data = np.frombuffer(open(source[5:], "rb").read(), dtype=np.uint8).astype(np.int64)
        ids = np.where((data >= 32) & (data <= 126), data - 32, 95)
        n = steps * batch
        x = torch.from_numpy(np.stack([ids[k * seq:(k + 1) * seq] for k in range(n)]))
        y = torch.from_numpy(np.stack([ids[k * seq + 1:(k + 1) * seq + 1] for k in range(n)]))
    return [(x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch]) for s in range(steps)]


def parameters(model, config, sets):
    """({path: shape}, {non-trainable paths}, inputs {name: shape}) from `iputrain check`."""
    import re
    args = ["check", model, config]
    for s in sets:
        args += ["--set", s]
    out = common.run_iputrain(args)
    shapes, frozen, inputs = {}, set(), {}
    params = out.split("\nparameters:\n", 1)[1].split("\noutputs:", 1)[0]
    for m in re.finditer(r"^\s+(\S+)\s+f32\[([0-9, ]*)\]([^\n]*)", params, re.M):
        shapes[m.group(1)] = tuple(int(d) for d in m.group(2).split(",") if d.strip())
        if "non-trainable" in m.group(3):
            frozen.add(m.group(1))
    for m in re.finditer(r"^\s+(\w+)\s+i32\[(\d+), (\d+)\]", out, re.M):
        inputs[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return shapes, frozen, inputs


def initial_weights(shapes, frozen, seed):
    """bench/torch_agreement.py's draw, plus: RMSNorm weights near 1 like gammas, moving variances
    in [0.5, 1.5]."""
    import numpy as np
    import torch_agreement
    init = torch_agreement.random_init({k if "/" in k else "model/" + k: v for k, v in shapes.items()}, seed)
    init = {k[6:] if k.startswith("model/") and k[6:] in shapes else k: v for k, v in init.items()}
    rng = np.random.default_rng(seed + 1)
    for name, shape in shapes.items():
        leaf = name.rsplit("/", 1)[-1]
        if leaf in ("weight", "moving_variance"):
            init[name] = (1.0 + rng.uniform(-0.5 if leaf == "moving_variance" else -0.1,
                                            0.5 if leaf == "moving_variance" else 0.1, shape)).astype(np.float32)
    return init


def run_iputrain(model, config, init, steps, sets):
    """Trains `steps` steps from `init`; returns (final weights, loss per step)."""
    with tempfile.TemporaryDirectory() as tmp:
        init_path, out_path = os.path.join(tmp, "init.safetensors"), os.path.join(tmp, "out.safetensors")
        feed = os.path.join(tmp, "feed.csv")
        common.write_safetensors(init_path, init)
        args = ["train", model, config, "--quiet", "--no-eval", "--init-from", init_path, "--save", out_path,
                "--outfeed", feed, "--set", f"training.steps={steps}", "--set", "data.shuffle=false"]
        for s in sets:
            args += ["--set", s]
        common.run_iputrain(args)
        with open(feed) as f:
            rows = list(csv.DictReader(f))
        losses = {}
        for row in rows:
            losses.setdefault(int(row["step"]), []).append(float(row["loss"]))
        return common.read_safetensors(out_path), [sum(v) / len(v) for _, v in sorted(losses.items())]


def run_torch(torch, loss_of, init, frozen, data, make_optimizer):
    params = {k: torch.tensor(v, requires_grad=k not in frozen) for k, v in init.items()}
    optimizer = make_optimizer(torch, [v for k, v in sorted(params.items()) if k not in frozen])
    losses = []
    for batch in data:
        optimizer.zero_grad()
        loss = loss_of(params, *batch)
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    return {k: v.detach().numpy() for k, v in params.items()}, losses


def compare(name, ours, theirs, our_losses, their_losses, init):
    import numpy as np
    if sorted(ours) != sorted(theirs):
        print(f"{name}: the weight files differ in names: {sorted(set(ours) ^ set(theirs))}")
        return float("inf"), float("inf")
    if len(our_losses) != len(their_losses):
        print(f"{name}: iputrain logged {len(our_losses)} steps, PyTorch {len(their_losses)}")
        return float("inf"), float("inf")
    worst_loss = 0.0
    for step, (a, b) in enumerate(zip(our_losses, their_losses), 1):
        diff = abs(a - b) / max(abs(b), 1e-12)
        worst_loss = max(worst_loss, diff)
        print(f"step {step:3d}  loss iputrain {a:.7f}  PyTorch {b:.7f}  relative difference {diff:.2e}")
    worst_weight = 0.0
    for key in sorted(theirs):
        scale = max(float(np.max(np.abs(theirs[key]))), 1e-12)
        diff = float(np.max(np.abs(ours[key] - theirs[key]))) / scale
        moved = float(np.max(np.abs(theirs[key] - init[key]))) / scale
        worst_weight = max(worst_weight, diff)
        print(f"{key:52s} relative difference {diff:.2e}   (training moved it by {moved:.2e})")
    return worst_loss, worst_weight


def main():
    torch = common.import_torch_or_exit(__file__)
    import torch_twins
    torch.set_num_threads(1)
    args = sys.argv[1:]
    if args == ["--list"]:
        print("\n".join(MODELS))
        return 0
    steps = STEPS
    extra = []
    while len(args) >= 3 and args[1] in ("--steps", "--set"):
        if args[1] == "--steps":
            steps = int(args[2])
        else:
            extra.append(args[2])
        args = args[:1] + args[3:]
    if len(args) != 1 or args[0] not in MODELS:
        sys.exit(f"usage: compare_torch.py NAME [--steps N] | --list   (NAME: {', '.join(MODELS)})")
    name = args[0]
    entry = MODELS[name]
    model, config = os.path.join(HERE, name + ".ipu"), os.path.join(HERE, name + ".toml")
    sets = entry.optimizer + entry.sets + extra
    start = time.time()
    shapes, frozen, inputs = parameters(model, config, sets)
    init = initial_weights(shapes, frozen, seed=sum(map(ord, name)))
    ours, our_losses = run_iputrain(model, config, init, steps, sets)
    ours_seconds = time.time() - start
    if entry.data == "text":
        shapes["__seq__"] = next(iter(inputs.values()))[1]
    loss_of = getattr(torch_twins, entry.twin or name)(shapes)
    theirs, their_losses = run_torch(torch, loss_of, init, frozen, batches(entry, config, shapes, steps, torch),
                                     entry.torch_optimizer)
    worst_loss, worst_weight = compare(name, ours, theirs, our_losses, their_losses, init)
    ok = worst_loss <= LIMIT and worst_weight <= LIMIT
    print(f"{name}: iputrain and PyTorch {'agree' if ok else 'DISAGREE'} over {steps} steps: largest relative "
          f"difference {worst_loss:.2e} on the loss, {worst_weight:.2e} on the weights (limit {LIMIT:g}); "
          f"iputrain {ours_seconds:.1f} s, in all {time.time() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
