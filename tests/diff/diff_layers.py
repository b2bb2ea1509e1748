"""The stdlib layers' cases of the differential suite: activations, losses and nn layers through
`iputrain predict`, each in a model of its own (so its weights have their plain scope paths), with
the weights given in a safetensors file and the same weights in the PyTorch reference."""
import numpy as np
import torch
import torch.nn.functional as F

from diff_cases import F32_EDGES, NAN, Case, ctc_loss_ref, f32, i32, rand


def layer(name, expr, inputs, ref, **kw):
    kw.setdefault("tol", (1e-5, 1e-5))
    kw.setdefault("tol_half", (4e-3, 2e-3))
    return Case(f"stdlib {name}", "stdlib." + name.split()[0], expr, inputs, ref, grad=False,
                group="stdlib " + name, **kw)


ACTIVATIONS = {
    "identity": lambda x: x * 1.0,
    "relu": torch.relu,
    "gelu": F.gelu,
    "swish": F.silu,
    "relu6": F.relu6,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": F.elu,
    "selu": F.selu,
    "softplus": F.softplus,
    # The primitive's rule: ±1 at ±inf, where PyTorch's x / (1 + |x|) gives nan.
    "softsign": lambda x: torch.where(torch.isinf(x), torch.sign(x),
                                      F.softsign(torch.where(torch.isinf(x), torch.zeros_like(x), x))),
    "mish": F.mish,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "hard_sigmoid": lambda x: torch.clamp(0.2 * x + 0.5, 0.0, 1.0),
    "softmax": lambda x: torch.softmax(x, -1),
    "log_softmax": lambda x: torch.log_softmax(x, -1),
}


def activation_cases():
    edges = f32(*F32_EDGES)
    cases = []
    for name, ref in ACTIVATIONS.items():
        x = edges if name not in ("softmax", "log_softmax") else rand((3, 5), 1, -3, 3)
        cases.append(layer(f"activations.{name}", f"activations.{name}({{0}})", [x], ref))
    return cases


def loss_cases():
    p = rand((3, 4), 2, 0.05, 0.95)
    t = rand((3, 4), 3, 0, 1)
    logits = rand((3, 4), 4, -3, 3)
    ctc_inputs = [rand((2, 5, 4), 5, -3, 3), i32(0, 2, 1, 1, 1, 0).reshape(2, 3), i32(5, 4), i32(3, 2)]
    return [
        layer("losses.mse", 'losses.mse({0}, {1}, reduction = "none")', [logits, t], lambda a, b: (a - b) ** 2),
        layer("losses.mae", 'losses.mae({0}, {1}, reduction = "none")', [logits, t], lambda a, b: (a - b).abs()),
        layer("losses.binary_cross_entropy", 'losses.binary_cross_entropy({0}, {1}, reduction = "none")',
              [np.concatenate([p, f32(0, 1, 1e-9, 1 - 1e-9).reshape(1, 4)]), np.concatenate([t, f32(0, 1, 1, 0).reshape(1, 4)])],
              lambda a, b: F.binary_cross_entropy(a.clamp(1e-7, 1 - 1e-7), b, reduction="none"), tol=(1e-4, 1e-5),
              half=False),  # its epsilon, 1e-7, is below half's resolution next to 1
        layer("losses.sigmoid_cross_entropy", 'losses.sigmoid_cross_entropy({0}, {1}, reduction = "none")',
              [logits, t], lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction="none")),
        layer("losses.sparse_softmax_cross_entropy", 'losses.sparse_softmax_cross_entropy({0}, {1}, reduction = "none")',
              [logits, i32(3, 0, 2)], lambda a, b: F.cross_entropy(a, b.long(), reduction="none")),
        layer("losses.dense_softmax_cross_entropy", 'losses.dense_softmax_cross_entropy({0}, {1}, reduction = "none")',
              [logits, torch.softmax(torch.from_numpy(t), -1).numpy()],
              lambda a, b: -(b * torch.log_softmax(a, -1)).sum(-1)),
        layer("losses.mean reduction", "losses.mse({0}, {1})", [logits, t], lambda a, b: ((a - b) ** 2).mean()),
        layer("losses.ctc", 'losses.ctc({0}, {1}, {2}, {3}, blank = 3, reduction = "none")', ctc_inputs,
              ctc_loss_ref(3)),
        # "mean" is the batch mean, not PyTorch's (which divides each loss by its label length first).
        layer("losses.ctc mean", "losses.ctc({0}, {1}, {2}, {3}, blank = 3)", ctc_inputs,
              lambda *a: ctc_loss_ref(3)(*a).mean()),
    ] + sampled_loss_cases()


def sampled_ref(kind, num_sampled, remove):
    """The sampled losses from a given draw (`sampled`: rows of class and log expected count, the
    drawn classes first, then the true ones), as the seed's _compute_sampled_logits builds them."""
    def ref(w, b, labels, x, s):
        ids = s[:num_sampled, 0].long()
        log_q = s[:, 1]
        batch, t = labels.shape
        lab = labels.long()
        true_logits = (w[lab] * x[:, None, :]).sum(-1) + b[lab] - log_q[num_sampled:].reshape(batch, t)
        other = x @ w[ids].T + b[ids] - log_q[:num_sampled]
        if remove:
            hits = (lab[:, :, None] == ids[None, None, :]).any(1)
            other = torch.where(hits, torch.full_like(other, -60000.0), other)
        logits = torch.cat([true_logits, other], 1)
        targets = torch.cat([torch.full((batch, t), 1.0 / t), torch.zeros(batch, num_sampled)], 1)
        if kind == "softmax":
            return -(targets * torch.log_softmax(logits, -1)).sum(-1)
        return F.binary_cross_entropy_with_logits(logits, targets, reduction="none").sum(-1)
    return ref


def sampled_loss_cases():
    w, b, x = rand((8, 4), 70), rand((8,), 71), rand((3, 4), 72)
    one = i32(2, 5, 7).reshape(3, 1)
    two = i32(2, 5, 5, 0, 7, 1).reshape(3, 2)
    # Drawn classes 5, 1, 6 (5 and 1 are true classes of some examples), then the true classes.
    def draw(labels):
        rows = [[5, -0.4], [1, 0.3], [6, -1.2]] + [[float(k), 0.1 * k - 0.5] for k in labels.reshape(-1)]
        return f32(*[v for r in rows for v in r]).reshape(-1, 2)
    return [
        layer("losses.sampled_softmax", 'losses.sampled_softmax({0}, {1}, {2}, {3}, 3, 8, sampled = {4}, reduction = "none")',
              [w, b, one, x, draw(one)], sampled_ref("softmax", 3, True)),
        layer("losses.nce", 'losses.nce({0}, {1}, {2}, {3}, 3, 8, sampled = {4}, reduction = "none")',
              [w, b, two, x, draw(two)], sampled_ref("nce", 3, False)),
        layer("losses.nce without accidental hits",
              'losses.nce({0}, {1}, {2}, {3}, 3, 8, remove_accidental_hits = true, sampled = {4}, reduction = "none")',
              [w, b, two, x, draw(two)], sampled_ref("nce", 3, True)),
    ]


def nn_cases():
    x = rand((2, 5), 10)
    k = rand((5, 3), 11, -0.5, 0.5)
    bias = rand((3,), 12)
    img = rand((2, 5, 4, 3), 13)
    ck = rand((3, 3, 3, 2), 14, -0.5, 0.5)
    cb = rand((2,), 15)
    seq = rand((2, 3, 6), 16)
    seq[1, 2, :] = 1.5  # a constant row: variance 0
    gamma = rand((6,), 17, 0.5, 1.5)
    beta = rand((6,), 18)
    mm = rand((6,), 19)
    mv = rand((6,), 20, 0.5, 2)
    table = rand((7, 4), 21)
    k1 = rand((5, 4), 22, -0.5, 0.5)
    k2 = rand((4, 2), 23, -0.5, 0.5)
    b1 = rand((4,), 24)
    b2 = rand((2,), 25)

    def group_norm_strided(t, g, b):
        # The seed's strided grouping: channel k in group k % groups.
        n, s, c = t.shape
        v = t.reshape(n, s, c // 2, 2)
        d = v - v.mean(dim=(1, 2), keepdim=True)
        y = d * torch.rsqrt((d * d).mean(dim=(1, 2), keepdim=True) + 1e-6)
        return y.reshape(n, s, c) * g + b

    def group_norm_blocks(t, g, b):
        y = F.group_norm(t.permute(0, 2, 1), 2, eps=1e-6).permute(0, 2, 1)
        return y * g + b

    return [
        layer("nn.dense", "nn.dense({0}, 3, activation = relu)", [x], lambda t: torch.relu(t @ torch.from_numpy(k) +
              torch.from_numpy(bias)), weights={"dense/kernel": k, "dense/bias": bias}),
        layer("nn.dense no bias", "nn.dense({0}, 3, use_bias = false)", [x], lambda t: t @ torch.from_numpy(k),
              weights={"dense/kernel": k}),
        layer("nn.mlp", "nn.mlp({0}, [4, 2])", [x],
              lambda t: torch.relu(t @ torch.from_numpy(k1) + torch.from_numpy(b1)) @ torch.from_numpy(k2) + torch.from_numpy(b2),
              weights={"mlp/dense/kernel": k1, "mlp/dense/bias": b1, "mlp/dense_1/kernel": k2, "mlp/dense_1/bias": b2}),
        layer("nn.conv2d same", 'nn.conv2d({0}, 2, kernel_size = 3, padding = "same")', [img],
              lambda t: F.conv2d(t.permute(0, 3, 1, 2), torch.from_numpy(ck).permute(3, 2, 0, 1), torch.from_numpy(cb),
                                 padding=1).permute(0, 2, 3, 1),
              weights={"conv2d/kernel": ck, "conv2d/bias": cb}),
        layer("nn.max_pool", "nn.max_pool({0})", [img],
              lambda t: F.max_pool2d(t.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)),
        layer("nn.avg_pool", "nn.avg_pool({0})", [img],
              lambda t: F.avg_pool2d(t.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)),
        layer("nn.global_avg_pool", "nn.global_avg_pool({0})", [img], lambda t: t.mean(dim=(1, 2))),
        layer("nn.layer_norm", "nn.layer_norm({0})", [seq],
              lambda t: F.layer_norm(t, (6,), torch.from_numpy(gamma), torch.from_numpy(beta), eps=1e-6),
              weights={"layer_norm/gamma": gamma, "layer_norm/beta": beta}, tol=(1e-4, 1e-5)),
        layer("nn.group_norm strided", "nn.group_norm({0})", [seq],
              lambda t: group_norm_strided(t, torch.from_numpy(gamma), torch.from_numpy(beta)),
              weights={"group_norm/gamma": gamma, "group_norm/beta": beta}, tol=(1e-4, 1e-5)),
        layer("nn.group_norm blocks", "nn.group_norm({0}, strided = false)", [seq],
              lambda t: group_norm_blocks(t, torch.from_numpy(gamma), torch.from_numpy(beta)),
              weights={"group_norm/gamma": gamma, "group_norm/beta": beta}, tol=(1e-4, 1e-5)),
        layer("nn.instance_norm", "nn.instance_norm({0})", [seq],
              lambda t: F.instance_norm(t.permute(0, 2, 1), eps=1e-6).permute(0, 2, 1) * torch.from_numpy(gamma)
              + torch.from_numpy(beta),
              weights={"instance_norm/gamma": gamma, "instance_norm/beta": beta}, tol=(1e-4, 1e-5)),
        layer("nn.batch_norm inference", "nn.batch_norm({0})", [seq],
              lambda t: F.batch_norm(t.reshape(-1, 6), torch.from_numpy(mm), torch.from_numpy(mv), torch.from_numpy(gamma),
                                     torch.from_numpy(beta), training=False, eps=1e-3).reshape(2, 3, 6),
              weights={"batch_norm/gamma": gamma, "batch_norm/beta": beta, "batch_norm/moving_mean": mm,
                       "batch_norm/moving_variance": mv}, tol=(1e-5, 1e-5)),
        layer("nn.dropout inference", "nn.dropout({0}, 0.3)", [seq], lambda t: t * 1.0),
        layer("nn.embedding", "nn.embedding({0}, 7, 4)", [i32(6, 0, 3, 3, 1, 2).reshape(2, 3)],
              lambda ids: torch.from_numpy(table)[ids.long()], weights={"embedding/table": table}),
        layer("nn.host_embedding", "nn.host_embedding({0}, vocab = 7, dim = 4)", [i32(6, 0, 3, 3, 1, 2).reshape(2, 3)],
              lambda ids: torch.from_numpy(table)[ids.long()], weights={"host_embedding/table": table}),
        layer("nn.accuracy", "reshape(nn.accuracy({0}, {1}), [1])", [rand((4, 3), 26), i32(0, 1, 2, 1)],
              lambda lg, lb: (lg.argmax(-1) == lb.long()).float().mean().reshape(1)),
        layer("nn.mse", "reshape(nn.mse({0}, {1}), [1])", [x, rand((2, 5), 27)], lambda a, b: ((a - b) ** 2).mean().reshape(1)),
    ]


def attention(x, q, k, v, o, heads, causal):
    b, s, d = x.shape
    def split(t):
        return t.reshape(b, s, heads, d // heads).permute(0, 2, 1, 3)
    scores = (split(x @ q) @ split(x @ k).transpose(-1, -2)) * (d // heads) ** -0.5
    if causal:
        scores = torch.where(torch.ones(s, s).tril().bool(), scores, torch.tensor(-1e9))
    out = torch.softmax(scores, -1) @ split(x @ v)
    return out.permute(0, 2, 1, 3).reshape(b, s, d) @ o


def sequence_cases():
    x = rand((2, 3, 4), 30)
    w = {n: rand((4, 4), 31 + i, -0.5, 0.5) for i, n in enumerate(("query", "key", "value", "out"))}
    t = {n: torch.from_numpy(v) for n, v in w.items()}
    mha = {f"multi_head_attention/{n}": v for n, v in w.items()}
    ln = {n: rand((4,), 40 + i, 0.5, 1.5) for i, n in enumerate(("g0", "b0", "g1", "b1"))}
    k1 = rand((4, 8), 44, -0.5, 0.5)
    b1 = rand((8,), 45)
    k2 = rand((8, 4), 46, -0.5, 0.5)
    b2 = rand((4,), 47)
    block = {"transformer_block/" + k: v for k, v in mha.items()}
    block.update({"transformer_block/layer_norm/gamma": ln["g0"], "transformer_block/layer_norm/beta": ln["b0"],
                  "transformer_block/layer_norm_1/gamma": ln["g1"], "transformer_block/layer_norm_1/beta": ln["b1"],
                  "transformer_block/mlp/dense/kernel": k1, "transformer_block/mlp/dense/bias": b1,
                  "transformer_block/mlp/dense_1/kernel": k2, "transformer_block/mlp/dense_1/bias": b2})

    def transformer(h):
        def tt(a):
            return torch.from_numpy(a)
        y = h + attention(F.layer_norm(h, (4,), tt(ln["g0"]), tt(ln["b0"]), eps=1e-6), t["query"], t["key"], t["value"],
                          t["out"], 2, True)
        z = F.layer_norm(y, (4,), tt(ln["g1"]), tt(ln["b1"]), eps=1e-6)
        return y + F.gelu(z @ tt(k1) + tt(b1)) @ tt(k2) + tt(b2)

    table = rand((6, 3), 50)
    pos = rand((3, 4), 51)
    a = rand((2, 3, 4), 52)
    bm = rand((2, 4, 6), 53)
    cases = [
        layer("nn.arange", "{0} * 0.0 + nn.arange(5)", [rand((5,), 54)], lambda v: torch.arange(5.0) + 0.0 * v),
        layer("nn.causal_mask", "where(nn.causal_mask(4), {0}, 0.0)", [rand((4, 4), 55)], lambda v: v.tril()),
        layer("nn.serialized_gather", "nn.serialized_gather({0}, {1}, 3)", [table, i32(5, 0, 2, 3, 3, 1).reshape(2, 3)],
              lambda tb, ids: tb[ids.long()]),
        layer("nn.split_heads", "nn.split_heads({0}, 2)", [a], lambda v: v.reshape(2, 3, 2, 2).permute(0, 2, 1, 3)),
        layer("nn.swap_last", "nn.swap_last({0})", [a], lambda v: v.transpose(-1, -2)),
        layer("nn.positional", "{0} + nn.positional(3, 4)", [a], lambda v: v + torch.from_numpy(pos),
              weights={"positional/table": pos}),
        layer("nn.multi_head_attention", "nn.multi_head_attention({0}, heads = 2)", [x],
              lambda v: attention(v, t["query"], t["key"], t["value"], t["out"], 2, False), weights=mha, tol=(1e-4, 1e-5)),
        layer("nn.multi_head_attention causal", "nn.multi_head_attention({0}, heads = 2, causal = true)", [x],
              lambda v: attention(v, t["query"], t["key"], t["value"], t["out"], 2, True), weights=mha, tol=(1e-4, 1e-5)),
        layer("nn.transformer_block", "nn.transformer_block({0}, heads = 2, causal = true, mlp_ratio = 2)", [x],
              transformer, weights=block, tol=(1e-4, 1e-5), half=False),
    ]
    for dim in ("b_rows", "a_columns", "a_rows_b_columns"):
        cases.append(layer(f"nn.serialized_matmul {dim}", f'nn.serialized_matmul({{0}}, {{1}}, 2, dimension = "{dim}")',
                           [a[:, :2, :], bm], lambda p, q: p @ q, tol=(1e-5, 1e-5)))
    cases.append(layer("nn.serialized_matmul transposed", 'nn.serialized_matmul({0}, {1}, 2, transpose_a = true, '
                       'transpose_b = true)', [rand((2, 4, 2), 56), rand((2, 6, 4), 57)],
                       lambda p, q: p.transpose(-1, -2) @ q.transpose(-1, -2), tol=(1e-5, 1e-5)))
    return cases


# stdlib functions a case reaches only through others, or with no tensor to compare.
STDLIB_COVERED_BY = {
    "nn.pair": "compile-time lists only (the conv2d and pool cases use it)",
    "losses.reduce": "every loss case (reductions none and mean)",
    "losses.sampled_logits": "the sampled_softmax and nce cases",
}


def conv_cases():
    """Grouped, depthwise and 1-D convolutions (Keras layouts) against PyTorch's groups."""
    img = rand((2, 6, 5, 4), 60)
    gk = rand((3, 3, 2, 6), 61, -0.5, 0.5)
    gb = rand((6,), 62)
    dk = rand((3, 3, 4, 2), 63, -0.5, 0.5)
    db = rand((8,), 64)
    seq = rand((2, 7, 4), 65)
    ck = rand((3, 2, 6), 66, -0.5, 0.5)
    cb = rand((6,), 67)

    def t(a):
        return torch.from_numpy(a)

    def conv1d(x, pad_left, pad_right, stride=1, dilation=1):
        y = F.pad(x.permute(0, 2, 1), (pad_left, pad_right))
        return F.conv1d(y, t(ck).permute(2, 1, 0), t(cb), stride=stride, dilation=dilation, groups=2).permute(0, 2, 1)
    return [
        layer("nn.conv2d groups", 'nn.conv2d({0}, 6, groups = 2, padding = "same")', [img],
              lambda x: F.conv2d(x.permute(0, 3, 1, 2), t(gk).permute(3, 2, 0, 1), t(gb), padding=1, groups=2).permute(0, 2, 3, 1),
              weights={"conv2d/kernel": gk, "conv2d/bias": gb}),
        layer("nn.depthwise_conv2d", "nn.depthwise_conv2d({0}, depth_multiplier = 2, strides = 2)", [img],
              lambda x: F.conv2d(x.permute(0, 3, 1, 2), t(dk).reshape(3, 3, 8).permute(2, 0, 1).unsqueeze(1), t(db),
                                 stride=2, groups=4).permute(0, 2, 3, 1),
              weights={"depthwise_conv2d/depthwise_kernel": dk, "depthwise_conv2d/bias": db}),
        layer("nn.conv1d causal", 'nn.conv1d({0}, 6, 3, groups = 2, padding = "causal", dilations = 2)', [seq],
              lambda x: conv1d(x, 4, 0, dilation=2), weights={"conv1d/kernel": ck, "conv1d/bias": cb}),
        layer("nn.conv1d same", 'nn.conv1d({0}, 6, 3, groups = 2, padding = "same")', [seq],
              lambda x: conv1d(x, 1, 1), weights={"conv1d/kernel": ck, "conv1d/bias": cb}),
        layer("nn.conv1d valid strided", "nn.conv1d({0}, 6, 3, groups = 2, strides = 2)", [seq],
              lambda x: conv1d(x, 0, 0, stride=2), weights={"conv1d/kernel": ck, "conv1d/bias": cb}),
    ]


def layer_cases():
    return activation_cases() + loss_cases() + nn_cases() + sequence_cases() + conv_cases()


_ = NAN
