"""PyTorch twins of the zoo models (examples/zoo/*.ipu), written as functions of named parameters.

Each twin is `loss_of(p, *batch)`: `p` maps iputrain's parameter paths ("separable/conv2d/kernel")
to torch tensors laid out as iputrain holds them (NHWC activations, Keras kernel layouts); the
batch is what the data source feeds. Batch norm's moving statistics (non-trainable) are updated in
place, as iputrain updates them once per step. The helpers convert layouts where torch needs its own
(NCHW, [out, in, kh, kw] kernels) and reproduce TensorFlow's "same" padding, which pads the odd
pixel after the image, not before it.

ReLU and ReLU6 go through `relu` and `relu6` below, which record in TIES how near the forward came
to a kink: the smallest |input| (and |input - 6|) relative to the largest |input| of the tensor.
compare_torch.py's per-step mode excuses a disagreeing step only when that margin is tiny."""
import torch
import torch.nn.functional as F

TIES = []


def relu(x):
    d = x.detach().abs()
    TIES.append(float(d.min() / d.max().clamp(min=1e-30)))
    return torch.relu(x)


def relu6(x):
    d = x.detach()
    gap = torch.minimum(d.abs(), (d - 6.0).abs())
    TIES.append(float(gap.min() / d.abs().max().clamp(min=1e-30)))
    return F.relu6(x)


def dense(p, prefix, x, bias=True):
    y = x @ p[prefix + "/kernel"]
    return y + p[prefix + "/bias"] if bias else y


def same_pad(x, kernel, stride):
    """TensorFlow's "same" padding of an NCHW tensor: out = ceil(in / stride), the extra pixel after."""
    pads = []
    for size, k, s in reversed(list(zip(x.shape[2:], kernel, stride))):
        total = max((-(-size // s) - 1) * s + k - size, 0)
        pads += [total // 2, total - total // 2]
    return F.pad(x, pads)


def conv2d(p, prefix, x, strides=1, padding="valid", groups=1, bias=True, kernel_name="kernel", depthwise=False):
    """nn.conv2d / nn.depthwise_conv2d on NHWC `x` with the Keras kernel [kh, kw, in / groups, out]
    (depthwise: [kh, kw, c, multiplier], output channel i * multiplier + m)."""
    k = p[prefix + "/" + kernel_name]
    if depthwise:
        groups = k.shape[2]
        k = k.reshape(k.shape[0], k.shape[1], 1, -1)
    w = k.permute(3, 2, 0, 1)
    xc = x.permute(0, 3, 1, 2)
    if padding == "same":
        xc = same_pad(xc, w.shape[2:], (strides, strides))
    y = F.conv2d(xc, w, p[prefix + "/bias"] if bias else None, stride=strides, groups=groups)
    return y.permute(0, 2, 3, 1)


def batch_norm(p, prefix, x, momentum=0.99, epsilon=1e-3):
    """nn.batch_norm while training: the micro-batch's mean and biased variance over every dimension
    but the last; the moving statistics follow them (moving = moving * momentum + s * (1 - momentum))."""
    axes = tuple(range(x.dim() - 1))
    mean = x.mean(dim=axes)
    d = x - mean
    var = (d * d).mean(dim=axes)
    with torch.no_grad():
        for name, stat in (("moving_mean", mean), ("moving_variance", var)):
            state = p[f"{prefix}/{name}"]
            state.copy_(state * momentum + stat * (1 - momentum))
    return d * torch.rsqrt(var + epsilon) * p[prefix + "/gamma"] + p[prefix + "/beta"]


def layer_norm(p, prefix, x, epsilon=1e-6):
    d = x - x.mean(dim=-1, keepdim=True)
    return d * torch.rsqrt((d * d).mean(dim=-1, keepdim=True) + epsilon) * p[prefix + "/gamma"] + p[prefix + "/beta"]


def scoped(prefix, name, index):
    """The scope path of the index-th call of layer `name` under `prefix` (name, name_1, name_2, ...)."""
    return f"{prefix}{name}" + ("" if index == 0 else f"_{index}")


def images(raw):
    """Fashion-MNIST pixels (0..255) as the models see them: [b, 28, 28, 1] in [0, 1]."""
    return (raw / 255.0).reshape(raw.shape[0], 28, 28, 1)


def classify(logits, labels):
    return F.cross_entropy(logits, labels)


# ---- Llama -------------------------------------------------------------------------------------

def rms_norm(p, prefix, x, epsilon=1e-6):
    return x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + epsilon) * p[prefix + "/weight"]


def rope(x, base=10000.0):
    """Rotary embedding of [b, h, s, dh], "rotate half" form (Hugging Face's Llama)."""
    s, dh = x.shape[2], x.shape[3]
    half = dh // 2
    inv_freq = torch.exp(torch.arange(half, dtype=torch.float32) * (-2.0 * torch.log(torch.tensor(base)).item() / dh))
    angles = torch.arange(s, dtype=torch.float32)[:, None] * inv_freq[None, :]
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1)
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1)
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


def gqa_attention(p, prefix, x, heads, kv_heads):
    b, s, d = x.shape
    dh = d // heads

    def split(t, n):
        return t.reshape(b, s, n, dh).permute(0, 2, 1, 3)

    q = rope(split(x @ p[prefix + "/wq"], heads))
    k = rope(split(x @ p[prefix + "/wk"], kv_heads))
    v = split(x @ p[prefix + "/wv"], kv_heads)
    # torch's way of sharing a key/value head among its query heads: repeat it (repeat_interleave).
    k = k.repeat_interleave(heads // kv_heads, dim=1)
    v = v.repeat_interleave(heads // kv_heads, dim=1)
    scores = (q @ k.transpose(2, 3)) * float(dh ** -0.5)
    mask = torch.tril(torch.ones(s, s, dtype=torch.bool))
    scores = torch.where(mask, scores, torch.tensor(-1e9))
    o = torch.softmax(scores, dim=-1) @ v
    return o.permute(0, 2, 1, 3).reshape(b, s, d) @ p[prefix + "/wo"]


def llama(shapes):
    layers = len({k.split("/")[0] for k in shapes if k.startswith("decoder_block")})
    dim = shapes["embedding/table"][1]
    heads = 4
    kv_heads = shapes["decoder_block/attention/wk"][1] // (dim // heads)

    def loss_of(p, tokens, targets):
        x = p["embedding/table"][tokens]
        for i in range(layers):
            blk = scoped("", "decoder_block", i)
            h = x + gqa_attention(p, blk + "/attention", rms_norm(p, blk + "/rms_norm", x), heads, kv_heads)
            m = rms_norm(p, blk + "/rms_norm_1", h)
            ff = F.silu(dense(p, blk + "/swiglu/dense", m, False)) * dense(p, blk + "/swiglu/dense_1", m, False)
            x = h + dense(p, blk + "/swiglu/dense_2", ff, False)
        logits = dense(p, "dense", rms_norm(p, "rms_norm", x), False)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    return loss_of


# ---- MobileNet ---------------------------------------------------------------------------------

def mobilenet(shapes):
    def conv_bn(p, prefix, x, strides=1):
        y = conv2d(p, prefix + "/conv2d", x, strides=strides, padding="same", bias=False)
        return relu6(batch_norm(p, prefix + "/batch_norm", y))

    def separable(p, prefix, x, strides=1):
        y = conv2d(p, prefix + "/depthwise_conv2d", x, strides=strides, padding="same", bias=False,
                   kernel_name="depthwise_kernel", depthwise=True)
        y = relu6(batch_norm(p, prefix + "/batch_norm", y))
        return conv_bn(p, prefix + "/conv_bn", y)

    def loss_of(p, raw, labels):
        x = conv_bn(p, "conv_bn", images(raw), strides=2)
        x = separable(p, "separable", x)
        x = separable(p, "separable_1", x, strides=2)
        x = separable(p, "separable_2", x)
        return classify(dense(p, "dense", x.mean(dim=(1, 2))), labels)

    return loss_of


# ---- ResNeXt -----------------------------------------------------------------------------------

def resnext(shapes):
    grouped = shapes.get("resnext_block/conv_bn_2/conv2d/kernel", (1, 1, 1, 1))  # [3, 3, width / groups, width]
    cardinality = grouped[3] // grouped[2]
    blocks = len({k.split("/")[0] for k in shapes if k.startswith("resnext_block")})

    def conv_bn(p, prefix, x, strides=1, groups=1, act=True):
        y = conv2d(p, prefix + "/conv2d", x, strides=strides, padding="same", groups=groups, bias=False)
        y = batch_norm(p, prefix + "/batch_norm", y)
        return relu(y) if act else y

    def block(p, prefix, x, out, strides=1):
        calls = 0
        shortcut = x
        if strides != 1 or x.shape[-1] != out:
            shortcut = conv_bn(p, prefix + "/conv_bn", x, strides=strides, act=False)
            calls = 1
        y = conv_bn(p, scoped(prefix + "/", "conv_bn", calls), x)
        y = conv_bn(p, scoped(prefix + "/", "conv_bn", calls + 1), y, strides=strides, groups=cardinality)
        y = conv_bn(p, scoped(prefix + "/", "conv_bn", calls + 2), y, act=False)
        return relu(y + shortcut)

    def loss_of(p, raw, labels):
        x = conv_bn(p, "conv_bn", images(raw), strides=2)
        if blocks > 0:
            x = block(p, "resnext_block", x, 64)
        if blocks > 1:
            x = block(p, "resnext_block_1", x, 128, strides=2)
        return classify(dense(p, "dense", x.mean(dim=(1, 2))), labels)

    return loss_of


# ---- ViT ---------------------------------------------------------------------------------------

def attention(p, prefix, x, heads):
    b, s, d = x.shape
    dh = d // heads

    def split(t):
        return t.reshape(b, s, heads, dh).permute(0, 2, 1, 3)

    q, k, v = (split(x @ p[f"{prefix}/{n}"]) for n in ("query", "key", "value"))
    o = torch.softmax((q @ k.transpose(2, 3)) * float(dh ** -0.5), dim=-1) @ v
    return o.permute(0, 2, 1, 3).reshape(b, s, d) @ p[prefix + "/out"]


def vit(shapes):
    layers = len({k.split("/")[0] for k in shapes if k.startswith("transformer_block")})
    patch = shapes["conv2d/kernel"][0]
    heads = 4

    def loss_of(p, raw, labels):
        x = conv2d(p, "conv2d", images(raw), strides=patch)
        b, g, _, d = x.shape
        x = torch.cat([p["cls_token"].expand(b, 1, d), x.reshape(b, g * g, d)], dim=1) + p["positional/table"]
        for i in range(layers):
            blk = scoped("", "transformer_block", i)
            h = x + attention(p, blk + "/multi_head_attention", layer_norm(p, blk + "/layer_norm", x), heads)
            m = F.gelu(dense(p, blk + "/mlp/dense", layer_norm(p, blk + "/layer_norm_1", h)))
            x = h + dense(p, blk + "/mlp/dense_1", m)
        return classify(dense(p, "dense", layer_norm(p, "layer_norm", x)[:, 0]), labels)

    return loss_of


# ---- EfficientNet ------------------------------------------------------------------------------

def efficientnet(shapes):
    def conv_bn(p, prefix, x, strides=1, act=True):
        y = batch_norm(p, prefix + "/batch_norm", conv2d(p, prefix + "/conv2d", x, strides=strides, padding="same",
                                                          bias=False))
        return F.silu(y) if act else y

    def mbconv(p, prefix, x, out, expand, strides=1):
        c = x.shape[-1]
        calls = 0
        y = x
        if expand != 1:
            y = conv_bn(p, prefix + "/conv_bn", x)
            calls = 1
        y = conv2d(p, prefix + "/depthwise_conv2d", y, strides=strides, padding="same", bias=False,
                   kernel_name="depthwise_kernel", depthwise=True)
        y = F.silu(batch_norm(p, prefix + "/batch_norm", y))
        s = F.silu(dense(p, prefix + "/squeeze_excite/dense", y.mean(dim=(1, 2))))
        s = torch.sigmoid(dense(p, prefix + "/squeeze_excite/dense_1", s))
        y = y * s[:, None, None, :]
        y = conv_bn(p, scoped(prefix + "/", "conv_bn", calls), y, act=False)
        return y + x if strides == 1 and c == out else y

    def loss_of(p, raw, labels):
        x = conv_bn(p, "conv_bn", images(raw), strides=2)
        x = mbconv(p, "mbconv", x, 16, 1)
        x = mbconv(p, "mbconv_1", x, 24, 4, strides=2)
        x = mbconv(p, "mbconv_2", x, 24, 4)
        x = conv_bn(p, "conv_bn_1", x)
        return classify(dense(p, "dense", x.mean(dim=(1, 2))), labels)

    return loss_of


# ---- recurrent and 1-D convolutions ------------------------------------------------------------

def conv1d(p, prefix, x, strides=1, padding="valid", groups=1, bias=True):
    """nn.conv1d on NWC `x` with the Keras kernel [k, in / groups, out]; "causal" pads k - 1 zeros
    before the sequence, "same" is TensorFlow's (the odd zero after)."""
    w = p[prefix + "/kernel"].permute(2, 1, 0)  # [out, in / groups, k]
    xc = x.permute(0, 2, 1)
    k = w.shape[2]
    if padding == "causal":
        xc = F.pad(xc, [k - 1, 0])
    elif padding == "same":
        total = max((-(-xc.shape[2] // strides) - 1) * strides + k - xc.shape[2], 0)
        xc = F.pad(xc, [total // 2, total - total // 2])
    y = F.conv1d(xc, w, p[prefix + "/bias"] if bias else None, stride=strides, groups=groups)
    return y.permute(0, 2, 1)


def recurrent(p, prefix, x, lengths=None, gru=False):
    """nn.lstm / nn.gru (Keras layout) through PyTorch's fused kernels, the ones torch.nn.LSTM and
    torch.nn.GRU call (torch._VF), so that the weights stay tensors of `p` with their gradients.
    Keras' LSTM gates i, f, c, o are PyTorch's i, f, g, o; Keras' GRU z, r, h are PyTorch's r, z, n
    (Keras' reset_after is PyTorch's form); the GRU's bias [2, 3u] is (input, recurrent). With
    `lengths` the sequences are packed, so each sample stops at its length. Returns (every step's
    output [b, t, u], padded steps zero; the last valid step's h [b, u])."""
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    kernel, rec, bias = p[prefix + "/kernel"], p[prefix + "/recurrent_kernel"], p[prefix + "/bias"]
    u = rec.shape[0]
    order = [1, 0, 2] if gru else [0, 1, 2, 3]

    def reorder(m):
        return torch.cat([m[..., g * u:(g + 1) * u] for g in order], -1)
    if bias.dim() == 2:
        b_ih, b_hh = reorder(bias[0]), reorder(bias[1])
    else:
        b_ih, b_hh = reorder(bias), torch.zeros(len(order) * u)
    weights = [reorder(kernel).t(), reorder(rec).t(), b_ih, b_hh]
    h0 = torch.zeros(1, x.shape[0], u)
    hx = h0 if gru else (h0, torch.zeros_like(h0))
    cell = torch._VF.gru if gru else torch._VF.lstm
    if lengths is None:
        out = cell(x, hx, weights, True, 1, 0.0, True, False, True)
        return out[0], out[0][:, -1]
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out = cell(packed.data, packed.batch_sizes, hx, weights, True, 1, 0.0, True, False)
    h = out[1][0].index_select(0, packed.unsorted_indices)
    seq, _ = pad_packed_sequence(type(packed)(out[0], packed.batch_sizes, packed.sorted_indices,
                                              packed.unsorted_indices), batch_first=True, total_length=x.shape[1])
    return seq, h


def lstm_classifier(shapes):
    def loss_of(p, tokens, lengths, label):
        _, h = recurrent(p, "lstm", p["embedding/table"][tokens], lengths)
        return classify(dense(p, "dense", h), label)

    return loss_of


def gru_tagger(shapes):
    def loss_of(p, tokens, tags):
        x = torch.tanh(conv1d(p, "conv1d", p["embedding/table"][tokens], padding="same"))
        h, _ = recurrent(p, "gru", x, gru=True)
        logits = dense(p, "dense", h)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tags.reshape(-1))

    return loss_of


# ---- Conformer ---------------------------------------------------------------------------------

def conformer(shapes):
    layers = len({k.split("/")[0] for k in shapes if k.startswith("conformer_block")})
    heads = 4

    def feed_forward(p, prefix, x):
        h = F.silu(dense(p, prefix + "/dense", layer_norm(p, prefix + "/layer_norm", x)))
        return dense(p, prefix + "/dense_1", h)

    def convolution_module(p, prefix, x):
        d = x.shape[-1]
        y = conv1d(p, prefix + "/conv1d", layer_norm(p, prefix + "/layer_norm", x))
        y = y[:, :, :d] * torch.sigmoid(y[:, :, d:])
        y = conv1d(p, prefix + "/conv1d_1", y, padding="causal", groups=d, bias=False)
        return conv1d(p, prefix + "/conv1d_2", F.silu(batch_norm(p, prefix + "/batch_norm", y)))

    def block(p, prefix, x):
        x = x + 0.5 * feed_forward(p, prefix + "/feed_forward", x)
        x = x + attention(p, prefix + "/multi_head_attention", layer_norm(p, prefix + "/layer_norm", x), heads)
        x = x + convolution_module(p, prefix + "/convolution_module", x)
        x = x + 0.5 * feed_forward(p, prefix + "/feed_forward_1", x)
        return layer_norm(p, prefix + "/layer_norm_1", x)

    def loss_of(p, features, feature_lengths, labels, label_lengths):
        x = F.silu(conv1d(p, "conv1d", features / 8.0, strides=2, padding="same"))
        for i in range(layers):
            x = block(p, scoped("", "conformer_block", i), x)
        logits = dense(p, "dense", x)
        # PyTorch's per-sample losses (reduction "none"), averaged as losses.ctc's "mean" does.
        log_probs = F.log_softmax(logits, dim=-1).transpose(0, 1)
        return F.ctc_loss(log_probs, labels, feature_lengths, label_lengths, blank=0, reduction="none").mean()

    return loss_of
