#!/usr/bin/env python3
"""Adafactor (Shazeer & Stern 2018, Algorithms 4/5, update clipping and relative step) in NumPy
float64, written from the paper, for tests/engine/optim_test.cpp: prints the weights after each
update of the cases the test runs. Run: /usr/bin/python3 tests/engine/adafactor_reference.py"""
import numpy as np


def adafactor(w0, grads, lrs, grad_scale, beta2_decay=-0.8, eps1=1e-30, eps2=1e-3, d=1.0, beta1=0.0,
              wd=0.0, relative_step=True, scale_parameter=True):
    w = np.array(w0, dtype=np.float64)
    factored = w.ndim >= 2
    if factored:
        R = np.zeros(w.shape[:-1])           # row averages of the squared gradients
        C = np.zeros(w.shape[:-2] + w.shape[-1:])  # column averages
    else:
        V = np.zeros(w.shape)
    M = np.zeros(w.shape)
    out = []
    for t, (g, lr) in enumerate(zip(grads, lrs), start=1):
        g = grad_scale * np.array(g, dtype=np.float64).reshape(w.shape)
        b2 = 1.0 - t ** beta2_decay
        G2 = g * g + eps1
        if factored:
            # Paper: R <- b2 R + (1 - b2) (G2) 1_m, C <- b2 C + (1 - b2) 1_n^T G2, V = R C / (1_n^T R).
            R = b2 * R + (1 - b2) * G2.sum(axis=-1)
            C = b2 * C + (1 - b2) * G2.sum(axis=-2)
            Vhat = R[..., :, None] * C[..., None, :] / R.sum(axis=-1)[..., None, None]
        else:
            V = b2 * V + (1 - b2) * G2
            Vhat = V
        U = g / np.sqrt(Vhat)
        U = U / max(1.0, np.sqrt(np.mean(U * U)) / d)
        rho = min(lr, 1.0 / np.sqrt(t)) if relative_step else lr
        alpha = rho * (max(eps2, np.sqrt(np.mean(w * w))) if scale_parameter else 1.0)
        step = alpha * U
        if beta1 > 0:
            M = beta1 * M + (1 - beta1) * step
            step = M
        w = w - wd * alpha * w - step
        out.append(w.copy())
    return out


def show(name, ws):
    print(f"// {name}")
    for w in ws:
        print("{" + ", ".join(f"{x:.17g}" for x in w.ravel()) + "},")


matrix = [[0.5, -1.25, 2.0, 0.0], [-0.03, 0.75, 1e-3, 0.4], [1.5, -0.2, 0.3, -0.9]]
mgrads = [[0.1, -0.2, 0.05, 0.0, 1.5, -0.7, 3e-4, 0.2, -0.1, 0.6, 0.0, 0.3],
          [-0.3, -0.1, 0.2, 0.0, 0.9, 0.4, -2e-4, -0.5, 0.2, 0.1, 0.0, -0.3],
          [0.25, 0.15, -0.6, 0.0, -1.1, 0.05, 1e-4, 0.3, 0.4, -0.2, 0.0, 0.1]]
vector = [0.5, -1.25, 2.0, 0.0, -0.03]
vgrads = [[0.1, -0.2, 0.05, 0.0, 1.5], [-0.3, -0.1, 0.2, 0.0, 0.9], [0.25, 0.15, -0.6, 0.0, -1.1]]
lrs = [0.1, 0.05, 0.02]
show("matrix, defaults", adafactor(matrix, mgrads, lrs, 0.5))
show("vector, defaults", adafactor(vector, vgrads, lrs, 0.5))
show("matrix, beta1 0.9, weight_decay 0.1, clip_threshold 0.5, fixed step, no parameter scale",
     adafactor(matrix, mgrads, lrs, 0.5, beta1=0.9, wd=0.1, d=0.5, relative_step=False, scale_parameter=False))
batched = np.array(matrix * 2).reshape(2, 3, 4) * np.array([1.0, -0.5]).reshape(2, 1, 1)
show("2 x 3 x 4, defaults", adafactor(batched, [np.array(g * 2) for g in mgrads], lrs, 1.0))
