"""The recurrent cases of the differential suite: the fused lstm and gru ops against the same
recurrences written step by step in PyTorch (whose autograd gives the reference gradients, so the
back-propagation through time is checked too), and the nn.lstm and nn.gru layers against
torch.nn.LSTM and torch.nn.GRU with the same weights, padded batches through packed sequences."""
import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from diff_cases import NAN, Case, i32, op_case, rand
from diff_layers import layer


def lstm_steps(xw, k, h0, c0, lengths):
    """lstm's output: per step the gates i, f, g, o, the cell and the hidden state."""
    u = k.shape[0]
    h, c, rows = h0, c0, []
    for s in range(xw.shape[1]):
        pre = xw[:, s] + h @ k
        i, f, g, o = (torch.sigmoid(pre[:, :u]), torch.sigmoid(pre[:, u:2 * u]), torch.tanh(pre[:, 2 * u:3 * u]),
                      torch.sigmoid(pre[:, 3 * u:]))
        valid = (s < lengths.long()).unsqueeze(1)
        c = torch.where(valid, f * c + i * g, c)
        h = torch.where(valid, o * torch.tanh(c), h)
        gates = torch.where(valid, torch.cat([i, f, g, o], 1), torch.zeros_like(pre))
        rows.append(torch.cat([gates, c, h], 1))
    return torch.stack(rows, 1)


def gru_steps(xw, k, rb, h0, lengths, reset_after=True):
    """gru's output: per step z, r, the candidate, its recurrent term and the hidden state."""
    u = k.shape[0]
    h, rows = h0, []
    for s in range(xw.shape[1]):
        x = xw[:, s]
        p = h @ k + rb
        z = torch.sigmoid(x[:, :u] + p[:, :u])
        r = torch.sigmoid(x[:, u:2 * u] + p[:, u:2 * u])
        if reset_after:
            n = p[:, 2 * u:]
            hh = torch.tanh(x[:, 2 * u:] + r * n)
        else:
            n = (r * h) @ k[:, 2 * u:] + rb[2 * u:]
            hh = torch.tanh(x[:, 2 * u:] + n)
        valid = (s < lengths.long()).unsqueeze(1)
        h = torch.where(valid, z * h + (1 - z) * hh, h)
        gates = torch.where(valid, torch.cat([z, r, hh, n], 1), torch.zeros(x.shape[0], 4 * u, dtype=x.dtype))
        rows.append(torch.cat([gates, h], 1))
    return torch.stack(rows, 1)


def op_cases():
    b, t, u = 3, 5, 4
    lengths = i32(5, 2, 0)
    xw = rand((b, t, 4 * u), 90)
    k = rand((u, 4 * u), 91, -0.6, 0.6)
    h0, c0 = rand((b, u), 92), rand((b, u), 93)
    edges = xw.copy()
    edges[0, 1, :4] = [80.0, -80.0, 1000.0, -1000.0]
    edges[1, 0, 0] = NAN  # spreads through sample 1 only
    gx = rand((b, t, 3 * u), 94)
    gk = rand((u, 3 * u), 95, -0.6, 0.6)
    rb = rand((3 * u,), 96)
    cases = [
        op_case("lstm lengths 5, 2, 0", "lstm", "lstm({0}, {1}, {2}, {3}, {4})", [xw, k, h0, c0, lengths], lstm_steps,
                tol=(2e-5, 2e-6), half=False),
        Case("lstm saturated and nan", "lstm", "lstm({0}, {1}, {2}, {3}, {4})", [edges, k, h0, c0, lengths],
             lstm_steps, grad=False, half=False, tol=(2e-5, 2e-6)),
    ]
    for reset_after in (1, 0):
        cases.append(op_case(f"gru reset_after {reset_after}", "gru",
                             f"gru({{0}}, {{1}}, {{2}}, {{3}}, {{4}}, reset_after = {reset_after})",
                             [gx, gk, rb, h0, lengths],
                             lambda *a, ra=reset_after: gru_steps(*a, reset_after=bool(ra)),
                             attrs={"reset_after": reset_after}, tol=(2e-5, 2e-6), half=False))
    return cases


def torch_rnn(cell, x, lengths, weights, order):
    """Runs torch.nn.LSTM / GRU (batch first) with Keras-layout weights; `order` maps Keras' gate
    blocks to PyTorch's. Returns (padded outputs, final states)."""
    c = x.shape[2]
    kernel, recurrent = (torch.from_numpy(weights[0]), torch.from_numpy(weights[1]))
    u = recurrent.shape[0]
    rnn = cell(c, u, batch_first=True)

    def reorder(m):
        return torch.cat([m[..., g * u:(g + 1) * u] for g in order], -1)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(reorder(kernel).T)
        rnn.weight_hh_l0.copy_(reorder(recurrent).T)
        bias = torch.from_numpy(weights[2])
        if bias.dim() == 2:
            rnn.bias_ih_l0.copy_(reorder(bias[0]))
            rnn.bias_hh_l0.copy_(reorder(bias[1]))
        else:
            rnn.bias_ih_l0.copy_(reorder(bias))
            rnn.bias_hh_l0.zero_()
    packed = pack_padded_sequence(x, lengths.long(), batch_first=True, enforce_sorted=False)
    out, state = rnn(packed)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return out, state


def layer_cases():
    x = rand((3, 6, 5), 100)
    lengths = i32(6, 4, 1)
    lk, lr, lb = rand((5, 16), 101, -0.5, 0.5), rand((4, 16), 102, -0.5, 0.5), rand((16,), 103)
    gk, gr, gb = rand((5, 12), 104, -0.5, 0.5), rand((4, 12), 105, -0.5, 0.5), rand((2, 12), 106)
    gb1 = rand((12,), 107)
    lw = {"lstm/kernel": lk, "lstm/recurrent_kernel": lr, "lstm/bias": lb}
    gw = {"gru/kernel": gk, "gru/recurrent_kernel": gr, "gru/bias": gb}
    lstm = (torch.nn.LSTM, [0, 1, 2, 3])  # Keras i, f, c, o = PyTorch i, f, g, o
    gru = (torch.nn.GRU, [1, 0, 2])       # Keras z, r, h; PyTorch r, z, n
    tol = (2e-5, 2e-6)

    def run(kind, weights, pick):
        return lambda a, n: pick(*torch_rnn(kind[0], a, n, weights, kind[1]), n)

    def last(out, n):
        return out[torch.arange(out.shape[0]), n.long() - 1]

    def gru_plain(a, n):
        xw = a @ torch.from_numpy(gk) + torch.from_numpy(gb1)
        h = gru_steps(xw, torch.from_numpy(gr), torch.zeros(12), torch.zeros(3, 4), n, reset_after=False)[:, :, 16:]
        return last(h, n)
    return [
        layer("nn.lstm sequences with lengths", "nn.lstm({0}, 4, return_sequences = true, lengths = {1})",
              [x, lengths], run(lstm, [lk, lr, lb], lambda o, s, n: o), weights=lw, tol=tol),
        layer("nn.lstm final c", "nn.lstm({0}, 4, return_state = true, lengths = {1})[2]", [x, lengths],
              run(lstm, [lk, lr, lb], lambda o, s, n: s[1][0]), weights=lw, tol=tol),
        layer("nn.lstm last output", "nn.lstm({0}, 4)", [x], lambda a: torch_rnn(
            torch.nn.LSTM, a, torch.full((3,), 6), [lk, lr, lb], [0, 1, 2, 3])[1][0][0], weights=lw, tol=tol),
        layer("nn.gru sequences with lengths", "nn.gru({0}, 4, return_sequences = true, lengths = {1})",
              [x, lengths], run(gru, [gk, gr, gb], lambda o, s, n: o), weights=gw, tol=tol),
        layer("nn.gru final state", "nn.gru({0}, 4, return_state = true, lengths = {1})[1]", [x, lengths],
              run(gru, [gk, gr, gb], lambda o, s, n: s[0]), weights=gw, tol=tol),
        layer("nn.gru reset_before", "nn.gru({0}, 4, lengths = {1}, reset_after = false)", [x, lengths], gru_plain,
              weights={"gru/kernel": gk, "gru/recurrent_kernel": gr, "gru/bias": gb1}, tol=tol),
        # Keras' go_backwards: the steps last to first, the outputs in that (processing) order.
        layer("nn.lstm go_backwards sequences", "nn.lstm({0}, 4, return_sequences = true, go_backwards = true)",
              [x], lambda a: torch_rnn(torch.nn.LSTM, a.flip(1), torch.full((3,), 6), [lk, lr, lb],
                                       [0, 1, 2, 3])[0], weights=lw, tol=tol),
        layer("nn.gru go_backwards final state", "nn.gru({0}, 4, return_state = true, go_backwards = true)[1]",
              [x], lambda a: torch_rnn(torch.nn.GRU, a.flip(1), torch.full((3,), 6), [gk, gr, gb], [1, 0, 2])[1][0],
              weights=gw, tol=tol),
    ] + augru_cases(x, lengths, gk, gr, gb, gb1, tol)


def augru_ref(kernel, recurrent, bias, reset_after, sequences, act=torch.tanh, ract=torch.sigmoid):
    """DIEN's attention-update GRU step by step (Keras' gates z, r, h; the keep gate z scaled by
    1 - attention; attention None: a GRU), written from the definition; steps at or past a sample's
    length keep h."""
    def ref(x, att, n):
        k, rk, b = (torch.from_numpy(a).double() for a in (kernel, recurrent, bias))
        u = rk.shape[0]
        xw = x.double() @ k + (b[0] if reset_after else b)
        rb = b[1] if reset_after else torch.zeros(3 * u, dtype=torch.float64)
        h = torch.zeros(x.shape[0], u, dtype=torch.float64)
        outs = []
        for s in range(x.shape[1]):
            p = h @ rk + rb
            z = ract(xw[:, s, :u] + p[:, :u])
            r = ract(xw[:, s, u:2 * u] + p[:, u:2 * u])
            hh = act(xw[:, s, 2 * u:] + (r * p[:, 2 * u:] if reset_after else (r * h) @ rk[:, 2 * u:]))
            z = z if att is None else (1 - att[:, s:s + 1].double()) * z
            keep = (n.double() > s)[:, None].double()
            h = keep * (z * h + (1 - z) * hh) + (1 - keep) * h
            outs.append(h * keep)
        return (torch.stack(outs, 1) if sequences else h).float()
    return ref


def lstm_ref(kernel, recurrent, bias, act, ract):
    """The LSTM recurrence step by step in double (Keras' gates i, f, c, o) with other activations;
    the last c. Steps at or past a sample's length keep the state."""
    def ref(x, n):
        k, rk, b = (torch.from_numpy(a).double() for a in (kernel, recurrent, bias))
        u = rk.shape[0]
        xw = x.double() @ k + b
        h = torch.zeros(x.shape[0], u, dtype=torch.float64)
        c = torch.zeros_like(h)
        for s in range(x.shape[1]):
            z = xw[:, s] + h @ rk
            keep = (n.double() > s)[:, None].double()
            c_new = ract(z[:, u:2 * u]) * c + ract(z[:, :u]) * act(z[:, 2 * u:3 * u])
            h = keep * ract(z[:, 3 * u:]) * act(c_new) + (1 - keep) * h
            c = keep * c_new + (1 - keep) * c
        return c.float()
    return ref


def hard_sigmoid(t):
    return torch.clamp(0.2 * t + 0.5, 0.0, 1.0)


def augru_cases(x, lengths, gk, gr, gb, gb1, tol):
    lk, lr, lb = rand((5, 16), 101, -0.5, 0.5), rand((4, 16), 102, -0.5, 0.5), rand((16,), 103)
    other = [
        layer("nn.gru with relu and hard_sigmoid",
              "nn.gru({0}, 4, return_sequences = true, lengths = {1}, activation = relu, "
              "recurrent_activation = hard_sigmoid)",
              [x, lengths], lambda a, n: augru_ref(gk, gr, gb, True, True, torch.relu, hard_sigmoid)(a, None, n),
              weights={"gru/kernel": gk, "gru/recurrent_kernel": gr, "gru/bias": gb}, tol=tol),
        layer("nn.lstm with softsign", "nn.lstm({0}, 4, return_state = true, lengths = {1}, activation = softsign)[2]",
              [x, lengths], lstm_ref(lk, lr, lb, torch.nn.functional.softsign, torch.sigmoid),
              weights={"lstm/kernel": lk, "lstm/recurrent_kernel": lr, "lstm/bias": lb}, tol=tol),
    ]
    return other + augru_only(x, lengths, gk, gr, gb, gb1, tol)


def augru_only(x, lengths, gk, gr, gb, gb1, tol):
    att = rand((3, 6), 108, 0, 1)
    att[0, 2] = 0.0
    att[1, 0] = 1.0
    return [
        layer("nn.augru sequences with lengths", "nn.augru({0}, {1}, 4, return_sequences = true, lengths = {2})",
              [x, att, lengths], augru_ref(gk, gr, gb1, False, True),
              weights={"augru/kernel": gk, "augru/recurrent_kernel": gr, "augru/bias": gb1}, tol=tol),
        layer("nn.augru reset_after final state", "nn.augru({0}, {1}, 4, return_state = true, lengths = {2}, reset_after = true)[1]",
              [x, att, lengths], augru_ref(gk, gr, gb, True, False),
              weights={"augru/kernel": gk, "augru/recurrent_kernel": gr, "augru/bias": gb}, tol=tol),
    ]


# The recurrent layers' helpers, reached through the layer cases.
STDLIB_COVERED_BY = {
    "nn.rnn_states": "nn.lstm and nn.gru cases (zero initial states)",
    "nn.rnn_lengths": "nn.lstm and nn.gru cases, with and without lengths",
    "nn.rnn_flag": "nn.gru cases, reset_after true and false",
    "nn.rnn_output": "nn.lstm and nn.gru cases, sequences and last outputs",
    "nn.lstm_loop": "the nn.lstm case with another activation (a loop over the cell)",
    "nn.lstm_steps": "nn.lstm(unroll = true): the same bits as nn.lstm_loop (tests/engine/loop_test.cpp)",
    "nn.gru_loop": "the nn.augru cases and the nn.gru case with other activations (a loop over the cell)",
    "nn.gru_steps": "nn.gru and nn.augru with unroll = true (tests/engine/loop_test.cpp: within rounding of the loop)",
    "nn.rnn_input": "the go_backwards cases of nn.lstm and nn.gru (its refusals: tests/engine/stateful_rnn_test.cpp)",
    "nn.rnn_carry": "stateful layers, whose states cross micro-batches: tests/engine/stateful_rnn_test.cpp",
}


def all_cases():
    return op_cases() + layer_cases()


_ = np
