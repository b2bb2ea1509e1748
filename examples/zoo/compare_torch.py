#!/usr/bin/env python3
"""Trains a zoo model (examples/zoo/NAME.ipu with NAME.toml) in iputrain and its PyTorch twin
(torch_twins.py) from the same initial weights, on the same batches, with the same optimizer, and
compares the loss of every step and every weight at the end.

  compare_torch.py NAME [--steps N] [--set KEY=VALUE]...   one model (CTest runs each as zoo.NAME);
                                         --set goes to iputrain only (to show that a mismatch fails)
  compare_torch.py NAME ... --expect-disagree   exit 0 only if the verdict is a disagreement
  compare_torch.py --list                the registered models

The initial weights are drawn here (bench/torch_agreement.py's random_init: Glorot-uniform kernels,
gains near 1, small random biases and moving statistics, so every gradient is exercised) and given
to iputrain with --init-from; iputrain trains with data.shuffle = false, so step k reads samples
k * batch .. (k + 1) * batch - 1 of the data source, which the twin reads too; the per-step loss
comes from --outfeed. Both run in float32.

Two modes (an entry's `per_step`):
- a run: 20 steps on each side; every step's loss and every weight at the end (non-trainable state
  included) within LIMIT relative (|ours - theirs| / max |theirs|, per tensor). For models whose
  functions are smooth (no kink in the forward pass).
- per step, for models with ReLU or ReLU6: iputrain trains the 20 steps once, writing a checkpoint
  (weights, moving statistics and the momentum velocity) after every update; PyTorch takes each
  step k from iputrain's checkpoint k - 1 (the initial weights and a zero velocity for step 1), and
  its loss, its weights and its velocity after the step must agree with iputrain's step k within
  LIMIT. A pre-activation within rounding of a kink (0, or 6 for ReLU6) can be decided either way
  by the two libraries' rounding, which moves part of one position's gradient: a discrete jump
  that a 20-step run would carry and amplify. So, as bench/torch_agreement.py's LeNet check: a
  step whose PyTorch forward had a near tie (some ReLU input within TIE_GAP of the kink, relative
  to the largest |input| of its tensor; torch_twins.TIES) is excused if its weights or velocity
  disagree while its loss agrees (a flip moves the forward by a rounding only); at most a tenth
  of the steps may be excused, and every other step must agree within LIMIT. With a million ReLU
  inputs per step, some input lies that near a kink on about half of the steps, so the tie test
  alone would excuse many steps: the loss that must agree and the cap of a tenth bound the excuses.
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

# TIE_GAP: a few float32 roundings (2^-23 = 1.2e-7) of the tensor's largest value, the error a
# computed ReLU input can carry in either library.
STEPS, LIMIT, TIE_GAP = 20, 1e-4, 1e-6


@dataclass
class Entry:
    """A zoo model's comparison: its data (`fashion_mnist`, `text` or `npz`), the optimizer as
    iputrain --set overrides and as a torch.optim factory, the twin's name in torch_twins.py (the
    model's name by default), and whether it is compared step by step (models with ReLU kinks;
    momentum or plain SGD only, whose state is the velocity)."""
    data: str
    optimizer: list
    torch_optimizer: object
    twin: str = ""
    sets: list = field(default_factory=list)  # more overrides (smaller sizes for the comparison)
    per_step: bool = False


def momentum(lr):
    return (["optimizer.type=momentum", f"optimizer.learning_rate={lr}", "optimizer.momentum=0.9"],
            lambda torch, ps: torch.optim.SGD(ps, lr=lr, momentum=0.9))


def adamw(lr, weight_decay=0.01, eps=1e-5):
    # eps well above float32 rounding of sqrt(v): with a tiny eps an element whose gradient is
    # within rounding of 0 moves by about +-lr whichever way rounding goes (bench/torch_agreement.py).
    return (["optimizer.type=adamw", f"optimizer.learning_rate={lr}", f"optimizer.weight_decay={weight_decay}",
             f"optimizer.epsilon={eps}"],
            lambda torch, ps: torch.optim.AdamW(ps, lr=lr, betas=(0.9, 0.999), eps=eps, weight_decay=weight_decay))


MODELS = {
    "llama": Entry("text", *adamw(0.003)),
    "mobilenet": Entry("fashion_mnist", *momentum(0.05), per_step=True),
    "resnext": Entry("fashion_mnist", *momentum(0.05), per_step=True),
    "vit": Entry("fashion_mnist", *momentum(0.05)),
    "efficientnet": Entry("fashion_mnist", *momentum(0.05)),
    "lstm_classifier": Entry("npz", *adamw(0.003)),
    "gru_tagger": Entry("npz", *adamw(0.003)),
    "conformer": Entry("npz", *adamw(0.002)),
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


def batches(entry, config, inputs, steps, torch):
    """The first `steps` unshuffled batches of the model's training data, as the twin takes them:
    one tensor per model input, in the model's order (integers as int64, floats as float32)."""
    import numpy as np
    batch = int(read_config_value(config, "data", "batch_size"))
    source = read_config_value(config, "data", "train")
    n = steps * batch
    if entry.data == "fashion_mnist":
        assert source.startswith("idx:"), f"{config}: expected an idx: source, got {source}"
        raw, labels = common.fashion_mnist_raw(os.path.basename(source[4:]), n)
        arrays = [raw.astype(np.float32), labels.astype(np.int64)]
    elif entry.data == "text":
        assert source.startswith("text:"), f"{config}: expected a text: source, got {source}"
        seq = next(iter(inputs.values()))[1][1]
        data = np.frombuffer(open(source[5:], "rb").read(), dtype=np.uint8).astype(np.int64)
        ids = np.where((data >= 32) & (data <= 126), data - 32, 95)
        arrays = [np.stack([ids[k * seq:(k + 1) * seq] for k in range(n)]),
                  np.stack([ids[k * seq + 1:(k + 1) * seq + 1] for k in range(n)])]
    else:
        assert source.startswith("npz:"), f"{config}: expected an npz: source, got {source}"
        with np.load(os.path.join(os.path.dirname(config), source[4:])) as f:
            arrays = [f[name][:n].astype(np.int64 if dtype == "i32" else np.float32)
                      for name, (dtype, _) in inputs.items()]
    tensors = [torch.from_numpy(a) for a in arrays]
    return [[t[s * batch:(s + 1) * batch] for t in tensors] for s in range(steps)]


def parameters(model, config, sets):
    """({path: shape}, {non-trainable paths}, inputs {name: (dtype, shape)}) from `iputrain check`."""
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
    declared = out.split("\ninputs:\n", 1)[1].split("\nparameters:", 1)[0]
    for m in re.finditer(r"^\s+(\w+)\s+(\w+)\[([0-9, ]*)\]", declared, re.M):
        inputs[m.group(1)] = (m.group(2), tuple(int(d) for d in m.group(3).split(",") if d.strip()))
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


def run_iputrain(model, config, init, steps, sets, per_step):
    """Trains `steps` steps from `init`; returns (final weights, loss per step, checkpoints): with
    per_step, the checkpoint after each step ({name: array}, weights and optimizer state), else []."""
    with tempfile.TemporaryDirectory() as tmp:
        init_path, out_path = os.path.join(tmp, "init.safetensors"), os.path.join(tmp, "out.safetensors")
        feed, saved = os.path.join(tmp, "feed.csv"), os.path.join(tmp, "checkpoints")
        common.write_safetensors(init_path, init)
        args = ["train", model, config, "--quiet", "--no-eval", "--init-from", init_path, "--save", out_path,
                "--outfeed", feed, "--set", f"training.steps={steps}", "--set", "data.shuffle=false"]
        if per_step:
            args += ["--set", f"checkpoint.dir={saved}", "--set", "checkpoint.every=1", "--set", "checkpoint.keep=0"]
        for s in sets:
            args += ["--set", s]
        common.run_iputrain(args)
        with open(feed) as f:
            rows = list(csv.DictReader(f))
        losses = {}
        for row in rows:
            losses.setdefault(int(row["step"]), []).append(float(row["loss"]))
        checkpoints = [common.read_safetensors(os.path.join(saved, f"step-{k:08d}.safetensors"))
                       for k in range(1, steps + 1)] if per_step else []
        return (common.read_safetensors(out_path), [sum(v) / len(v) for _, v in sorted(losses.items())],
                checkpoints)


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


def torch_step(torch, loss_of, start, frozen, batch, make_optimizer):
    """One PyTorch step from `start` (weights and `optimizer/0/NAME` velocities, as in iputrain's
    checkpoints); returns (loss, weights and velocities after the step, the forward's tie margin)."""
    import torch_twins
    params = {k: torch.tensor(v, requires_grad=k not in frozen) for k, v in start.items()
              if not k.startswith("optimizer/")}
    trainable = [k for k in sorted(params) if k not in frozen]
    optimizer = make_optimizer(torch, [params[k] for k in trainable])
    assert type(optimizer) is torch.optim.SGD, "the per-step comparison carries momentum SGD's state only"
    for k in trainable:
        if "optimizer/0/" + k in start:
            optimizer.state[params[k]]["momentum_buffer"] = torch.tensor(start["optimizer/0/" + k])
    torch_twins.TIES.clear()
    optimizer.zero_grad()
    loss = loss_of(params, *batch)
    loss.backward()
    optimizer.step()
    after = {k: v.detach().numpy() for k, v in params.items()}
    for k in trainable:
        buffer = optimizer.state[params[k]].get("momentum_buffer")
        if buffer is not None:
            after["optimizer/0/" + k] = buffer.numpy()
    return float(loss), after, min(torch_twins.TIES, default=float("inf"))


def relative(ours, theirs):
    """The largest per-tensor |ours - theirs| / max |theirs| over theirs' names, and its name."""
    import numpy as np
    worst, where = 0.0, ""
    for key in sorted(theirs):
        diff = float(np.max(np.abs(ours[key] - theirs[key]))) / max(float(np.max(np.abs(theirs[key]))), 1e-12)
        if diff > worst:
            worst, where = diff, key
    return worst, where


def compare_steps(name, torch, loss_of, init, frozen, data, make_optimizer, our_losses, checkpoints):
    """Each step from iputrain's state before it (see the module's docstring); returns the largest
    difference of the steps that are not excused, or inf when too many are excused."""
    steps = len(data)
    if len(our_losses) != steps or len(checkpoints) != steps:
        print(f"{name}: iputrain logged {len(our_losses)} steps and {len(checkpoints)} checkpoints, expected {steps}")
        return float("inf")
    worst, excused, start = 0.0, [], init
    for k in range(steps):
        loss, theirs, margin = torch_step(torch, loss_of, start, frozen, data[k], make_optimizer)
        missing = sorted(set(theirs) - set(checkpoints[k]))
        if missing:
            print(f"{name} step {k + 1}: iputrain's checkpoint lacks {missing}")
            return float("inf")
        weights, where = relative(checkpoints[k], theirs)
        loss_diff = abs(our_losses[k] - loss) / max(abs(loss), 1e-12)
        diff = max(loss_diff, weights)
        note = ""
        # A flip at a kink changes the forward by about the rounding only: the loss still agrees.
        if diff > LIMIT and loss_diff <= LIMIT and margin < TIE_GAP:
            excused.append(k + 1)
            note = "  EXCUSED (a near tie)"
        elif diff > LIMIT:
            note = "  over the limit"
        if not note.startswith("  EXCUSED"):
            worst = max(worst, diff)
        print(f"step {k + 1:3d}  loss iputrain {our_losses[k]:.7f}  PyTorch {loss:.7f}  relative difference "
              f"{loss_diff:.2e}; weights and velocity {weights:.2e} ({where}); nearest ReLU tie {margin:.1e}{note}")
        start = checkpoints[k]
    if len(excused) > steps // 10:
        print(f"{name}: {len(excused)} of {steps} steps excused for near ties, more than a tenth")
        return float("inf")
    print(f"{name}: {len(excused)} step(s) excused for near ties {excused if excused else ''}")
    return worst


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
    steps, extra, expect_disagree = STEPS, [], "--expect-disagree" in args
    args = [a for a in args if a != "--expect-disagree"]
    while len(args) >= 3 and args[1] in ("--steps", "--set"):
        if args[1] == "--steps":
            steps = int(args[2])
        else:
            extra.append(args[2])
        args = args[:1] + args[3:]
    if len(args) != 1 or args[0] not in MODELS:
        sys.exit(f"usage: compare_torch.py NAME [--steps N] [--set KEY=VALUE]... [--expect-disagree] | --list   "
                 f"(NAME: {', '.join(MODELS)})")
    name = args[0]
    entry = MODELS[name]
    model, config = os.path.join(HERE, name + ".ipu"), os.path.join(HERE, name + ".toml")
    start = time.time()
    shapes, frozen, inputs = parameters(model, config, entry.optimizer + entry.sets + extra)
    init = initial_weights(shapes, frozen, seed=sum(map(ord, name)))
    ours, our_losses, checkpoints = run_iputrain(model, config, init, steps, entry.optimizer + entry.sets + extra,
                                                 entry.per_step)
    ours_seconds = time.time() - start
    loss_of = getattr(torch_twins, entry.twin or name)(shapes)
    data = batches(entry, config, inputs, steps, torch)
    if entry.per_step:
        worst = compare_steps(name, torch, loss_of, init, frozen, data, entry.torch_optimizer, our_losses,
                              checkpoints)
        ok = worst <= LIMIT
        summary = (f"on each of {steps} steps from iputrain's state: largest relative difference {worst:.2e} on "
                   f"the loss, the weights and the velocity")
    else:
        theirs, their_losses = run_torch(torch, loss_of, init, frozen, data, entry.torch_optimizer)
        worst_loss, worst_weight = compare(name, ours, theirs, our_losses, their_losses, init)
        ok = worst_loss <= LIMIT and worst_weight <= LIMIT
        summary = (f"over {steps} steps: largest relative difference {worst_loss:.2e} on the loss, "
                   f"{worst_weight:.2e} on the weights")
    print(f"{name}: iputrain and PyTorch {'agree' if ok else 'DISAGREE'} {summary} (limit {LIMIT:g}); "
          f"iputrain {ours_seconds:.1f} s, in all {time.time() - start:.1f} s")
    if expect_disagree:
        print(f"{name}: a disagreement was expected ({' '.join(extra)}): "
              f"{'the verdict can fail, as it must' if not ok else 'NOT FOUND'}")
        return 0 if not ok else 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
