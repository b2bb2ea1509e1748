#!/usr/bin/env python3
"""Training throughput of the seed's MNIST MLP (batch 32, SGD) in iputrain against PyTorch on one
thread, on the same Fashion-MNIST batches, measured in the same run. Prints samples/s and the ratio."""
import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def torch_samples_per_second(torch, x, y, batch, steps, repeats):
    model = common.torch_mlp(torch, common.mlp_init(seed=2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = x.shape[0] // batch
    xs = [torch.from_numpy(x[i * batch:(i + 1) * batch]) for i in range(n)]
    ys = [torch.from_numpy(y[i * batch:(i + 1) * batch]) for i in range(n)]
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for step in range(steps):
            opt.zero_grad()
            loss_fn(model(xs[step % n]), ys[step % n]).backward()
            opt.step()
        best = max(best, steps * batch / (time.perf_counter() - start))
    return best


def iputrain_samples_per_second(batch, steps, repeats):
    best = 0.0
    for _ in range(repeats):
        out = common.run_iputrain([
            "train", os.path.join(common.ROOT, "examples/mnist_mlp.ipu"), os.path.join(common.ROOT, "configs/mnist.toml"),
            "--quiet", "--no-eval", "--set", f"training.steps={steps}", "--set", f"data.batch_size={batch}",
            "--set", "training.steps_per_execution=100"])
        match = re.search(r"([0-9.]+) samples/s", out)
        if not match:
            sys.exit(f"cannot find samples/s in iputrain's output:\n{out}")
        best = max(best, float(match.group(1)))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch = common.import_torch_or_exit(__file__)
    torch.set_num_threads(1)
    x, y = common.fashion_mnist("train", 60000)
    ours = iputrain_samples_per_second(args.batch, args.steps, args.repeats)
    theirs = torch_samples_per_second(torch, x, y, args.batch, args.steps, args.repeats)
    print(f"MNIST MLP, batch {args.batch}, {args.steps} steps, best of {args.repeats}:")
    print(f"  iputrain  {ours:10.0f} samples/s  (one device thread)")
    print(f"  PyTorch   {theirs:10.0f} samples/s  (torch {torch.__version__}, 1 thread)")
    print(f"  ratio     {ours / theirs:10.2f}x")


if __name__ == "__main__":
    main()
