#!/usr/bin/env python3
"""Makes the small data sets of the recurrent and speech zoo models (examples/zoo/data/*.npz).

  make_data.py [--check]     writes the files (--check: exits 1 if a shipped file differs)

Deterministic (fixed seeds, texts from Debian's base-files), so the shipped files can be remade:

  licences_{train,test}.npz  examples/zoo/lstm_classifier: word-aligned windows of 16 to 48 characters
                             of four licence texts (Apache-2.0, GPL-3, MPL-2.0, Artistic), the label
                             is the licence; `tokens` u8[n, 48] (printable ASCII -> 1..95, 0 pads),
                             `lengths` i32[n], `label` i32[n]. The texts are cut in blocks of 500
                             characters: test windows come from every fifth block, train windows
                             from the others.
  words_{train,test}.npz     examples/zoo/gru_tagger: 32 letters of a licence text with the spaces
                             and line breaks removed; each letter is tagged 1 if it begins a word, 2 if
                             it is punctuation or a digit, else 0 (word segmentation): `tokens` u8[n, 32],
                             `tags` u8[n, 32]. GPL-3 for training, GPL-2 for the test.
  speech_{train,test}.npz    examples/zoo/conformer: synthetic "utterances" of 2 to 5 symbols (1..6;
                             0 is CTC's blank; never the same symbol twice in a row), each held 2 to 5
                             frames of its own 16-feature prototype plus noise, sometimes a silent gap,
                             zero frames after the end, stored in eighths (the model divides by 8):
                             `features` i8[n, 48, 16], `feature_lengths` i32[n] (after the model's
                             stride-2 subsampling: ceil(frames / 2)), `labels` i32[n, 5] (0 pads),
                             `label_lengths` i32[n] (never 0)."""
import io
import os
import sys

try:
    import numpy as np
except ImportError:  # CTest's python may lack NumPy: Debian's has it (with torch, for the zoo)
    if os.path.realpath(sys.executable) == os.path.realpath("/usr/bin/python3"):
        raise
    os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
LICENCES = "/usr/share/common-licenses"


def text(name):
    with open(os.path.join(LICENCES, name), "rb") as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8).copy()
    raw[(raw == 10) | (raw == 9) | (raw == 13)] = 32
    return raw


def char_ids(raw):
    """Printable ASCII 32..126 -> 1..95, anything else -> 1 (a space)."""
    return np.where((raw >= 32) & (raw <= 126), raw - 31, 1).astype(np.uint8)


def licences(rng):
    names = ["Apache-2.0", "GPL-3", "MPL-2.0", "Artistic"]
    width = 48
    out = {}
    for part, per_class in (("train", 2000), ("test", 100)):
        tokens, lengths, labels = [], [], []
        for label, name in enumerate(names):
            raw = text(name)
            # Blocks of 500 characters: every fifth is the test's, the others the training's.
            starts = [i for i in range(1, len(raw) - width) if raw[i - 1] == 32 and raw[i] != 32
                      and ((i + width) // 500 % 5 == 4) == (part == "test") and i // 500 == (i + width) // 500]
            for start in rng.choice(starts, per_class, replace=len(starts) < per_class):
                n = int(rng.integers(16, width + 1))
                window = np.zeros(width, np.uint8)
                window[:n] = char_ids(raw[start:start + n])
                tokens.append(window)
                lengths.append(n)
                labels.append(label)
        order = rng.permutation(len(labels))
        out[part] = {"tokens": np.stack(tokens)[order], "lengths": np.array(lengths, np.int32)[order],
                     "label": np.array(labels, np.int32)[order]}
    return out


def words(rng):
    seq = 32
    out = {}
    for part, name, count in (("train", "GPL-3", 1200), ("test", "GPL-2", 200)):
        raw = text(name)
        letters, tags = [], []
        begin = True
        for ch in raw:
            if ch == 32:
                begin = True
                continue
            c = chr(ch).lower()
            letters.append(ord(c) - 96 if "a" <= c <= "z" else 27 + (ord(c) % 5))
            tags.append(2 if not c.isalpha() else 1 if begin else 0)
            begin = not c.isalpha()
        letters, tags = np.array(letters, np.uint8), np.array(tags, np.uint8)
        starts = rng.integers(0, len(letters) - seq, count)
        out[part] = {"tokens": np.stack([letters[s:s + seq] for s in starts]),
                     "tags": np.stack([tags[s:s + seq] for s in starts])}
    return out


def speech(rng):
    frames, features, symbols, max_labels = 48, 16, 6, 5
    prototypes = rng.normal(0.0, 1.0, (symbols + 1, features)).astype(np.float32)
    out = {}
    for part, count in (("train", 640), ("test", 160)):
        x = np.zeros((count, frames, features), np.float32)
        labels = np.zeros((count, max_labels), np.int32)
        label_lengths = np.zeros(count, np.int32)
        feature_lengths = np.zeros(count, np.int32)
        for i in range(count):
            n = int(rng.integers(2, max_labels + 1))
            seq = [int(rng.integers(1, symbols + 1))]
            while len(seq) < n:  # no symbol twice in a row: the subsampled frames always fit CTC
                s = int(rng.integers(1, symbols + 1))
                if s != seq[-1]:
                    seq.append(s)
            t = int(rng.integers(0, 3))  # leading silence
            for s in seq:
                if rng.random() < 0.3:
                    t += 1  # a silent gap
                hold = int(rng.integers(2, 6))
                x[i, t:t + hold] = prototypes[s]
                t += hold
            t += int(rng.integers(0, 3))
            x[i, :t] += rng.normal(0.0, 0.3, (t, features)).astype(np.float32)
            labels[i, :n] = seq
            label_lengths[i] = n
            feature_lengths[i] = (t + 1) // 2
        out[part] = {"features": np.clip(np.round(x * 8), -127, 127).astype(np.int8),
                     "feature_lengths": feature_lengths, "labels": labels,
                     "label_lengths": label_lengths}
    return out


def archive(arrays):
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def main():
    check = sys.argv[1:] == ["--check"]
    os.makedirs(DATA, exist_ok=True)
    stale = []
    for stem, make, seed in (("licences", licences, 1), ("words", words, 2), ("speech", speech, 3)):
        for part, arrays in make(np.random.default_rng(seed)).items():
            path = os.path.join(DATA, f"{stem}_{part}.npz")
            if check:
                with np.load(path) as old:
                    if sorted(old.files) != sorted(arrays) or any(not np.array_equal(old[k], v)
                                                                  for k, v in arrays.items()):
                        stale.append(path)
            else:
                with open(path, "wb") as f:
                    f.write(archive(arrays))
                print(f"{path}: " + ", ".join(f"{k} {v.dtype}{list(v.shape)}" for k, v in arrays.items()))
    if stale:
        print("stale (remake with examples/zoo/make_data.py):\n  " + "\n  ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
