"""The cases of the differential suite (diff_suite.py): per op of the table and per stdlib layer, the
language expression, the op-harness form (op name and attributes), the inputs at the edges and the
reference in PyTorch or NumPy. Where iputrain follows a rule of its own, the reference implements
that rule, and the case says so (docs/ops.md, "Special values", writes the rules down)."""
import itertools

import numpy as np
import torch
import torch.nn.functional as F

DTYPE_NAME = {"float32": "f32", "int32": "i32", "bool": "bool", "uint8": "u8"}
INF = float("inf")
NAN = float("nan")
I32_MAX = 2**31 - 1
I32_MIN = -(2**31)

# Float edges: signed zeros, infinities, NaN, denormals (+-1e-40), exp's overflow region (+-80,
# +-88.5), large magnitudes (+-1000), and ordinary values.
F32_EDGES = [0.0, -0.0, INF, -INF, NAN, 1e-40, -1e-40, 80.0, -80.0, 1000.0, -1000.0, 1.0, -1.0, 0.5, -0.5,
             2.0, -3.0, 1e-7, 88.5, -88.5, 20.0, -20.0, 3.0, 0.25, 2.5, -2.5]
# Pairs for binary ops: every combination of these.
PAIR_EDGES = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 80.0, -1000.0, 2.5, 1e-40, 0.5]
I32_EDGES = [0, 1, -1, I32_MAX, I32_MIN, 16777217, 123456789, -7, 140234005]


def f32(*v):
    return np.array(v, dtype=np.float32)


def i32(*v):
    return np.array(v, dtype=np.int32)


def rand(shape, seed, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def randint(shape, seed, lo, hi):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(np.int32)


class Case:
    """One differential case. `expr` is the model-language expression, with {0}, {1}, … for the
    operands (each an input of the model) and {p} for a prefix unique to the case; `harness_op` and
    `attrs` build the same thing as one op of the table (None: a stdlib layer, user's path only)."""

    def __init__(self, name, op, expr, inputs, ref, harness_op=None, attrs=None, grad=True, half=True,
                 predict=True, tol=(1e-5, 1e-6), tol_half=(2e-3, 1e-3), tol_grad=(1e-4, 1e-5), group=None,
                 body=(), weights=None, training=False):
        self.name = name
        self.op = op
        self.expr = expr
        self.inputs = [np.asarray(a) for a in inputs]
        self.ref = ref
        self.harness_op = harness_op
        self.attrs = attrs or {}
        self.grad = grad
        self.half = half
        self.predict = predict
        self.tol = tol
        self.tol_half = tol_half
        self.tol_grad = tol_grad
        self.group = group or op
        self.body = list(body)
        self.weights = weights or {}
        self.training = training  # the harness runs the training program (else predict's)
        ts = [torch.from_numpy(np.array(a)) for a in self.inputs]
        with torch.no_grad():
            out = np.asarray(ref(*ts))
        self.out_shape = tuple(out.shape)
        self.out_numel = int(out.size)
        self.out_dtype = DTYPE_NAME.get(out.dtype.name, out.dtype.name)

    def dy(self, shape):
        """The fixed cotangent of the case's gradient check."""
        seed = sum(ord(c) for c in self.name)
        return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(np.float32)


def op_case(name, op, expr, inputs, ref, attrs=None, **kw):
    """A case of a primitive: the harness runs op `op` with `attrs` on the inputs."""
    return Case(name, op, expr, inputs, ref, harness_op=op, attrs=attrs, **kw)


# ---- elementwise ------------------------------------------------------------------------------

def hard_sigmoid(x):
    # Keras' form, the op's rule (PyTorch's hardsigmoid is x / 6 + 0.5).
    return torch.clamp(0.2 * x + 0.5, 0.0, 1.0)


UNARY = {
    "neg": lambda x: -x,
    "relu": torch.relu,
    "exp": torch.exp,
    "log": torch.log,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "abs": torch.abs,
    "square": lambda x: x * x,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "gelu": lambda x: F.gelu(x),
    "swish": F.silu,
    "hard_sigmoid": hard_sigmoid,
    # The op's rule: the limits ±1 at ±inf, where PyTorch's x / (1 + |x|) gives nan (the infinities
    # are kept out of the quotient so that its gradient there is 0, not nan).
    "softsign": lambda x: torch.where(torch.isinf(x), torch.sign(x),
                                      F.softsign(torch.where(torch.isinf(x), torch.zeros_like(x), x))),
    "erf": torch.erf,
    "sin": torch.sin,
    "cos": torch.cos,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "round": torch.round,  # halves to even, as NumPy
    # NumPy's sign (nan stays nan); PyTorch 1.13 gives 0 for nan.
    "sign": lambda x: torch.sign(x) * 0.0 + torch.from_numpy(np.sign(x.detach().numpy())),
}


def unary_cases():
    cases = []
    edges = f32(*F32_EDGES)
    for op, ref in UNARY.items():
        tol = (2e-6, 1e-6) if op not in ("gelu", "erf", "swish", "tanh", "sigmoid", "sin", "cos") else (1e-5, 1e-6)
        # The edges in a long tensor (the kernels' vector paths) and a short one (their scalar tails).
        cases.append(op_case(f"{op} edges", op, f"{op}({{0}})", [edges], ref, tol=tol))
        cases.append(op_case(f"{op} edges short", op, f"{op}({{0}})", [edges[:7]], ref, tol=tol))
        long = np.concatenate([edges] * 3 + [rand((5,), 1)])
        cases.append(op_case(f"{op} edges long", op, f"{op}({{0}})", [long], ref, tol=tol, half=False))
        cases.append(op_case(f"{op} rank 3", op, f"{op}({{0}})", [rand((2, 1, 3), hash(op) % 1000, 0.1, 3.0)], ref,
                             tol=tol))
    cases.append(op_case("gelu tanh edges", "gelu", 'gelu({0}, approximate = "tanh")', [edges],
                         lambda x: F.gelu(x, approximate="tanh"), attrs={"approximate": "tanh"}, tol=(1e-5, 1e-6)))
    cases.append(op_case("neg i32 extremes", "neg", "neg({0})", [i32(*I32_EDGES)], lambda x: -x))
    # Large arguments: the vector path's range reduction must hold as far as std::sin and std::cos.
    big = f32(*([1e30, -1e30, 1e10, 12345.678, 71476.0625, 1e5, -3e7, 1e20] * 3))
    for op in ("sin", "cos"):
        cases.append(op_case(f"{op} large arguments", op, f"{op}({{0}})", [big], UNARY[op], tol=(1e-5, 1e-6),
                             half=False))
    return cases


BINARY = {
    "add": ("{0} + {1}", lambda a, b: a + b),
    "sub": ("{0} - {1}", lambda a, b: a - b),
    "mul": ("{0} * {1}", lambda a, b: a * b),
    "div": ("{0} / {1}", lambda a, b: a / b),
    "pow": ("{0} ** {1}", torch.pow),
    "maximum": ("maximum({0}, {1})", torch.maximum),
    "minimum": ("minimum({0}, {1})", torch.minimum),
}


def binary_cases():
    cases = []
    pairs = list(itertools.product(PAIR_EDGES, PAIR_EDGES))
    a = f32(*[p[0] for p in pairs])
    b = f32(*[p[1] for p in pairs])
    ia = i32(*[p[0] for p in itertools.product(I32_EDGES, I32_EDGES)])
    ib = i32(*[p[1] for p in itertools.product(I32_EDGES, I32_EDGES)])
    for op, (expr, ref) in BINARY.items():
        cases.append(op_case(f"{op} edge pairs", op, expr, [a, b], ref))
        cases.append(op_case(f"{op} broadcast trailing", op, expr, [rand((2, 3, 4), 1, 0.2, 2), rand((4,), 2, 0.2, 2)],
                             ref))
        cases.append(op_case(f"{op} broadcast both", op, expr, [rand((2, 1, 4), 3, 0.2, 2), rand((3, 1), 4, 0.2, 2)],
                             ref))
        cases.append(op_case(f"{op} scalar left", op, expr, [rand((1,), 5, 0.2, 2), rand((2, 3), 6, 0.2, 2)], ref))
        cases.append(op_case(f"{op} size-1 dims", op, expr, [rand((1, 1, 5), 7, 0.2, 2), rand((1, 1, 1), 8, 0.2, 2)],
                             ref))
        if op in ("add", "sub", "mul", "maximum", "minimum"):
            # i32 is exact and wraps on overflow, as in NumPy and PyTorch.
            cases.append(op_case(f"{op} i32 extremes", op, expr, [ia, ib], ref))
            cases.append(op_case(f"{op} i32 broadcast", op, expr, [i32(*I32_EDGES).reshape(9, 1), i32(3, -1, I32_MAX)],
                                 ref))
    # The exponents with a path of their own (a square, a square root) and a negative base.
    base = f32(*F32_EDGES)
    for e in (2.0, 0.5, 3.0, -1.0, 0.0):
        cases.append(op_case(f"pow exponent {e}", "pow", "{0} ** {1}", [base, f32(e)], torch.pow))
    return cases


COMPARE = {
    "equal": ("{0} == {1}", torch.eq),
    "not_equal": ("{0} != {1}", torch.ne),
    "less": ("{0} < {1}", torch.lt),
    "less_equal": ("{0} <= {1}", torch.le),
    "greater": ("{0} > {1}", torch.gt),
    "greater_equal": ("{0} >= {1}", torch.ge),
}


def compare_cases():
    cases = []
    pairs = list(itertools.product(PAIR_EDGES, PAIR_EDGES))
    a = f32(*[p[0] for p in pairs])
    b = f32(*[p[1] for p in pairs])
    ipairs = list(itertools.product(I32_EDGES, I32_EDGES))
    for op, (expr, ref) in COMPARE.items():
        cases.append(op_case(f"{op} edge pairs", op, expr, [a, b], ref, grad=False))
        cases.append(op_case(f"{op} i32", op, expr, [i32(*[p[0] for p in ipairs]), i32(*[p[1] for p in ipairs])], ref,
                             grad=False))
        cases.append(op_case(f"{op} broadcast", op, expr, [rand((2, 3), 1).round(), rand((3,), 2).round()], ref,
                             grad=False))
    bools = np.array([True, False, True, False])
    cases.append(op_case("equal bool", "equal", "{0} == {1}", [bools, np.array([True, True, False, False])], torch.eq,
                         grad=False))
    cases.append(op_case("not_equal bool", "not_equal", "{0} != {1}", [bools, np.array([True, True, False, False])],
                         torch.ne, grad=False))
    return cases


def cast_i32(x):
    # The op's rule: truncate toward zero, saturate at the i32 range, NaN -> 0 (C leaves all three
    # undefined; PyTorch and NumPy give -2^31 for every one of them on x86).
    v = x.detach().double().numpy()
    out = np.where(np.isnan(v), 0, np.clip(np.trunc(np.nan_to_num(v, posinf=I32_MAX, neginf=I32_MIN)), I32_MIN, I32_MAX))
    return torch.from_numpy(out.astype(np.int32))


def where_cases():
    cond = np.array([True, False, True, False, True, False])
    cases = [
        op_case("where f32", "where", "where({0}, {1}, {2})", [cond, f32(1, NAN, INF, 2, -0.0, 3), f32(NAN, 5, 6, -INF, 7, 0)],
                torch.where),
        op_case("where broadcast", "where", "where({0}, {1}, {2})",
                [np.array([[True], [False]]), rand((2, 3), 1), rand((3,), 2)], torch.where),
        op_case("where i32", "where", "where({0}, {1}, {2})", [cond, i32(*I32_EDGES[:6]), i32(9, 8, 7, 6, 5, 4)],
                torch.where),
        op_case("where scalar cond", "where", "where({0}, {1}, {2})", [np.array(True), rand((2, 2), 3), rand((2, 2), 4)],
                torch.where),
    ]
    big = f32(2147483648.0, 3e9, 1e10, INF, -INF, NAN, -2147483904.0, 2.7, -2.7, -0.0, 2147483520.0, -1e10)
    cases += [
        op_case("cast f32 to i32 saturates", "cast", 'cast({0}, dtype = "i32")', [big], cast_i32, attrs={"dtype": "i32"},
                half=False),
        op_case("cast i32 to f32 rounds", "cast", 'cast({0}, dtype = "f32")', [i32(*I32_EDGES)], lambda x: x.float(),
                attrs={"dtype": "f32"}),
        op_case("cast f32 to bool", "cast", 'cast({0}, dtype = "bool")', [f32(*F32_EDGES)], lambda x: x != 0,
                attrs={"dtype": "bool"}),
        op_case("cast i32 to bool", "cast", 'cast({0}, dtype = "bool")', [i32(*I32_EDGES)], lambda x: x != 0,
                attrs={"dtype": "bool"}),
        op_case("cast bool to f32", "cast", 'cast({0}, dtype = "f32")', [cond], lambda x: x.float(),
                attrs={"dtype": "f32"}),
        op_case("cast bool to i32", "cast", 'cast({0}, dtype = "i32")', [cond], lambda x: x.int(),
                attrs={"dtype": "i32"}),
    ]
    # From u8, the 8-bit inputs (fed from a uint8 array as stored): exact into every type. No
    # gradient flows into an integer input, so these cases have none (grad=False), as for i32.
    u8 = np.array([0, 1, 2, 127, 128, 200, 254, 255], dtype=np.uint8)
    for to, ref in (("f32", lambda x: x.float()), ("f16", lambda x: x.half()),
                    ("bf16", lambda x: x.bfloat16().float()), ("i32", lambda x: x.int()), ("bool", lambda x: x != 0)):
        cases.append(op_case(f"cast u8 to {to}", "cast", f'cast({{0}}, dtype = "{to}")', [u8], ref, attrs={"dtype": to},
                             grad=False))
    return cases


# ---- shape ------------------------------------------------------------------------------------

def shape_cases():
    x = rand((2, 3, 4), 1)
    xi = randint((2, 3, 4), 2, I32_MIN, I32_MAX)
    cases = []
    for shape in ([4, 6], [-1], [2, -1, 2], [24, 1], [1, 2, 1, 12]):
        cases.append(op_case(f"reshape {shape}", "reshape", f"reshape({{0}}, {shape})", [x],
                             lambda t, s=shape: t.reshape(s), attrs={"shape": shape}))
    cases.append(op_case("reshape i32", "reshape", "reshape({0}, [4, 6])", [xi], lambda t: t.reshape(4, 6),
                         attrs={"shape": [4, 6]}))
    for perm in itertools.permutations(range(3)):
        p = list(perm)
        cases.append(op_case(f"transpose {p}", "transpose", f"transpose({{0}}, {p})", [x],
                             lambda t, q=p: t.permute(q), attrs={"perm": p}))
    cases.append(op_case("transpose i32 rank 4", "transpose", "transpose({0}, [3, 1, 0, 2])",
                         [randint((2, 1, 3, 2), 3, -9, 9)], lambda t: t.permute(3, 1, 0, 2), attrs={"perm": [3, 1, 0, 2]}))
    for src, dst in (([3, 1], [2, 3, 4]), ([1], [5]), ([4], [3, 4]), ([2, 1, 1], [2, 3, 2])):
        cases.append(op_case(f"broadcast_to {src}->{dst}", "broadcast_to", f"broadcast_to({{0}}, {dst})",
                             [rand(tuple(src), len(dst))], lambda t, s=dst: t.expand(s).clone(), attrs={"shape": dst}))
    cases.append(op_case("broadcast_to bool", "broadcast_to", "broadcast_to({0}, [2, 3])", [np.array([True, False, True])],
                         lambda t: t.expand(2, 3).clone(), attrs={"shape": [2, 3]}))
    for axis in (0, 1, 2, -1):
        cases.append(op_case(f"concat axis {axis}", "concat", f"concat([{{0}}, {{1}}, {{2}}], axis = {axis})",
                             [x, x * 2, rand((2, 3, 4), 9)], lambda a, b, c, ax=axis: torch.cat([a, b, c], ax),
                             attrs={"axis": axis}))
    cases.append(op_case("concat i32", "concat", "concat([{0}, {1}], axis = 0)", [xi, xi], lambda a, b: torch.cat([a, b]),
                         attrs={"axis": 0}))
    cases.append(op_case("concat size-1", "concat", "concat([{0}, {1}], axis = 1)", [rand((2, 1), 4), rand((2, 1), 5)],
                         lambda a, b: torch.cat([a, b], 1), attrs={"axis": 1}))
    # Slices: NumPy's rules, negative strides included.
    slices = [
        ([0, 1, 1], [2, 3, 3], None, (slice(0, 2), slice(1, 3), slice(1, 3))),
        ([-1, 0, 0], [2, 3, 4], None, (slice(-1, 2), slice(0, 3), slice(0, 4))),
        ([0, 0, 0], [2, 3, 4], [1, 2, 3], (slice(0, 2), slice(0, 3, 2), slice(0, 4, 3))),
        ([0, 0, 100], [2, 3, -100], [1, 1, -1], (slice(0, 2), slice(0, 3), slice(100, -100, -1))),
        ([1, 2, 3], [-5, -5, -6], [-1, -1, -2], (slice(1, -5, -1), slice(2, -5, -1), slice(3, -6, -2))),
        ([0, -1, 2], [2, 0, 0], [1, -2, -1], (slice(0, 2), slice(-1, 0, -2), slice(2, 0, -1))),
        ([0, 0, -10], [2, 3, 10], None, (slice(0, 2), slice(0, 3), slice(-10, 10))),
    ]
    for k, (begin, end, strides, idx) in enumerate(slices):
        attrs = {"begin": begin, "end": end}
        expr = f"slice({{0}}, {begin}, {end}" + (f", strides = {strides})" if strides else ")")
        if strides:
            attrs["strides"] = strides
        cases.append(op_case(f"slice {k} {begin}:{end}:{strides}", "slice", expr, [x],
                             lambda t, i=idx: _np_slice(t, i), attrs=attrs))
    cases.append(op_case("slice i32 reversed", "slice", "slice({0}, [1, 2], [-3, -4], strides = [-1, -1])", [xi],
                         lambda t: torch.from_numpy(np.ascontiguousarray(t.numpy()[1:-3:-1, 2:-4:-1])),
                         attrs={"begin": [1, 2], "end": [-3, -4], "strides": [-1, -1]}))
    # Indexing in the language: x[::-1], x[:, ::2], x[1], x[..., -1].
    for k, (text, idx) in enumerate([("[::-1]", (slice(None, None, -1),)), ("[:, ::-2]", (slice(None), slice(None, None, -2))),
                                     ("[1]", (1,)), ("[..., -1]", (Ellipsis, -1)), ("[1:, 2::-1, ::3]", (slice(1, None), slice(2, None, -1), slice(None, None, 3)))]):
        cases.append(Case(f"indexing {text}", "slice", "({0})" + text, [x], lambda t, i=idx: _np_slice(t, i),
                          group="indexing"))
    return cases


def _np_slice(t, idx):
    """t[idx] with NumPy's rules (negative steps too), differentiable."""
    n = t.detach().numpy()
    positions = np.arange(n.size).reshape(n.shape)[idx]
    return t.reshape(-1)[torch.from_numpy(np.ascontiguousarray(positions).reshape(-1))].reshape(positions.shape)


def gather_cases():
    table = rand((5, 3), 1)
    ids = i32(4, 0, 2, 2)
    return [
        op_case("gather axis 0", "gather", "gather({0}, {1})", [table, ids.reshape(2, 2)],
                lambda p, i: p[i.long()], attrs={"axis": 0}),
        op_case("gather axis 1", "gather", "gather({0}, {1}, axis = 1)", [table, i32(2, 0, 2)],
                lambda p, i: p[:, i.long()], attrs={"axis": 1}),
        op_case("gather repeated ids", "gather", "gather({0}, {1})", [table, i32(1, 1, 1, 3)],
                lambda p, i: p[i.long()], attrs={"axis": 0}),
        op_case("gather i32 params", "gather", "gather({0}, {1})", [i32(*I32_EDGES).reshape(3, 3), i32(2, 0)],
                lambda p, i: p[i.long()], attrs={"axis": 0}),
        op_case("gather scalar index", "gather", "gather({0}, {1})", [table, i32(3).reshape(())],
                lambda p, i: p[i.long()], attrs={"axis": 0}),
    ]


def one_hot_ref(depth, on=1.0, off=0.0):
    # The op's rule: an index outside [0, depth) gives a row of `off` (PyTorch refuses it).
    def ref(i):
        v = i.numpy()
        out = np.full(v.shape + (depth,), off, dtype=np.float32)
        for pos, k in np.ndenumerate(v):
            if 0 <= k < depth:
                out[pos + (k,)] = on
        return torch.from_numpy(out)
    return ref


def one_hot_cases():
    return [
        op_case("one_hot", "one_hot", "one_hot({0}, 4)", [i32(0, 3, 1, 1)], one_hot_ref(4), attrs={"depth": 4}),
        op_case("one_hot out of range", "one_hot", "one_hot({0}, 3)", [i32(-1, 3, 2, I32_MAX, I32_MIN)], one_hot_ref(3),
                attrs={"depth": 3}),
        op_case("one_hot on off rank 2", "one_hot", "one_hot({0}, 3, on = 0.9, off = 0.05)", [i32(0, 2, 1, 0).reshape(2, 2)],
                one_hot_ref(3, 0.9, 0.05), attrs={"depth": 3, "on": 0.9, "off": 0.05}),
    ]


# ---- reductions -------------------------------------------------------------------------------

def reduce_cases():
    cases = []
    x = rand((2, 3, 4), 11)
    edgy = x.copy()
    edgy[0, 1, 2] = NAN
    edgy[1, 2, 0] = INF
    edgy[1, 0, 3] = -INF
    ties = np.round(rand((2, 3, 4), 12)).astype(np.float32)
    axes_list = [None, 0, 1, 2, -1, [0, 2], [1, 2]]
    refs = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax}
    for op, ref in refs.items():
        for axes in axes_list:
            for keep in (False, True):
                if keep and axes not in (None, 1, [0, 2]):
                    continue
                arg = "" if axes is None else f", axis = {axes}"
                arg += ", keepdims = true" if keep else ""
                dims = list(range(3)) if axes is None else axes

                def r(t, d=dims, k=keep, f=ref):
                    return f(t, dim=d, keepdim=k) if isinstance(d, list) else f(t, dim=d, keepdim=k)
                attrs = {"keepdims": int(keep)}
                if axes is not None:
                    attrs["axes"] = axes if isinstance(axes, list) else [axes]
                cases.append(op_case(f"{op} axes {axes} keep {keep}", op, f"{op}({{0}}{arg})", [x], r, attrs=attrs,
                                     tol=(1e-5, 1e-6)))
        cases.append(op_case(f"{op} nan inf rows", op, f"{op}({{0}}, axis = -1)", [edgy],
                             lambda t, f=ref: f(t, dim=-1), attrs={"axes": [-1]}))
        cases.append(op_case(f"{op} ties", op, f"{op}({{0}}, axis = 1)", [ties], lambda t, f=ref: f(t, dim=1),
                             attrs={"axes": [1]}))
    big = f32(3e38, 3e38, -1e38, 1e38)
    cases.append(op_case("mean near overflow", "mean", "mean({0})", [big], torch.mean, attrs={}, tol=(1e-6, 0)))
    cases.append(op_case("sum overflows to inf", "sum", "sum({0})", [big], torch.sum, attrs={}))
    # i32 sums wrap, as NumPy's sum(dtype=int32) does.
    ints = i32(*I32_EDGES)
    cases.append(op_case("sum i32 wraps", "sum", "sum({0})", [ints],
                         lambda t: torch.from_numpy(np.array(t.numpy().sum(dtype=np.int32))), attrs={}))
    cases.append(op_case("sum i32 rows", "sum", "sum({0}, axis = 1)", [randint((3, 5), 4, -10**9, 10**9)],
                         lambda t: torch.from_numpy(t.numpy().sum(axis=1, dtype=np.int32)), attrs={"axes": [1]}))
    cases.append(op_case("max i32", "max", "max({0}, axis = 0)", [ints.reshape(3, 3)], lambda t: torch.amax(t, 0),
                         attrs={"axes": [0]}))
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        for axis in (0, 1, 2, -1):
            cases.append(op_case(f"{op} axis {axis}", op, f"{op}({{0}}, axis = {axis})", [ties],
                                 lambda t, a=axis, f=fn: torch.from_numpy(f(t.numpy(), axis=a).astype(np.int32)),
                                 attrs={"axis": axis}, grad=False))
        # NaN is the extreme, the first NaN wins (NumPy, PyTorch); ties pick the first index.
        cases.append(op_case(f"{op} nan first", op, f"{op}({{0}})", [f32(5, NAN, 7, 1, NAN).reshape(1, 5)],
                             lambda t, f=fn: torch.from_numpy(f(t.numpy(), axis=-1).astype(np.int32)), attrs={"axis": -1},
                             grad=False))
        cases.append(op_case(f"{op} inf and signed zeros", op, f"{op}({{0}})", [f32(-0.0, 0.0, -INF, INF, INF, -INF).reshape(1, 6)],
                             lambda t, f=fn: torch.from_numpy(f(t.numpy(), axis=-1).astype(np.int32)), attrs={"axis": -1},
                             grad=False))
        cases.append(op_case(f"{op} i32", op, f"{op}({{0}}, axis = 0)", [ints.reshape(3, 3)],
                             lambda t, f=fn: torch.from_numpy(f(t.numpy(), axis=0).astype(np.int32)), attrs={"axis": 0},
                             grad=False))
    return cases


# ---- linear algebra, convolution, pooling -----------------------------------------------------

def matmul_cases():
    cases = []
    shapes = [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((1, 4), (4, 1)), ((2, 2, 3, 4), (2, 2, 4, 3))]
    for k, (sa, sb) in enumerate(shapes):
        cases.append(op_case(f"matmul {sa}@{sb}", "matmul", "{0} @ {1}", [rand(sa, k), rand(sb, k + 10)], torch.matmul,
                             tol=(1e-5, 1e-5)))
    for ta, tb in ((True, False), (False, True), (True, True)):
        a = rand((4, 3) if ta else (3, 4), 20)
        b = rand((5, 4) if tb else (4, 5), 21)
        attrs = {"transpose_a": int(ta), "transpose_b": int(tb)}
        expr = f"matmul({{0}}, {{1}}, transpose_a = {str(ta).lower()}, transpose_b = {str(tb).lower()})"
        cases.append(op_case(f"matmul transpose {ta} {tb}", "matmul", expr, [a, b],
                             lambda x, y, p=ta, q=tb: (x.T if p else x) @ (y.T if q else y), attrs=attrs, tol=(1e-5, 1e-5)))
        a3 = rand((2,) + a.shape, 22)
        b3 = rand((2,) + b.shape, 23)
        cases.append(op_case(f"matmul batched transpose {ta} {tb}", "matmul", expr, [a3, b3],
                             lambda x, y, p=ta, q=tb: (x.transpose(-1, -2) if p else x) @ (y.transpose(-1, -2) if q else y),
                             attrs=attrs, tol=(1e-5, 1e-5)))
    # Batch dimensions broadcast as NumPy's matmul does (the user's path expands them).
    for sa, sb in (((2, 1, 3, 4), (1, 5, 4, 2)), ((3, 4), (2, 4, 5)), ((2, 2, 3, 4), (1, 4, 5))):
        cases.append(Case(f"matmul broadcast {sa}@{sb}", "matmul", "{0} @ {1}", [rand(sa, 30), rand(sb, 31)],
                          torch.matmul, tol=(1e-5, 1e-5), group="matmul broadcast"))
    cases.append(Case("matmul broadcast transpose_b", "matmul", "matmul({0}, {1}, transpose_b = true)",
                      [rand((2, 3, 4), 32), rand((5, 4), 33)], lambda x, y: x @ y.T, tol=(1e-5, 1e-5),
                      group="matmul broadcast"))
    edge_a = f32(INF, 0, 1, NAN, -INF, 2, 1e30, 1e30, 0).reshape(3, 3)
    cases.append(op_case("matmul special values", "matmul", "{0} @ {1}", [edge_a, f32(0, 1, 2, 3, 4, 5, 1e10, 1e10, 0).reshape(3, 3)],
                         torch.matmul, grad=False, half=False))
    return cases


def same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def conv_ref(strides, dilations, padding, groups=1):
    def ref(x, w):
        xt = x.permute(0, 3, 1, 2)
        if padding == "same":
            ph = same_pads(x.shape[1], w.shape[0], strides[0], dilations[0])
            pw = same_pads(x.shape[2], w.shape[1], strides[1], dilations[1])
            xt = F.pad(xt, (pw[0], pw[1], ph[0], ph[1]))
        y = F.conv2d(xt, w.permute(3, 2, 0, 1), stride=strides, dilation=dilations, groups=groups)
        return y.permute(0, 2, 3, 1)
    return ref


def pool_ref(kind, ksize, strides, padding):
    def ref(x):
        xt = x.permute(0, 3, 1, 2)
        if padding == "same":
            ph = same_pads(x.shape[1], ksize[0], strides[0], 1)
            pw = same_pads(x.shape[2], ksize[1], strides[1], 1)
            pads = (pw[0], pw[1], ph[0], ph[1])
        else:
            pads = (0, 0, 0, 0)
        if kind == "max":
            y = F.max_pool2d(F.pad(xt, pads, value=-INF), ksize, strides)
        else:
            # Means over the window's positions inside the input (TF's "same" averaging).
            total = F.avg_pool2d(F.pad(xt, pads), ksize, strides, divisor_override=1)
            count = F.avg_pool2d(F.pad(torch.ones_like(xt), pads), ksize, strides, divisor_override=1)
            y = total / count
        return y.permute(0, 2, 3, 1)
    return ref


def conv_pool_cases():
    cases = []
    x = rand((2, 6, 5, 3), 40)
    for k, (ks, strides, dil, pad) in enumerate([((3, 3), [1, 1], [1, 1], "valid"), ((3, 3), [2, 2], [1, 1], "same"),
                                                 ((2, 2), [1, 1], [1, 1], "same"), ((3, 2), [1, 2], [2, 1], "valid"),
                                                 ((1, 1), [1, 1], [1, 1], "valid"), ((3, 3), [2, 1], [1, 2], "same")]):
        w = rand(ks + (3, 4), 41 + k, -0.5, 0.5)
        expr = f'conv2d({{0}}, {{1}}, strides = {strides}, dilations = {dil}, padding = "{pad}")'
        cases.append(op_case(f"conv2d {ks} s{strides} d{dil} {pad}", "conv2d", expr, [x, w], conv_ref(strides, dil, pad),
                             attrs={"strides": strides, "dilations": dil, "padding": pad}, tol=(1e-5, 1e-5),
                             tol_grad=(1e-4, 1e-4)))
    # Grouped and depthwise (groups = channels, a depth multiplier of 1 and 2) against PyTorch's groups:
    # the direct kernels, and the per-group GEMMs once a group has 16 input and output channels.
    xg = rand((2, 7, 6, 32), 48)
    for k, (c, groups, filters, ks, strides, dil, pad) in enumerate([
            (3, 3, 3, (3, 3), [1, 1], [1, 1], "same"), (3, 3, 6, (3, 2), [2, 1], [1, 2], "valid"),
            (32, 32, 32, (3, 3), [2, 2], [1, 1], "same"), (32, 4, 8, (2, 3), [1, 1], [2, 1], "same"),
            (32, 2, 32, (3, 3), [1, 2], [1, 1], "valid"), (32, 2, 48, (1, 1), [1, 1], [1, 1], "valid")]):
        w = rand(ks + (c // groups, filters), 70 + k, -0.5, 0.5)
        expr = f'conv2d({{0}}, {{1}}, strides = {strides}, dilations = {dil}, padding = "{pad}", groups = {groups})'
        cases.append(op_case(f"conv2d groups {groups} of {c} to {filters} {ks} s{strides} d{dil} {pad}", "conv2d", expr,
                             [np.ascontiguousarray(xg[..., :c]), w], conv_ref(strides, dil, pad, groups),
                             attrs={"strides": strides, "dilations": dil, "padding": pad, "groups": groups},
                             tol=(1e-5, 1e-5), tol_grad=(1e-4, 1e-4)))
    edge = x.copy()
    edge[0, 1, 1, 0] = NAN
    edge[1, 2, 3, 1] = INF
    cases.append(op_case("conv2d nan inf", "conv2d", "conv2d({0}, {1})", [edge, rand((2, 2, 3, 2), 50)],
                         conv_ref([1, 1], [1, 1], "valid"), attrs={"strides": [1, 1], "dilations": [1, 1], "padding": "valid"},
                         grad=False, tol=(1e-5, 1e-5)))
    ties = np.round(x)
    pool_edge = x.copy()
    pool_edge[0, 0, 0, 0] = NAN
    pool_edge[0, 2, 2, 1] = -INF
    pool_edge[1, 3, 3, 2] = INF
    for kind, op in (("max", "max_pool"), ("avg", "avg_pool")):
        for k, (ks, strides, pad) in enumerate([([2, 2], [2, 2], "valid"), ([3, 3], [2, 2], "same"), ([2, 3], [1, 1], "same"),
                                                ([3, 3], [1, 2], "valid")]):
            expr = f'{op}({{0}}, {ks}, strides = {strides}, padding = "{pad}")'
            attrs = {"ksize": ks, "strides": strides, "padding": pad}
            cases.append(op_case(f"{op} {ks} s{strides} {pad}", op, expr, [ties if kind == "max" else x],
                                 pool_ref(kind, ks, strides, pad), attrs=attrs))
        cases.append(op_case(f"{op} nan inf", op, f"{op}({{0}}, [2, 2])", [pool_edge], pool_ref(kind, [2, 2], [2, 2], "valid"),
                             attrs={"ksize": [2, 2], "strides": [2, 2], "padding": "valid"}, grad=False))
    return cases


# ---- softmax, losses, random, state -----------------------------------------------------------

def softmax_cases():
    cases = []
    x = rand((3, 5), 60, -3, 3)
    edge = f32(1000, 1000, -1000, 0, 1, -INF, -INF, 0, 1, 2, 80, 88.5, -80, 1e-40, 0).reshape(3, 5)
    for op, ref in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
        for axis in (-1, 0):
            cases.append(op_case(f"{op} axis {axis}", op, f"{op}({{0}}, axis = {axis})", [x],
                                 lambda t, a=axis, f=ref: f(t, a), attrs={"axis": axis}))
        cases.append(op_case(f"{op} large and masked", op, f"{op}({{0}})", [edge], lambda t, f=ref: f(t, -1),
                             attrs={"axis": -1}))
        cases.append(op_case(f"{op} nan row", op, f"{op}({{0}})", [f32(1, NAN, 2, 0, 0, 0).reshape(2, 3)],
                             lambda t, f=ref: f(t, -1), attrs={"axis": -1}, grad=False))
        cases.append(op_case(f"{op} rank 3 middle", op, f"{op}({{0}}, axis = 1)", [rand((2, 3, 4), 61)],
                             lambda t, f=ref: f(t, 1), attrs={"axis": 1}))
    logits = rand((4, 5), 62, -3, 3)
    logits_edge = f32(1000, 0, -1000, 1, 2, 88.5, 88.5, -80, 0, 0, 0, 0, 0, 0, 0, -INF, 0, 1, 2, 3).reshape(4, 5)
    labels = i32(0, 4, 2, 1)

    def sce(lg, lb):
        return F.cross_entropy(lg, lb.long(), reduction="none")
    cases.append(op_case("softmax_cross_entropy", "softmax_cross_entropy", "softmax_cross_entropy({0}, {1})",
                         [logits, labels], sce))
    cases.append(op_case("softmax_cross_entropy large logits", "softmax_cross_entropy", "softmax_cross_entropy({0}, {1})",
                         [logits_edge, i32(0, 1, 3, 4)], sce))
    cases.append(op_case("softmax_cross_entropy rank 3", "softmax_cross_entropy", "softmax_cross_entropy({0}, {1})",
                         [rand((2, 3, 4), 63), i32(0, 1, 3, 3, 2, 0).reshape(2, 3)],
                         lambda lg, lb: F.cross_entropy(lg.reshape(-1, 4), lb.reshape(-1).long(), reduction="none").reshape(2, 3)))

    def bce(x, z):
        return F.binary_cross_entropy_with_logits(x, z, reduction="none")
    cases.append(op_case("sigmoid_cross_entropy_with_logits edges", "sigmoid_cross_entropy_with_logits",
                         "sigmoid_cross_entropy({0}, {1})",
                         [f32(0, -0.0, 1000, -1000, 80, -80, 1, -1, 20, -20, 1e-40, 3),
                          f32(0, 1, 1, 0, 0.5, 0.5, 0.25, 1, 0, 1, 0.5, 0)], bce))
    cases.append(op_case("sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
                         "sigmoid_cross_entropy({0}, {1})", [rand((3, 4), 64), rand((3, 4), 65, 0, 1)], bce))
    cases.append(Case("dropout_mask in inference", "dropout_mask", "{0} * dropout_mask({0}, 0.5)", [rand((3, 4), 66)],
                      lambda t: t))
    cases.append(op_case("dropout_mask ones", "dropout_mask", "dropout_mask({0}, 0.25)", [rand((2, 3), 67)],
                         lambda t: torch.ones_like(t), attrs={"rate": 0.25, "name": "mask"}, grad=False))
    cases.append(op_case("recomputation_checkpoint", "recomputation_checkpoint", "recomputation_checkpoint({0})",
                         [f32(*F32_EDGES)], lambda t: t * 1.0))
    state = rand((4,), 68)
    cases.append(op_case("moving_average in inference", "moving_average", "moving_average({0}, {1})",
                         [rand((4,), 69), state], lambda x, s: s + 0.0 * x, attrs={"momentum": 0.9}, predict=False,
                         grad=False))
    # While training it passes x on, and so does its gradient (the state follows x between steps).
    cases.append(op_case("moving_average in training", "moving_average", "moving_average({0}, {1})",
                         [rand((4,), 71), state], lambda x, s: x + 0.0 * s.detach(), attrs={"momentum": 0.9},
                         predict=False, training=True))
    cases.append(Case("moving_average state in predict", "moving_average", "moving_average({0}, {p}state)",
                      [rand((4,), 70)], lambda x: torch.from_numpy(state) + 0.0 * x,
                      body=["param {p}state: f32[4] = zeros(), trainable = false"], weights={"c0_state": state},
                      group="moving_average predict"))
    return cases


def size0_cases():
    """Size-0 dimensions, on the op harness only: a model's tensors have no empty dimension (the
    language refuses them), but the ops must still give the right empty or filled results."""
    e = np.zeros((2, 0), dtype=np.float32)
    cases = [
        op_case("relu size-0", "relu", "relu({0})", [e], torch.relu, predict=False),
        op_case("add size-0 broadcast", "add", "{0} + {1}", [np.zeros((0, 3), np.float32), rand((3,), 1)],
                lambda a, b: a + b, predict=False),
        op_case("sum over a size-0 axis", "sum", "sum({0}, axis = 1)", [e], lambda t: t.sum(1), attrs={"axes": [1]},
                predict=False),
        op_case("mean over a size-0 axis", "mean", "mean({0}, axis = 1)", [e], lambda t: t.mean(1), attrs={"axes": [1]},
                predict=False),
        op_case("concat with a size-0 part", "concat", "concat([{0}, {1}], axis = 1)", [e, rand((2, 3), 2)],
                lambda a, b: torch.cat([a, b], 1), attrs={"axis": 1}, predict=False),
        op_case("reshape size-0", "reshape", "reshape({0}, [0, 5])", [np.zeros((5, 0), np.float32)],
                lambda t: t.reshape(0, 5), attrs={"shape": [0, 5]}, predict=False),
        op_case("transpose size-0", "transpose", "transpose({0})", [np.zeros((2, 0, 3), np.float32)],
                lambda t: t.permute(2, 1, 0), attrs={"perm": [2, 1, 0]}, predict=False),
        op_case("matmul with k = 0", "matmul", "{0} @ {1}", [np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32)],
                torch.matmul, predict=False),
        op_case("slice to size 0", "slice", "slice({0}, [0, 2], [2, 2])", [rand((2, 3), 3)],
                lambda t: t[:, 2:2], attrs={"begin": [0, 2], "end": [2, 2]}, predict=False),
        op_case("softmax size-0 rows", "softmax", "softmax({0}, axis = 0)", [np.zeros((0, 3), np.float32)],
                lambda t: torch.softmax(t, 0), attrs={"axis": 0}, predict=False),
    ]
    return cases


def scan_cases():
    """cumsum, argsort, sort, top_k, take_along_axis, scatter_add, tril and triu."""
    x = rand((2, 3, 4), 80)
    edgy = x.copy()
    edgy[0, 1, 1] = NAN
    edgy[1, 0, 2] = INF
    edgy[1, 2, 0] = -INF
    ties = np.round(rand((3, 6), 81) * 2).astype(np.float32)
    ties[1, 3] = NAN
    cases = []
    for axis, exclusive, reverse in ((-1, False, False), (0, False, False), (1, True, False), (-1, False, True),
                                     (1, True, True)):
        def ref(t, a=axis, e=exclusive, r=reverse):
            y = t.flip(a) if r else t
            y = torch.cumsum(y, a)
            if e:
                y = y - (t.flip(a) if r else t)
            return y.flip(a) if r else y
        expr = f"cumsum({{0}}, axis = {axis}, exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()})"
        cases.append(op_case(f"cumsum axis {axis} exclusive {exclusive} reverse {reverse}", "cumsum", expr, [x], ref,
                             attrs={"axis": axis, "exclusive": int(exclusive), "reverse": int(reverse)}))
    cases.append(op_case("cumsum nan inf", "cumsum", "cumsum({0})", [edgy], lambda t: torch.cumsum(t, -1),
                         attrs={"axis": -1}))
    cases.append(op_case("cumsum i32 wraps", "cumsum", "cumsum({0})", [i32(*I32_EDGES)],
                         lambda t: torch.from_numpy(np.cumsum(t.numpy(), dtype=np.int32)), attrs={"axis": -1}))

    def np_argsort(t, axis=-1, descending=False):
        # Stable, nan the largest: ascending sorts by (is nan, value, index), descending by
        # (is not nan, -value, index).
        v = t.detach().numpy().astype(np.float64)
        if descending:
            keys = lambda a: (~np.isnan(a), -np.where(np.isnan(a), 0, a))  # noqa: E731
        else:
            keys = lambda a: (np.isnan(a), np.where(np.isnan(a), 0, a))  # noqa: E731
        return torch.from_numpy(_stable_along(v, axis, keys).astype(np.int32))
    for axis in (-1, 0):
        for desc in (False, True):
            cases.append(op_case(f"argsort axis {axis} descending {desc}", "argsort",
                                 f"argsort({{0}}, axis = {axis}, descending = {str(desc).lower()})", [ties],
                                 lambda t, a=axis, d=desc: np_argsort(t, a, d), attrs={"axis": axis, "descending": int(desc)},
                                 grad=False))
    cases.append(op_case("argsort i32", "argsort", "argsort({0})", [i32(*I32_EDGES)],
                         lambda t: torch.from_numpy(np.argsort(t.numpy(), kind="stable").astype(np.int32)),
                         attrs={"axis": -1}, grad=False))
    cases.append(Case("sort values", "argsort", "sort({0}, axis = 1)", [x[0]], lambda t: torch.sort(t, dim=1, stable=True)[0],
                      group="sort"))
    cases.append(Case("sort descending", "argsort", "sort({0}, descending = true)", [x[1]],
                      lambda t: torch.sort(t, dim=-1, descending=True, stable=True)[0], group="sort"))
    cases.append(Case("top_k values", "take_along_axis", "top_k({0}, 3)[0]", [x[0]], lambda t: torch.topk(t, 3)[0],
                      group="top_k"))
    cases.append(Case("top_k indices ties first", "take_along_axis", "top_k({0}, 4)[1]",
                      [f32(1, 3, 3, 2, 3, 0).reshape(1, 6)], lambda t: torch.from_numpy(i32(1, 2, 4, 3).reshape(1, 4)),
                      group="top_k", grad=False))
    idx = i32(3, 0, 3, 1, 1, 2, 0, 0).reshape(2, 4)
    cases.append(op_case("take_along_axis", "take_along_axis", "take_along_axis({0}, {1})", [rand((2, 5), 82), idx],
                         lambda t, i: torch.take_along_dim(t, i.long(), -1), attrs={"axis": -1}))
    cases.append(op_case("take_along_axis axis 0", "take_along_axis", "take_along_axis({0}, {1}, axis = 0)",
                         [rand((4, 3), 83), i32(3, 0, 1, 3, 3, 2).reshape(2, 3)],
                         lambda t, i: torch.take_along_dim(t, i.long(), 0), attrs={"axis": 0}))
    cases.append(Case("scatter_add rows", "gather_grad", "scatter_add({0}, {1}, {2})",
                      [rand((4, 3), 84), i32(3, 0, 3), rand((3, 3), 85)],
                      lambda t, i, u: t.index_add(0, i.long(), u), group="scatter_add"))
    cases.append(Case("scatter_add axis 1", "gather_grad", "scatter_add({0}, {1}, {2}, axis = 1)",
                      [rand((2, 5), 86), i32(4, 4, 0), rand((2, 3), 87)],
                      lambda t, i, u: t.index_add(1, i.long(), u), group="scatter_add"))
    for k, (eq, sa, sb) in enumerate([("ij,jk->ik", (3, 4), (4, 5)), ("bij,bkj->bik", (2, 3, 4), (2, 5, 4)),
                                       ("i,j->ij", (3,), (4,)), ("bhqd,bhkd->bhqk", (2, 2, 3, 4), (2, 2, 5, 4)),
                                       ("ij,ij->", (3, 4), (3, 4)), ("...ij,jk", (2, 3, 4), (4, 2)),
                                       ("bij,jk->bk", (2, 3, 4), (4, 5)), ("xij,yjk->xyik", (2, 1, 3), (2, 3, 2)),
                                       ("bi,bi->b", (1, 4), (3, 4))]):
        cases.append(Case(f"einsum {eq}", "matmul", f'einsum("{eq}", {{0}}, {{1}})', [rand(sa, 90 + k), rand(sb, 100 + k)],
                          lambda x, y, e=eq: torch.einsum(e, x, y), tol=(1e-5, 1e-5), group="einsum"))
    for op, fn in (("tril", torch.tril), ("triu", torch.triu)):
        for k in (0, 1, -2):
            cases.append(op_case(f"{op} k {k}", op, f"{op}({{0}}, k = {k})", [edgy], lambda t, f=fn, kk=k: f(t, kk),
                                 attrs={"k": k}))
        cases.append(op_case(f"{op} i32 wide", op, f"{op}({{0}})", [randint((2, 5), 88, -9, 9)], fn, attrs={"k": 0}))
    return cases


def ctc_loss_ref(blank=0):
    """PyTorch's ctc_loss on log_softmax(logits), one loss per sample. Where no alignment fits the
    loss is +inf as with zero_infinity=False, but the gradient is zero_infinity=True's zero (the
    op's rule; PyTorch's own is nan there). One call per sample: in a batch, PyTorch 1.13's CPU
    kernel gives a sample of no steps the loss of the sample before it."""
    def one(lg, lb, il, tl):
        lp = torch.log_softmax(lg, -1).transpose(0, 1)
        args = (lp, lb.long(), il.long(), tl.long())
        raw = F.ctc_loss(*args, blank=blank, reduction="none", zero_infinity=False).detach()
        finite = F.ctc_loss(*args, blank=blank, reduction="none", zero_infinity=True)
        return torch.where(torch.isinf(raw), raw, finite)

    def ref(lg, lb, il, tl):
        return torch.cat([one(lg[i:i + 1], lb[i:i + 1], il[i:i + 1], tl[i:i + 1]) for i in range(lg.shape[0])])
    return ref


def ctc_greedy_ref(blank=0):
    """Best path decoding in NumPy: argmax per step (the first of ties, the first nan), repeats
    merged, blanks dropped, left-aligned, -1 after."""
    def ref(lg, il):
        v = lg.detach().numpy()
        out = np.full(v.shape[:2], -1, dtype=np.int32)
        for i in range(v.shape[0]):
            prev, n = -1, 0
            for k in range(int(il[i])):
                best = int(np.argmax(v[i, k]))
                if best != blank and best != prev:
                    out[i, n] = best
                    n += 1
                prev = best
        return torch.from_numpy(out)
    return ref


def ctc_beam_ref(top_paths, blank=0):
    """The beam search's answer when its beam holds every prefix, by enumeration in NumPy: every
    alignment of a sample's counted steps collapsed (repeats merged, blanks dropped), its
    probabilities summed per labelling, the labellings ranked by that sum (equal ones by their
    labels). Rows [log P, labels..., -1...]; rows past the labellings -inf and -1s."""
    def ref(lg, il):
        v = lg.detach().numpy().astype(np.float64)
        b, t, c = v.shape
        blank_class = c - 1 if blank == -1 else blank
        m = v.max(axis=-1, keepdims=True)
        logp = v - (m + np.log(np.exp(v - m).sum(axis=-1, keepdims=True)))
        out = np.full((b, top_paths, t + 1), -1.0, dtype=np.float32)
        out[:, :, 0] = -np.inf
        for i in range(b):
            steps = int(il[i])
            sums = {}
            for path in itertools.product(range(c), repeat=steps):
                labels, prev = [], -1
                for k in path:
                    if k != blank_class and k != prev:
                        labels.append(k)
                    prev = k
                w = sum(logp[i, k, path[k]] for k in range(steps))
                sums.setdefault(tuple(labels), []).append(w)
            ranked = sorted(((np.logaddexp.reduce(ws), key) for key, ws in sums.items()),
                            key=lambda r: (-r[0], r[1]))
            for p, (lp, key) in enumerate(ranked[:top_paths]):
                out[i, p, 0] = lp
                out[i, p, 1:1 + len(key)] = key
        return torch.from_numpy(out)
    return ref


def ctc_cases():
    """ctc_loss (values and gradients) against PyTorch, ctc_greedy_decode and ctc_beam_search_decode
    against NumPy."""
    expr = "ctc_loss({0}, {1}, {2}, {3}{blank})"
    cases = []

    def loss_case(name, inputs, blank=0, **kw):
        b = "" if blank == 0 else f", blank = {blank}"
        attrs = {} if blank == 0 else {"blank": blank}
        cases.append(op_case(name, "ctc_loss", expr.replace("{blank}", b), inputs, ctc_loss_ref(blank),
                             attrs=attrs, **kw))
    # Mixed lengths: full, fewer steps than t, fewer labels than l (padding -1, never read).
    loss_case("ctc_loss", [rand((3, 6, 5), 110, -3, 3), i32(1, 2, 3, 4, 4, -1, 2, -1, -1).reshape(3, 3), i32(6, 5, 4), i32(3, 2, 1)])
    big = rand((2, 5, 4), 111, -80, 80)
    big[0, 1] = f32(80, -80, 80, -80)
    big[1, 2] = f32(-80, -80, -80, 80)
    big[1, 4] = f32(1000, -1000, 0, 1000)
    loss_case("ctc_loss large logits", [big, i32(1, 2, 3, 3, 1, 3).reshape(2, 3), i32(5, 5), i32(3, 3)],
              tol=(1e-5, 1e-5))
    # Repeats need a blank between them: 1 1 in exactly 3 steps, 2 2 2 in exactly 5, 3 3 in 4.
    loss_case("ctc_loss repeats", [rand((3, 5, 4), 112), i32(1, 1, 0, 2, 2, 2, 3, 3, 0).reshape(3, 3), i32(3, 5, 4), i32(2, 3, 2)])
    # No labels, no steps and no labels, all steps one label, and two impossible ones (+inf):
    # 1 1 in 2 steps and 3 labels in 2 steps.
    loss_case("ctc_loss length edges", [rand((5, 4, 3), 113), i32(1, 2, 0, 0, 0, 0, 2, 0, 0, 1, 1, 0, 1, 2, 1).reshape(5, 3),
                                        i32(4, 0, 4, 2, 2), i32(0, 0, 1, 2, 3)])
    loss_case("ctc_loss blank last", [rand((2, 6, 4), 114), i32(0, 2, 1, 1, 1, 0).reshape(2, 3), i32(6, 6), i32(3, 3)], blank=3)
    # blank = -1 is the last class, the seed's default blank_index.
    cases.append(op_case("ctc_loss blank -1", "ctc_loss", "ctc_loss({0}, {1}, {2}, {3}, blank = -1)",
                         [rand((2, 6, 4), 114), i32(0, 2, 1, 1, 1, 0).reshape(2, 3), i32(6, 6), i32(3, 3)],
                         ctc_loss_ref(3), attrs={"blank": -1}))
    loss_case("ctc_loss blank 2", [rand((2, 5, 5), 115), i32(1, 3, 4, 0, 0, 0).reshape(2, 3), i32(5, 4), i32(3, 2)], blank=2)
    decode = np.round(rand((3, 6, 4), 116, 0, 2)).astype(np.float32)
    decode[1, 3, 2] = NAN
    cases.append(op_case("ctc_greedy_decode", "ctc_greedy_decode", "ctc_greedy_decode({0}, {1})",
                         [decode, i32(6, 4, 0)], ctc_greedy_ref(0), grad=False))
    cases.append(op_case("ctc_greedy_decode blank 1 ties", "ctc_greedy_decode",
                         "ctc_greedy_decode({0}, {1}, blank = 1)", [decode, i32(5, 6, 3)], ctc_greedy_ref(1),
                         attrs={"blank": 1}, grad=False))
    # Beams wide enough to hold every prefix (63 for 5 steps of 2 symbols, 121 for 4 steps of 3), so
    # the search is exact; steps short of t and none (the empty labelling, certain).
    cases.append(op_case("ctc_beam_search_decode", "ctc_beam_search_decode",
                         "ctc_beam_search_decode({0}, {1}, beam_width = 64, top_paths = 3)",
                         [rand((3, 5, 3), 117, -3, 3), i32(5, 4, 0)], ctc_beam_ref(3),
                         attrs={"beam_width": 64, "top_paths": 3}, grad=False))
    cases.append(op_case("ctc_beam_search_decode blank last", "ctc_beam_search_decode",
                         "ctc_beam_search_decode({0}, {1}, beam_width = 128, top_paths = 2, blank = -1)",
                         [rand((2, 4, 4), 118, -3, 3), i32(4, 3)], ctc_beam_ref(2, blank=-1),
                         attrs={"beam_width": 128, "top_paths": 2, "blank": -1}, grad=False))
    return cases


def collective_cases():
    """The collectives at one replica (the suite's runs have one): each passes its operand unchanged,
    as torch.distributed's do in a group of one process; tests/core/collectives_test.cpp and
    tests/distributed run them across replicas."""
    edgy = f32(*F32_EDGES[:12]).reshape(3, 4)
    cases = [
        op_case("cross_replica_sum one replica", "cross_replica_sum", "cross_replica_sum({0})", [edgy],
                lambda t: t.clone()),
        op_case("cross_replica_mean one replica", "cross_replica_sum", "cross_replica_mean({0})", [edgy],
                lambda t: t.clone(), attrs={"mean": 1}),
        op_case("cross_replica_sum i32 one replica", "cross_replica_sum", "cross_replica_sum({0})",
                [i32(*I32_EDGES)], lambda t: t.clone(), grad=False),
        op_case("all_gather one replica", "all_gather", "all_gather({0}, group = 1)", [edgy],
                lambda t: t.unsqueeze(0), attrs={"group": 1}),
        op_case("reduce_scatter one replica", "reduce_scatter", "reduce_scatter({0}, group = 1)", [edgy],
                lambda t: t.clone(), attrs={"group": 1}),
        op_case("all_to_all one replica", "all_to_all", "all_to_all({0}, split_axis = 1, concat_axis = 0, group = 1)",
                [edgy], lambda t: t.clone(), attrs={"split_axis": 1, "concat_axis": 0, "group": 1}),
        op_case("replication_index one replica", "replication_index", "replication_index() + {0} * 0",
                [np.array(7, dtype=np.int32)],
                lambda t: torch.zeros((), dtype=torch.int32), grad=False),
    ]
    return cases


def dynamic_slice_cases():
    """Slices at offsets given as data: dynamic_slice and dynamic_update_slice (offsets clamped as
    XLA clamps), sequence_slice (NumPy row copies in order), at the edges of the values."""
    x = rand((4, 5), 130)
    x[1, 2] = NAN
    x[2, 3] = -INF

    def window(t, off, sizes):
        starts = [min(max(int(o), 0), d - s) for o, d, s in zip(off, t.shape, sizes)]
        return t[tuple(slice(a, a + s) for a, s in zip(starts, sizes))]

    def ds_ref(sizes):
        return lambda t, off: window(t, off.numpy(), sizes)

    def dus_ref(t, u, off):
        out = t.clone()
        starts = [min(max(int(o), 0), d - s) for o, d, s in zip(off.numpy(), t.shape, u.shape)]
        out[tuple(slice(a, a + s) for a, s in zip(starts, u.shape))] = u
        return out

    def seq_ref(zero_unused):
        def ref(dst, src, n, so, do):
            out = torch.zeros_like(dst) if zero_unused else dst.clone()
            for k, a, b in zip(n.numpy(), so.numpy(), do.numpy()):
                out[b:b + k] = src[a:a + k]
            return out
        return ref
    cases = []
    for name, off, sizes in (("in range", (1, 2), [2, 2]), ("clamped", (7, -3), [3, 4])):
        expr = f"dynamic_slice({{0}}, {{1}}, sizes = {sizes})"
        cases.append(op_case(f"dynamic_slice {name}", "dynamic_slice", expr, [x, i32(*off)], ds_ref(sizes),
                             attrs={"sizes": sizes}))
    cases.append(op_case("dynamic_update_slice clamped", "dynamic_update_slice", "dynamic_update_slice({0}, {1}, {2})",
                         [x, rand((2, 3), 131), i32(3, 9)], dus_ref))
    dst, src = rand((6, 3), 132), rand((5, 3), 133)
    src[1, 1] = NAN
    lists = [i32(2, 2, 1), i32(0, 3, 4), i32(1, 2, 5)]
    for zero in (False, True):
        expr = f"sequence_slice({{0}}, {{1}}, {{2}}, {{3}}, {{4}}, zero_unused = {str(zero).lower()})"
        cases.append(op_case(f"sequence_slice zero_unused {zero}", "sequence_slice", expr, [dst, src] + lists,
                             seq_ref(zero), attrs={"zero_unused": int(zero)}))
    return cases


def index_at_cases():
    """x[i] and x[:, i] at an i32 index given as data (the language's index at a loop's counter),
    clamped into the dimension as XLA clamps, at the edges of the values."""
    x = rand((3, 4), 134)
    x[1, 2] = NAN
    x[2, 3] = -INF
    x[2, 0] = -0.0

    def clamp(i, n):
        return min(max(int(i), 0), n - 1)
    return [op_case("index_at row", "index_at", "{0}[{1}]", [x, np.array(2, dtype=np.int32)],
                    lambda t, i: t[clamp(i, 3)], attrs={"axis": 0}),
            op_case("index_at column clamped", "index_at", "{0}[:, {1}]", [x, np.array(7, dtype=np.int32)],
                    lambda t, i: t[:, clamp(i, 4)], attrs={"axis": 1})]


def histogram_cases():
    """The seed's histogram against NumPy's digitize and bincount (n levels, n + 1 bins)."""
    x = f32(*F32_EDGES)
    levels = f32(-80.0, -1.0, 0.0, 0.5, 2.5, 88.5)

    def ref(absolute):
        def r(t, lv):
            v = np.abs(t.numpy()) if absolute else t.numpy()
            return torch.from_numpy(np.bincount(np.digitize(v, lv.numpy()), minlength=len(lv) + 1).astype(np.float32))
        return r
    return [op_case(f"histogram absolute {a}", "histogram", f"histogram({{0}}, {{1}}, absolute_of_input = {str(a).lower()})",
                    [x, levels], ref(a), attrs={"absolute": int(a)}, grad=False) for a in (False, True)]


def _stable_along(v, axis, keys):
    moved = np.moveaxis(v, axis, -1)
    out = np.empty(moved.shape, dtype=np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        primary, secondary = keys(moved[pos])
        out[pos] = np.lexsort((np.arange(moved.shape[-1]), secondary, primary))
    return np.moveaxis(out, -1, axis)


def all_cases():
    cases = []
    for make in (unary_cases, binary_cases, compare_cases, where_cases, shape_cases, gather_cases, one_hot_cases,
                 reduce_cases, matmul_cases, conv_pool_cases, softmax_cases, size0_cases, scan_cases,
                 ctc_cases, collective_cases, dynamic_slice_cases, index_at_cases, histogram_cases):
        cases += make()
    import diff_layers
    import diff_recurrent
    cases += diff_layers.layer_cases() + diff_recurrent.all_cases()
    return cases
