// The one list of primitive ops. OpKind, the kXxxOp declarations and the op table are generated
// from it (op.hpp, ops.hpp, op_table.cpp), and so are the model language's plain builtins
// (frontend/plain_builtins.cpp). Each line is IPUTRAIN_OP(Kind, surface): Kind names OpKind::Kind
// and the definition kKindOp in its own file of this folder; surface is `builtin` when the
// language has a builtin named like the op that is nothing but the op (its inputs, then its
// attributes as keyword arguments with the OpDef's defaults), `internal` otherwise.
//
// The order is OpKind's and docs/ops.md's; nothing serialises OpKind numbers (IR text, goldens
// and checkpoints use names), so a new op may go where it reads best.
//
// Included several times with different definitions of IPUTRAIN_OP: no include guard.

// Leaves: no inputs, their values come from outside the program.
IPUTRAIN_OP(Input, internal)     // fed by the infeed; attrs: none (name = field name)
IPUTRAIN_OP(Param, internal)     // a weight; attrs: init, init arguments, trainable
IPUTRAIN_OP(Constant, internal)  // a filled tensor; attrs: value
// Elementwise, NumPy broadcasting.
IPUTRAIN_OP(Add, internal)
IPUTRAIN_OP(Sub, internal)
IPUTRAIN_OP(Mul, internal)
IPUTRAIN_OP(Div, internal)
IPUTRAIN_OP(Pow, internal)
IPUTRAIN_OP(Maximum, internal)
IPUTRAIN_OP(Minimum, internal)
IPUTRAIN_OP(MinMaxGrad, internal)  // (a, b, dy) -> dy where side `side` wins; attrs: mode, side
IPUTRAIN_OP(Where, internal)       // (cond bool, a, b) -> a where cond else b
// Elementwise unary (f32).
IPUTRAIN_OP(Neg, builtin)
IPUTRAIN_OP(Relu, builtin)
IPUTRAIN_OP(ReluGrad, internal)  // (x, dy) -> dy where x > 0
IPUTRAIN_OP(Exp, builtin)
IPUTRAIN_OP(Log, builtin)
IPUTRAIN_OP(Sqrt, builtin)
IPUTRAIN_OP(Rsqrt, builtin)
IPUTRAIN_OP(Abs, builtin)
IPUTRAIN_OP(Square, builtin)
IPUTRAIN_OP(Tanh, builtin)
IPUTRAIN_OP(Sigmoid, builtin)
IPUTRAIN_OP(Gelu, builtin)  // attrs: approximate ("none" | "tanh")
IPUTRAIN_OP(Swish, builtin)
IPUTRAIN_OP(HardSigmoid, builtin)
IPUTRAIN_OP(Erf, builtin)
IPUTRAIN_OP(Sin, builtin)
IPUTRAIN_OP(Cos, builtin)
IPUTRAIN_OP(Floor, builtin)
IPUTRAIN_OP(Ceil, builtin)
IPUTRAIN_OP(Round, builtin)  // halves to even
IPUTRAIN_OP(Sign, builtin)
IPUTRAIN_OP(UnaryGrad, internal)  // (x, dy) -> dy * f'(x); attrs: fn (a unary op's name) and its attrs
// Comparisons -> bool.
IPUTRAIN_OP(Equal, internal)
IPUTRAIN_OP(NotEqual, internal)
IPUTRAIN_OP(Less, internal)
IPUTRAIN_OP(LessEqual, internal)
IPUTRAIN_OP(Greater, internal)
IPUTRAIN_OP(GreaterEqual, internal)
IPUTRAIN_OP(Cast, internal)  // attrs: dtype (name)
// Shape.
IPUTRAIN_OP(Reshape, internal)            // attrs: shape
IPUTRAIN_OP(BroadcastTo, internal)        // attrs: shape
IPUTRAIN_OP(Transpose, internal)          // attrs: perm
IPUTRAIN_OP(Concat, internal)             // variadic; attrs: axis
IPUTRAIN_OP(Slice, internal)              // attrs: begin, end, strides
IPUTRAIN_OP(SliceGrad, internal)          // (dy) -> zeros of attr shape with dy written at the slice
IPUTRAIN_OP(Gather, builtin)              // (params, i32 indices); attrs: axis
IPUTRAIN_OP(GatherGrad, internal)         // (indices, dy) -> scatter-add into attr shape
IPUTRAIN_OP(TakeAlongAxis, builtin)       // (x, i32 indices of x's rank); attrs: axis
IPUTRAIN_OP(TakeAlongAxisGrad, internal)  // (indices, dy) -> add dy back into zeros of attr shape
IPUTRAIN_OP(OneHot, builtin)              // (i32 indices) -> f32[..., depth]; attrs: depth, on, off
IPUTRAIN_OP(Tril, builtin)                // attrs: k; matrices in the last two dimensions
IPUTRAIN_OP(Triu, builtin)                // attrs: k
// Reductions.
IPUTRAIN_OP(Sum, internal)      // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Mean, internal)     // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Max, internal)      // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Argmax, internal)   // attrs: axis; -> i32
IPUTRAIN_OP(Argmin, internal)   // attrs: axis; -> i32
IPUTRAIN_OP(Cumsum, internal)   // attrs: axis, exclusive, reverse
IPUTRAIN_OP(Argsort, internal)  // attrs: axis, descending; -> i32, stable
// Linear algebra and convolution (NHWC).
IPUTRAIN_OP(MatMul, internal)                // [..., m, k] @ [k, n] or batched with equal leading dims
IPUTRAIN_OP(Conv2D, internal)                // (x[N,H,W,C], w[KH,KW,C/groups,F]); strides, dilations, padding, groups
IPUTRAIN_OP(Conv2DBackpropInput, internal)   // (dy, filter) -> dx; attrs as conv2d + input_shape
IPUTRAIN_OP(Conv2DBackpropFilter, internal)  // (x, dy) -> dfilter; attrs as conv2d + filter_shape
IPUTRAIN_OP(MaxPool, internal)               // attrs: ksize, strides, padding
IPUTRAIN_OP(MaxPoolGrad, internal)           // (x, dy) -> dx
IPUTRAIN_OP(AvgPool, internal)               // attrs: ksize, strides, padding
IPUTRAIN_OP(AvgPoolGrad, internal)           // (dy) -> dx; attrs as avg_pool + input_shape
// Recurrent (fused; core/ops/recurrent_util.hpp).
IPUTRAIN_OP(Lstm, builtin)       // (xw, recurrent_kernel, h0, c0, lengths) -> per step i, f, g, o, c, h
IPUTRAIN_OP(LstmGrad, internal)  // (dy, out, recurrent_kernel, c0, lengths) -> dpre per step, then dh0, dc0
IPUTRAIN_OP(Gru, builtin)        // (xw, recurrent_kernel, recurrent_bias, h0, lengths); attrs: reset_after
IPUTRAIN_OP(GruGrad, internal)   // (dy, out, recurrent_kernel, h0, lengths) -> [dxw | d_inner] per step, then dh0
// Softmax.
IPUTRAIN_OP(Softmax, builtin)          // attrs: axis
IPUTRAIN_OP(SoftmaxGrad, internal)     // (y, dy) -> dx; attrs: axis
IPUTRAIN_OP(LogSoftmax, builtin)       // attrs: axis
IPUTRAIN_OP(LogSoftmaxGrad, internal)  // (y, dy) -> dx; attrs: axis
// Random.
IPUTRAIN_OP(DropoutMask, internal)  // -> f32 mask of 0 or 1/(1-rate); attrs: rate, shape, name
// Non-trainable state.
IPUTRAIN_OP(MovingAverage, internal)  // (x, state) -> x while training, state in inference; attrs: momentum
// Losses.
IPUTRAIN_OP(SoftmaxCrossEntropy, builtin)             // (logits f32[..., C], labels i32[...]) -> f32[...]
IPUTRAIN_OP(SoftmaxCrossEntropyGrad, internal)        // (logits, labels, dy f32[...]) -> f32[..., C]
IPUTRAIN_OP(SigmoidCrossEntropyWithLogits, internal)  // (logits f32, labels f32) -> f32, elementwise
// CTC (connectionist temporal classification); attrs: blank.
IPUTRAIN_OP(CtcLoss, builtin)  // (logits f32[b, t, c], labels i32[b, l], logit_lengths, label_lengths i32[b]) -> f32[b]
IPUTRAIN_OP(CtcLossGrad, internal)     // (logits, labels, logit_lengths, label_lengths, dy f32[b]) -> f32[b, t, c]
IPUTRAIN_OP(CtcGreedyDecode, builtin)  // (logits f32[b, t, c], logit_lengths i32[b]) -> i32[b, t], padded with -1
// Pipelining.
IPUTRAIN_OP(RecomputationCheckpoint, builtin)  // identity whose output is stashed, not recomputed
