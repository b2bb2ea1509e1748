#!/usr/bin/env python3
"""Trains the seed's MNIST MLP for 100 SGD steps in iputrain and in PyTorch from the same initial
weights on the same batches (Fashion-MNIST, unshuffled), and reports the largest relative weight
difference. Exits 1 if it exceeds 1e-4, 0 otherwise (and 0 with a message if torch is absent)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

STEPS, BATCH, LR, TOLERANCE = 100, 32, 0.01, 1e-4


def main():
    torch = common.import_torch_or_exit(__file__)
    import numpy as np
    torch.set_num_threads(1)
    init = common.mlp_init(seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        init_path = os.path.join(tmp, "init.safetensors")
        out_path = os.path.join(tmp, "out.safetensors")
        common.write_safetensors(init_path, init)
        common.run_iputrain([
            "train", os.path.join(common.ROOT, "examples/mnist_mlp.ipu"), os.path.join(common.ROOT, "configs/mnist.toml"),
            "--quiet", "--no-eval", "--init-from", init_path, "--save", out_path,
            "--set", f"training.steps={STEPS}", "--set", "data.shuffle=false", "--set", f"data.batch_size={BATCH}",
            "--set", f"optimizer.learning_rate={LR}"])
        ours = common.read_safetensors(out_path)

    x, y = common.fashion_mnist("train", STEPS * BATCH)
    model = common.torch_mlp(torch, init)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    loss_fn = torch.nn.CrossEntropyLoss()
    for step in range(STEPS):
        xb = torch.from_numpy(x[step * BATCH:(step + 1) * BATCH])
        yb = torch.from_numpy(y[step * BATCH:(step + 1) * BATCH])
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    theirs = common.torch_weights(model)

    worst = 0.0
    for name in sorted(theirs):
        diff = np.max(np.abs(ours[name] - theirs[name])) / max(np.max(np.abs(theirs[name])), 1e-12)
        moved = np.max(np.abs(theirs[name] - init[name])) / max(np.max(np.abs(theirs[name])), 1e-12)
        print(f"{name:28s} relative difference {diff:.3e}   (training moved it by {moved:.3e})")
        worst = max(worst, diff)
    verdict = "agree" if worst <= TOLERANCE else "DISAGREE"
    print(f"iputrain and PyTorch {verdict} after {STEPS} steps: max relative difference {worst:.3e} (limit {TOLERANCE:g})")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
