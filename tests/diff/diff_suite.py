#!/usr/bin/env python3
"""The differential suite: every primitive op of the op table and every stdlib layer against PyTorch
and NumPy, at the edges (0 and -0, +-inf, NaN, denormals, +-80, +-1000, ties, int32 extremes), on odd
shapes (size-1 and size-0 dimensions, every axis), forward and gradient.

Two paths, both compared with the same references:
- the user's: each op's cases become one model whose outputs are the cases, run by `iputrain predict`
  on an npz file, in f32 and with training.precision = "f16" (each result rounded to half, saturating
  at +-65504, as docs/training.md says);
- the op harness's: diff_eval builds each case as one op of the table on the harness's interpreter,
  with the op's own backward, so gradients are compared too (sum(out * dy), dy fixed per case).

The ops come from the op table (iputrain_gen_ops_doc --list): an op with no case and no entry in
COVERED_BY fails the suite, so a new op cannot skip it. Where iputrain deliberately differs from
PyTorch (cast's NaN, hard_sigmoid's Keras form, one_hot out of range), the reference is the rule
docs/ops.md writes down, said in the case.

Usage: diff_suite.py --iputrain BIN --diff-eval BIN --ops-doc BIN --work DIR [-k SUBSTRING] [-v]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
from common import import_torch_or_exit, write_safetensors  # noqa: E402

torch = import_torch_or_exit(__file__)
import numpy as np  # noqa: E402

import diff_cases  # noqa: E402

# Ops of the table whose behaviour another op's cases check: leaves feed every case, and the
# gradient ops are what diff_eval runs for their forward op's gradient.
COVERED_BY = {
    "input": "every case (each operand is an input)",
    "param": "the stdlib layer cases (their weights)",
    "constant": "every case with a number operand",
    "minmax_grad": "the gradients of maximum and minimum",
    "relu_grad": "the gradient of relu",
    "unary_grad": "the gradients of the unary ops",
    "slice_grad": "the gradient of slice",
    "gather_grad": "the gradient of gather",
    "take_along_axis_grad": "the gradient of take_along_axis (and of sort and top_k)",
    "conv2d_backprop_input": "the gradient of conv2d",
    "conv2d_backprop_filter": "the gradient of conv2d",
    "max_pool_grad": "the gradient of max_pool",
    "avg_pool_grad": "the gradient of avg_pool",
    "softmax_grad": "the gradient of softmax",
    "log_softmax_grad": "the gradient of log_softmax",
    "softmax_cross_entropy_grad": "the gradient of softmax_cross_entropy",
    "lstm_grad": "the gradient of lstm (against PyTorch's autograd of the same recurrence)",
    "gru_grad": "the gradient of gru, both reset_after forms",
    "ctc_loss_grad": "the gradient of ctc_loss",
    "custom": "no semantics of its own: the op a program registers; tests/core/op_cases_custom.cpp and tests/engine/custom_op_test.cpp",
    "custom_grad": "the gradient a registered op declares (tests/core/op_cases_custom.cpp)",
    "sequence_slice_grad": "the gradient of sequence_slice",
    "state_read": "no arithmetic (a copy, zeros where reset) whose meaning is across micro-batches: the op harness and tests/engine/stateful_rnn_test.cpp (a sequence cut in halves equals the whole, bitwise)",
    "state_write": "no arithmetic (a copy the engine stores as the next state): the op harness and tests/engine/stateful_rnn_test.cpp",
    "candidate_sampler": "random draws: tests/core/op_cases_sampling.cpp against the definition on the same Philox stream",
    "index_at_grad": "the gradient of index_at",
    "loop_arg": "every loop (the body's leaves)",
    "loop": "the nn.lstm case with another activation, a loop over the cell since issue 47 (diff_recurrent.py), "
            "forward and gradient against the recurrence in double; tests/core/op_cases_loop.cpp",
    "loop_grad": "the gradient of loop (the nn.lstm case with another activation; op_cases_loop.cpp's finite differences)",
    "loop_part": "every loop's results and gradients (the nn.lstm case with another activation)",
}

HALF_MAX = 65504.0
# The models also run on 5 samples in batches of 2 (the last batch padded, its copies dropped).
TAIL_GROUPS = ("relu", "softmax", "sum", "matmul", "gather", "argmax", "cast", "stdlib activations.relu6")


def to_half(a):
    """Rounds f32 values to f16 as the engine's emulation does: to nearest even, saturating finite
    values beyond +-65504 (ipu.floating_point_behaviour.nanoo off); inf and NaN pass through."""
    a = np.asarray(a, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        h = a.astype(np.float16).astype(np.float32)
    finite = np.isfinite(a)
    h = np.where(finite & (np.abs(a) >= HALF_MAX), np.sign(a) * np.float32(HALF_MAX), h)
    return np.where(finite & ~np.isfinite(h), np.sign(a) * np.float32(HALF_MAX), h).astype(np.float32)


def disagreements(got, want, rtol, atol):
    """Indices where got and want differ: NaN matches NaN, infinities match by sign, -0 matches 0,
    integers and bools exactly, floats within atol + rtol * |want|."""
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return [f"{got.size} values for {want.size}"]
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if np.isnan(w) or np.isnan(g):
            ok = np.isnan(w) and np.isnan(g)
        elif np.isinf(w) or np.isinf(g):
            ok = g == w
        else:
            ok = abs(g - w) <= atol + rtol * abs(w)
        if not ok:
            bad.append(i)
    return bad


def describe(bad, got, want, inputs, limit=4):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = np.asarray(want, dtype=np.float64).ravel()
    if bad and isinstance(bad[0], str):
        return bad[0]
    return "; ".join(f"[{i}] got {got[i]!r}, want {want[i]!r}" for i in bad[:limit]) + \
        (f" (+{len(bad) - limit} more)" if len(bad) > limit else "")


def reference(case, inputs, half=False):
    """The case's expected output (float64 numpy) on `inputs`, and the gradients of sum(out * dy)
    for each float input (None where there is none or the case has no gradient)."""
    ins = [to_half(a) if half and a.dtype == np.float32 else a for a in inputs]
    ts = []
    for a in ins:
        t = torch.from_numpy(np.array(a))
        if t.dtype == torch.float32 and case.grad:
            t.requires_grad_(True)
        ts.append(t)
    out = case.ref(*ts)
    grads = [None] * len(ts)
    if isinstance(out, torch.Tensor):
        if case.grad and out.dtype == torch.float32 and any(t.requires_grad for t in ts):
            dy = torch.from_numpy(case.dy(tuple(out.shape)))
            need = [t for t in ts if t.requires_grad]
            got = torch.autograd.grad((out * dy).sum(), need, allow_unused=True)
            it = iter(got)
            grads = [(next(it) if t.requires_grad else None) for t in ts]
            grads = [None if g is None else g.detach().numpy().astype(np.float64) for g in grads]
        out = out.detach().numpy()
    out = np.asarray(out)
    if half and out.dtype == np.float32:
        out = to_half(out)
    return out, grads


# ---- the user's path --------------------------------------------------------------------------

def model_text(cases):
    lines = ["import nn", "import activations", "import losses", "", "model diff(batch: int = 1) {"]
    for ci, case in enumerate(cases):
        for j, a in enumerate(case.inputs):
            dims = ", ".join(["batch"] + [str(d) for d in a.shape])
            lines.append(f"  input c{ci}_{j}: {diff_cases.DTYPE_NAME[a.dtype.name]}[{dims}]")
        for line in case.body:
            lines.append("  " + line.format(p=f"c{ci}_"))
        # The case on every sample of the batch, one row each.
        args = [f"c{ci}_{j}[i]" for j in range(len(case.inputs))]
        expr = case.expr.format(*args, p=f"c{ci}_")
        lines.append(f"  rows{ci} = []")
        lines.append("  for i in 0..batch {")
        lines.append(f"    rows{ci} = rows{ci} + [reshape({expr}, [1, {max(case.out_numel, 1)}])]")
        lines.append("  }")
        lines.append(f"  output out{ci} = concat(rows{ci}, axis = 0)")
    lines.append("}")
    return "\n".join(lines) + "\n"


def variant(a, i):
    """Sample i of a multi-sample run: the case's inputs, floats scaled by i + 1, ints shifted by i."""
    if a.dtype == np.float32:
        with np.errstate(over="ignore"):
            return (a * np.float32(i + 1)).astype(np.float32)
    if a.dtype == np.int32:
        return a
    return a


def run_predict(iputrain, work, name, cases, half, samples=1, batch=1):
    """Runs the cases through `iputrain predict` on `samples` samples in batches of `batch` (a last
    batch that does not fill when they do not divide); returns {case index: values of every sample
    in order, or error text}."""
    d = os.path.join(work, "predict", name + ("_f16" if half else "") + (f"_tail{samples}" if samples > 1 else ""))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "m.ipu"), "w") as f:
        f.write(model_text(cases))
    arrays = {f"c{ci}_{j}": np.stack([variant(a, i) for i in range(samples)])
              for ci, c in enumerate(cases) for j, a in enumerate(c.inputs)}
    np.savez(os.path.join(d, "data.npz"), **arrays)
    weights = {}
    for ci, c in enumerate(cases):
        for k, v in c.weights.items():
            weights[k] = v
    config = ["[data]", 'test = "npz:data.npz"', f"batch_size = {batch}", "", "[training]",
              f'precision = "{"f16" if half else "f32"}"', "steps = 1"]
    with open(os.path.join(d, "c.toml"), "w") as f:
        f.write("\n".join(config) + "\n")
    cmd = [iputrain, "predict", "m.ipu", "c.toml", "-o", "out/"]
    if weights:
        write_safetensors(os.path.join(d, "w.safetensors"), weights)
        cmd += ["--weights", "w.safetensors"]
    proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if proc.returncode != 0:
        return {ci: f"iputrain predict failed ({proc.returncode}): {proc.stderr.strip()}" for ci in range(len(cases))}
    return {ci: np.load(os.path.join(d, "out", f"out{ci}.npy"))[:, :c.out_numel].reshape(-1)
            for ci, c in enumerate(cases)}


# ---- the op harness's path ----------------------------------------------------------------------

def run_harness(diff_eval, work, cases, half):
    d = os.path.join(work, "harness" + ("_f16" if half else ""))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    listing = []
    for ci, c in enumerate(cases):
        cid = f"case{ci}"
        os.makedirs(os.path.join(d, cid))
        entry = {"id": cid, "op": c.harness_op, "attrs": c.attrs, "inputs": [], "training": c.training}
        for j, a in enumerate(c.inputs):
            v = to_half(a) if half and a.dtype == np.float32 else a
            np.asarray(v, dtype=np.float64).tofile(os.path.join(d, cid, f"in{j}.bin"))
            entry["inputs"].append({"dtype": diff_cases.DTYPE_NAME[a.dtype.name], "shape": list(a.shape),
                                    "file": f"in{j}.bin"})
        if c.grad and c.out_dtype == "f32":
            c.dy(c.out_shape).astype(np.float64).tofile(os.path.join(d, cid, "dy.bin"))
            entry["dy"] = "dy.bin"
        listing.append(entry)
    with open(os.path.join(d, "cases.json"), "w") as f:
        json.dump(listing, f)
    env = dict(os.environ, IPUTRAIN_DIFF_CASES=d)
    proc = subprocess.run([diff_eval], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"diff_eval failed:\n{proc.stdout}\n{proc.stderr}")
    results = {}
    for ci, c in enumerate(cases):
        here = os.path.join(d, f"case{ci}")
        if os.path.exists(os.path.join(here, "error.txt")):
            results[ci] = open(os.path.join(here, "error.txt")).read()
            continue
        out = np.fromfile(os.path.join(here, "out.bin"), dtype=np.float64)
        grads = []
        for j in range(len(c.inputs)):
            p = os.path.join(here, f"grad{j}.bin")
            grads.append(np.fromfile(p, dtype=np.float64) if os.path.exists(p) else None)
        results[ci] = (out, grads)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iputrain", required=True)
    ap.add_argument("--diff-eval", required=True)
    ap.add_argument("--ops-doc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    for key in ("iputrain", "diff_eval", "ops_doc", "work"):
        setattr(args, key, os.path.abspath(getattr(args, key)))
    start = time.time()

    table = subprocess.run([args.ops_doc, "--list"], capture_output=True, text=True, check=True).stdout.split("\n")
    ops = [line.split()[0] for line in table if line.strip()]
    cases = diff_cases.all_cases()
    covered = {c.op for c in cases}
    missing = [op for op in ops if op not in covered and op not in COVERED_BY]
    stale = [op for op in covered | set(COVERED_BY) if op not in ops and not op.startswith("stdlib.")]
    failures = []
    # Every def and layer of the standard library, as the op table's ops.
    stdlib_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "stdlib")
    import re
    import diff_layers
    import diff_recurrent
    stdlib_covered_by = {**diff_layers.STDLIB_COVERED_BY, **diff_recurrent.STDLIB_COVERED_BY}
    for module in sorted(os.listdir(stdlib_dir)):
        if not module.endswith(".ipu"):
            continue
        for m in re.finditer(r"^(?:def|layer) (\w+)", open(os.path.join(stdlib_dir, module)).read(), re.M):
            full = f"{module[:-4]}.{m.group(1)}"
            if f"stdlib.{full}" not in covered and full not in stdlib_covered_by:
                missing.append(f"stdlib {full}")
    if missing:
        failures.append(f"ops of the table and stdlib functions with no differential case: {', '.join(missing)} "
                        "(add them to tests/diff/diff_cases.py or diff_layers.py)")
    if stale:
        failures.append(f"cases name ops the table does not have: {', '.join(sorted(stale))}")
    names = [c.name for c in cases]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        failures.append(f"duplicate case names: {', '.join(dupes)}")
    if args.k:
        cases = [c for c in cases if args.k in c.name]

    os.makedirs(args.work, exist_ok=True)
    counts = {"predict f32": 0, "predict f16": 0, "predict tail": 0, "harness f32": 0, "harness f16": 0, "gradient f32": 0}

    def check(label, case, got, want, rtol, atol):
        if isinstance(got, str):
            failures.append(f"{case.name} [{label}]: {got}")
            return
        bad = disagreements(got, want, rtol, atol)
        if bad:
            failures.append(f"{case.name} [{label}]: {describe(bad, got, want, case.inputs)}")
        elif args.v:
            print(f"ok {case.name} [{label}]")

    # The user's path: one model per op (and precision); a model that fails as a whole is re-run
    # case by case, so one refused case names itself.
    by_model = {}
    for c in cases:
        if c.predict and c.out_numel > 0:
            by_model.setdefault(c.group, []).append(c)
    for half in (False, True):
        label = "predict f16" if half else "predict f32"
        for group, group_cases in by_model.items():
            todo = [c for c in group_cases if c.half or not half]
            if not todo:
                continue
            got = run_predict(args.iputrain, args.work, group, todo, half)
            if len(todo) > 1 and all(isinstance(v, str) for v in got.values()):
                got = {}
                for ci, c in enumerate(todo):
                    got[ci] = run_predict(args.iputrain, args.work, f"{group}_{ci}", [c], half)[0]
            for ci, c in enumerate(todo):
                want, _ = reference(c, c.inputs, half)
                rtol, atol = c.tol_half if half else c.tol
                check(label, c, got[ci], want, rtol, atol)
                counts[label] += 1

    # A last batch that does not fill: 5 samples in batches of 2, on a few ops of each kind.
    for group in TAIL_GROUPS:
        todo = [c for c in by_model.get(group, [])]
        got = run_predict(args.iputrain, args.work, group, todo, False, samples=5, batch=2)
        for ci, c in enumerate(todo):
            want = np.concatenate([reference(c, [variant(a, i) for a in c.inputs])[0].reshape(-1) for i in range(5)])
            check("predict tail", c, got[ci], want, *c.tol)
            counts["predict tail"] += 1

    # The op harness's path, with gradients.
    for half in (False, True):
        harnessed = [c for c in cases if c.harness_op and (c.half or not half)]
        results = run_harness(args.diff_eval, args.work, harnessed, half)
        for ci, c in enumerate(harnessed):
            label = "harness f16" if half else "harness f32"
            want, want_grads = reference(c, c.inputs, half)
            got = results[ci]
            if isinstance(got, str):
                check(label, c, f"the op refused the case: {got}", want, 0, 0)
                continue
            out, grads = got
            if half and c.out_dtype == "f32":
                out = to_half(out)
            rtol, atol = c.tol_half if half else c.tol
            check(label, c, out, want, rtol, atol)
            counts[label] += 1
            if half or not c.grad:
                continue
            for j, wg in enumerate(want_grads):
                if wg is None:
                    continue
                if grads[j] is None:
                    # An op without a gradient (floor, sign, …) agrees with a zero gradient.
                    if not np.all(np.nan_to_num(wg, nan=1.0) == 0):
                        failures.append(f"{c.name} [gradient of input {j}]: the op gives none, PyTorch does")
                    else:
                        counts["gradient f32"] += 1
                    continue
                check(f"gradient of input {j}", c, grads[j], wg, *c.tol_grad)
                counts["gradient f32"] += 1

    total = sum(counts.values())
    print(f"diff suite: {len(cases)} cases over {len(covered)} ops and layers; "
          + ", ".join(f"{v} {k}" for k, v in counts.items())
          + f"; {time.time() - start:.1f} s")
    for f in failures:
        print("DISAGREE " + f)
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
