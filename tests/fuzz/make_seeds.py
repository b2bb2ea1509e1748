#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (corpus/<target>/) and dictionaries (<target>.dict) from
the project's own inputs: the example and test models and configs, the grammar's literals, the
config keys of docs/config.md, and small valid files of every data format (written here with the
standard library, NumPy, and libjpeg through a throwaway C++ program for the JPEG seed).

Binary seeds start with the harness's selector byte (and, where a harness cuts its payload in two,
two big-endian bytes giving the cut): see fuzz_input.hpp. Run from anywhere; commit the output."""
import glob
import io
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def corpus(target):
    path = os.path.join(HERE, "corpus", target)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def put(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def cut(first, second, selector=0):
    return bytes([selector]) + struct.pack(">H", len(first)) + first + second


def text_seeds():
    d = corpus("model")
    for p in sorted(glob.glob(f"{ROOT}/examples/**/*.ipu", recursive=True) + glob.glob(f"{ROOT}/tests/frontend/*/*.ipu")
                    + glob.glob(f"{ROOT}/stdlib/*.ipu") + glob.glob(f"{ROOT}/bench/models/*.ipu")):
        put(d, os.path.relpath(p, ROOT).replace("/", "_"), open(p, "rb").read())
    d = corpus("config")
    for p in sorted(glob.glob(f"{ROOT}/configs/*.toml") + glob.glob(f"{ROOT}/tests/config/**/*.toml", recursive=True)):
        put(d, os.path.relpath(p, ROOT).replace("/", "_"), open(p, "rb").read())
    d = corpus("set")
    put(d, "sets", "optimizer.learning_rate=0.01\npipeline.schedule=\"interleaved\"\nipu.auto_select_ipus=4\n")
    put(d, "arrays", "pipeline.device_mapping=[0,1,1,0]\nipu.select_ipus=[0, 1]\n")
    put(d, "tables", "ipu.matmuls.poplar_options={availableMemoryProportion=\"0.3\"}\ndata.batch_size=16\n")
    put(d, "bad", "nosuch.key=1\noptimizer.type=adam\ntraining.steps=-1\n")
    d = corpus("repl")
    put(d, "inspect", "show plan\nshow config\nshow model\nshow ir\nshow stage a\nshow ipu 1\nmemory\nmemory ipu 0\n"
                      "schedule\nweights\nhelp\nhelp set\n")
    put(d, "change", "set pipeline.schedule=\"interleaved\"\ndiff\nunset pipeline.schedule\nexplain data.batch_size\n"
                     "sweep data.batch_size=2,4 pipeline.gradient_accumulation_count=4,8\nset ipu.auto_select_ipus=4\n")
    put(d, "bad", "show nothing\nmemory ipu 9\nset =\nunset\nfrobnicate\nweights nosuch\n")


def safetensors(tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    for name, (dtype, arr) in sorted(tensors.items()):
        blob = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def npy(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def binary_seeds():
    x = np.arange(12, dtype="<f4").reshape(3, 2, 2)
    label = np.array([0, 1, 2], dtype="<i4")
    d = corpus("safetensors")
    put(d, "data", bytes([0]) + safetensors({"x": ("F32", x), "label": ("I32", label)}))
    put(d, "f16", bytes([4]) + safetensors({"x": ("F16", x.astype("<f2").reshape(3, 1, 2, 2)), "label": ("I32", label)}))
    put(d, "weights", bytes([1]) + safetensors({"dense/kernel": ("F32", x.reshape(3, 4))}, {"model": "m", "step": "3"}))
    d = corpus("checkpoint")
    meta = {"format": "iputrain-checkpoint", "format_version": "1", "model": "m", "step": "100",
            "optimizer": "momentum", "optimizer_state_slots": "1", "loss_scale": "1", "loss_scale_good_steps": "0",
            "loss_scale_skipped": "0", "seed": "1", "data_seed": "1", "shuffle": "true", "global_batch": "8",
            "micro_batch": "8", "samples": "800", "config_hash": "0123456789abcdef"}
    put(d, "checkpoint", safetensors({"dense/kernel": ("F32", x.reshape(3, 4)),
                                       "optimizer/0/dense/kernel": ("F32", x.reshape(3, 4))}, meta))
    put(d, "weights", safetensors({"dense/kernel": ("F32", x.reshape(3, 4))}, {"format": "iputrain", "model": "m", "step": "3"}))
    d = corpus("npy")
    put(d, "f32", cut(npy(x), npy(label), 0))
    put(d, "f64", cut(npy(x.astype("<f8").reshape(3, 4)[:, :3]), npy(label.astype("<f4")), 1))
    put(d, "bool", cut(npy(np.array([[True, False]] * 3)), npy(label.astype("<i8")), 3))
    put(d, "u8", cut(npy(np.arange(3, dtype="u1")), b"", 5))
    d = corpus("npz")
    for name, compress, sel in (("stored", np.savez, 0), ("deflated", np.savez_compressed, 0), ("half", np.savez, 4)):
        buf = io.BytesIO()
        xs = x if sel == 0 else x.astype("<f2").reshape(3, 1, 2, 2)
        compress(buf, x=xs, label=label)
        put(d, name, bytes([sel]) + buf.getvalue())
    d = corpus("csv")
    put(d, "plain", bytes([0]) + b"x.0,x.1,x.2,x.3,label\n1,2,3,4,0\n5,6,7,8.5,1\n")
    put(d, "quoted", bytes([1]) + b'"x.0","x.1","x.2",label,extra\n1e-3,-2,3,0.5,"a,b"\n')
    put(d, "bool", bytes([3]) + b"x.0,x.1,label\ntrue,false,1\n1,0,2\n")
    d = corpus("jsonl")
    put(d, "plain", bytes([0]) + b'{"x": [[1, 2], [3, 4.5]], "label": 0}\n{"label": 1, "x": [[5, 6e-1], [-7, 8]], "id": "b"}\n')
    put(d, "bool", bytes([3]) + b'{"x": [true, 0], "label": 2}\r\n\n{"x": [false, 1], "label": 3}\n')
    put(d, "half", bytes([4]) + b'\xef\xbb\xbf{"x": [[[0.5, 1], [2, 3]]], "label": 7}\n')
    put(d, "no_model", bytes([128]) + b'{"a": [[1, 2, 3]], "b": 4, "c": true}\n{"a": [[4, 5, 6]], "b": 7, "c": false}\n')
    d = corpus("text")
    licence = open("/usr/share/common-licenses/GPL-3", "rb").read()[:600]
    put(d, "licence", bytes([8]) + licence)
    put(d, "short", bytes([4]) + b"hello\n\tworld \xc3\xa9")
    d = corpus("idx")
    images = struct.pack(">HBBIII", 0, 8, 3, 3, 4, 4) + bytes(range(48))
    labels = struct.pack(">HBBI", 0, 8, 1, 3) + bytes([0, 1, 9])
    put(d, "plain", cut(images, labels, 0))
    put(d, "gzip", cut(zlib.compress(images, wbits=31), zlib.compress(labels, wbits=31), 1))
    put(d, "f16", cut(images, labels, 2))
    d = corpus("images")
    png = png_bytes(4, 4, 1) 
    jpg = jpeg_bytes()
    put(d, "grey", cut(png, jpg, 4 - 1))
    put(d, "rgb_resize", cut(png_bytes(5, 3, 3), jpg, 3 | 8 | 16 | 32))
    put(d, "nearest", cut(png_bytes(2, 2, 4), jpg, 7 | 64))


def png_bytes(w, h, channels):
    colour = {1: 0, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + bytes((x * 40 + y * 7 + c) % 256 for x in range(w) for c in range(channels)) for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def jpeg_bytes():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "j.cpp")
        with open(src, "w") as f:
            f.write('#include <vector>\n#include <cstdint>\n#include <string>\n#include <stdexcept>\n'
                    f'#include "{ROOT}/tests/data/image_writer.hpp"\n'
                    'int main(int, char** argv) { std::vector<uint8_t> p(8 * 8 * 3);\n'
                    '  for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t(i * 5);\n'
                    '  iputrain::test::write_jpeg(argv[1], 8, 8, 3, p); }\n')
        exe = os.path.join(tmp, "j")
        subprocess.run(["g++", "-std=c++20", src, "-o", exe, "-ljpeg", "-lpng"], check=True)
        out = os.path.join(tmp, "x.jpg")
        subprocess.run([exe, out], check=True)
        return open(out, "rb").read()


def dictionaries():
    grammar = open(f"{ROOT}/grammar/IpuLang.g4").read()
    words = sorted(set(re.findall(r"'([^'\\]{1,12})'", grammar)))
    words += ["import nn", "nn.dense", "nn.conv2d", "f32[", "i32[", "stage", "minimize", "for i in 0..", "param"]
    with open(os.path.join(HERE, "model.dict"), "w") as f:
        f.write("# The model language's literals (grammar/IpuLang.g4) and common phrases.\n")
        f.writelines(f"{json.dumps(w)}\n" for w in words)
    keys = sorted(set(re.findall(r"^\| `([a-z_.]+)` \|", open(f"{ROOT}/docs/config.md").read(), re.M)))
    sections = sorted({k.split(".")[0] for k in keys})
    for name in ("config", "set"):
        with open(os.path.join(HERE, f"{name}.dict"), "w") as f:
            f.write("# Config keys (docs/config.md) and sections.\n")
            f.writelines(f"{json.dumps(k.split('.', 1)[1] if name == 'config' and '.' in k else k)}\n" for k in keys)
            f.writelines(f"{json.dumps('[' + s + ']')}\n" for s in sections)
            f.writelines(f"{json.dumps(w)}\n" for w in ("=", "true", "false", "[", "]", "{", "}", "\"", "extends"))


if __name__ == "__main__":
    text_seeds()
    binary_seeds()
    dictionaries()
    print("seeds: " + ", ".join(f"{t} {len(os.listdir(os.path.join(HERE, 'corpus', t)))}"
                                for t in sorted(os.listdir(os.path.join(HERE, "corpus")))))
