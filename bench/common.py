"""Helpers shared by the benchmarks: Debian's torch, Fashion-MNIST IDX files, safetensors, iputrain."""
import gzip
import json
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FASHION = "/usr/share/datasets/fashion-mnist"
DEBIAN_PYTHON = "/usr/bin/python3"


def import_torch_or_exit(script):
    """Imports torch; re-runs the script under Debian's python (where python3-torch lives) if the
    current interpreter lacks it; exits 1 with a message if torch is nowhere (.ci/test installs it:
    a comparison that skips could never fail)."""
    try:
        import torch  # noqa: F401
        return torch
    except ImportError:
        pass
    if os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) and os.path.exists(DEBIAN_PYTHON):
        probe = subprocess.run([DEBIAN_PYTHON, "-c", "import torch"], capture_output=True)
        if probe.returncode == 0:
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(script)] + sys.argv[1:])
    print(f"{os.path.basename(script)}: PyTorch is not installed; install the Debian package python3-torch "
          "(.ci/test does)", file=sys.stderr)
    sys.exit(1)


def read_idx(path):
    """Returns (dims, bytes) of an IDX file of unsigned bytes, plain or gzipped."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return dims, data[4 + 4 * ndim:]


def fashion_mnist_raw(split, count):
    """First `count` samples of a split as (uint8 images [n, 28, 28], int64 labels) numpy arrays."""
    import numpy as np
    dims, images = read_idx(f"{FASHION}/{split}-images-idx3-ubyte.gz")
    _, labels = read_idx(f"{FASHION}/{split}-labels-idx1-ubyte.gz")
    n = min(count, dims[0])
    x = np.frombuffer(images, dtype=np.uint8)[: n * dims[1] * dims[2]].reshape(n, dims[1], dims[2])
    y = np.frombuffer(labels, dtype=np.uint8)[:n]
    return x, y.astype(np.int64)


def fashion_mnist(split, count):
    """First `count` samples of a split as (float32 images in [0,1], int64 labels) numpy arrays."""
    import numpy as np
    x, y = fashion_mnist_raw(split, count)
    return x.astype(np.float32) / np.float32(255.0), y


def write_safetensors(path, tensors):
    """Writes {name: float32 numpy array} in the safetensors format."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        blob = tensors[name].astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    """Reads a safetensors file of F32 tensors into {name: numpy array}."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4").reshape(info["shape"])
    return out


def iputrain_binary():
    path = os.environ.get("IPUTRAIN_BIN", os.path.join(ROOT, "build", "iputrain"))
    if not os.path.exists(path):
        sys.exit(f"iputrain binary not found at {path}: build first (bash .ci/setup) or set IPUTRAIN_BIN")
    return path


def run_iputrain(args):
    """Runs iputrain; returns its stdout, or exits with its stderr on failure."""
    proc = subprocess.run([iputrain_binary()] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"iputrain {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def mlp_init(seed=0, hidden=128):
    """Initial weights for the MNIST MLP, keyed by iputrain's parameter paths ([in, out] kernels)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    lim1 = np.sqrt(6 / (784 + hidden))
    lim2 = np.sqrt(6 / (hidden + 10))
    return {
        "features/dense/kernel": rng.uniform(-lim1, lim1, (784, hidden)).astype(np.float32),
        "features/dense/bias": rng.uniform(-0.1, 0.1, (hidden,)).astype(np.float32),
        "classifier/dense/kernel": rng.uniform(-lim2, lim2, (hidden, 10)).astype(np.float32),
        "classifier/dense/bias": rng.uniform(-0.1, 0.1, (10,)).astype(np.float32),
    }


def torch_mlp(torch, init):
    """The same MLP in PyTorch, loaded with `init` (torch Linear stores [out, in])."""
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, init["features/dense/bias"].shape[0]),
                                torch.nn.ReLU(), torch.nn.Linear(init["features/dense/bias"].shape[0], 10))
    with torch.no_grad():
        model[1].weight.copy_(torch.from_numpy(init["features/dense/kernel"].T.copy()))
        model[1].bias.copy_(torch.from_numpy(init["features/dense/bias"]))
        model[3].weight.copy_(torch.from_numpy(init["classifier/dense/kernel"].T.copy()))
        model[3].bias.copy_(torch.from_numpy(init["classifier/dense/bias"]))
    return model


def torch_weights(model):
    return {
        "features/dense/kernel": model[1].weight.detach().numpy().T,
        "features/dense/bias": model[1].bias.detach().numpy(),
        "classifier/dense/kernel": model[3].weight.detach().numpy().T,
        "classifier/dense/bias": model[3].bias.detach().numpy(),
    }
