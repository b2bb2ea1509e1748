// The one list of primitive ops. OpKind, the kXxxOp declarations and the op table are generated
// from it (op.hpp, ops.hpp, op_table.cpp), and so are the model language's plain builtins
// (frontend/plain_builtins.cpp). Each line is IPUTRAIN_OP(Kind, surface, none): Kind names OpKind::Kind
// and the definition kKindOp in its own file of this folder; surface is `builtin` when the
// language has a builtin named like the op that is nothing but the op (its inputs, then its
// attributes as keyword arguments with the OpDef's defaults), `internal` otherwise. flags are
// what the planner and the engine ask of the op (op.hpp's op_flags, joined with |, or none), so
// that no pass tests an op's name.
//
// The order is OpKind's and docs/ops.md's; nothing serialises OpKind numbers (IR text, goldens
// and checkpoints use names), so a new op may go where it reads best.
//
// Included several times with different definitions of IPUTRAIN_OP: no include guard.

// Leaves: no inputs, their values come from outside the program.
IPUTRAIN_OP(Input, internal, leaf | fed)          // fed by the infeed; attrs: none (name = field name)
IPUTRAIN_OP(Param, internal, leaf | weight)       // a weight; attrs: init, init arguments, trainable
IPUTRAIN_OP(Constant, internal, leaf | constant)  // a filled tensor; attrs: value
// Elementwise, NumPy broadcasting.
IPUTRAIN_OP(Add, internal, fuse_bias_head)
IPUTRAIN_OP(Sub, internal, none)
IPUTRAIN_OP(Mul, internal, none)
IPUTRAIN_OP(Div, internal, none)
IPUTRAIN_OP(Pow, internal, none)
IPUTRAIN_OP(Maximum, internal, none)
IPUTRAIN_OP(Minimum, internal, none)
IPUTRAIN_OP(MinMaxGrad, internal, none)  // (a, b, dy) -> dy where side `side` wins; attrs: mode, side
IPUTRAIN_OP(Where, internal, none)       // (cond bool, a, b) -> a where cond else b
// Elementwise unary (f32).
IPUTRAIN_OP(Neg, builtin, none)
IPUTRAIN_OP(Relu, builtin, fuse_relu_tail)
IPUTRAIN_OP(ReluGrad, internal, none)  // (x, dy) -> dy where x > 0
IPUTRAIN_OP(Exp, builtin, none)
IPUTRAIN_OP(Log, builtin, pole)
IPUTRAIN_OP(Log1p, builtin, pole)
IPUTRAIN_OP(Sqrt, builtin, grad_pole)
IPUTRAIN_OP(Rsqrt, builtin, pole | grad_pole)
IPUTRAIN_OP(Abs, builtin, none)
IPUTRAIN_OP(Square, builtin, none)
IPUTRAIN_OP(Tanh, builtin, none)
IPUTRAIN_OP(Sigmoid, builtin, none)
IPUTRAIN_OP(Gelu, builtin, none)  // attrs: approximate ("none" | "tanh")
IPUTRAIN_OP(Swish, builtin, none)
IPUTRAIN_OP(HardSigmoid, builtin, none)
IPUTRAIN_OP(Softsign, builtin, none)
IPUTRAIN_OP(Erf, builtin, none)
IPUTRAIN_OP(Sin, builtin, none)
IPUTRAIN_OP(Cos, builtin, none)
IPUTRAIN_OP(Floor, builtin, none)
IPUTRAIN_OP(Ceil, builtin, none)
IPUTRAIN_OP(Round, builtin, none)  // halves to even
IPUTRAIN_OP(Sign, builtin, none)
IPUTRAIN_OP(UnaryGrad, internal, derivative)  // (x, dy) -> dy * f'(x); attrs: fn (a unary op's name) and its attrs
// Comparisons -> bool.
IPUTRAIN_OP(Equal, internal, none)
IPUTRAIN_OP(NotEqual, internal, none)
IPUTRAIN_OP(Less, internal, none)
IPUTRAIN_OP(LessEqual, internal, none)
IPUTRAIN_OP(Greater, internal, none)
IPUTRAIN_OP(GreaterEqual, internal, none)
IPUTRAIN_OP(Cast, internal, takes_u8)  // attrs: dtype (name)
// Shape.
IPUTRAIN_OP(Reshape, internal, view | takes_u8)  // attrs: shape
IPUTRAIN_OP(BroadcastTo, internal, none)        // attrs: shape
IPUTRAIN_OP(Transpose, internal, takes_u8)      // attrs: perm
IPUTRAIN_OP(Concat, internal, none)             // variadic; attrs: axis
IPUTRAIN_OP(Slice, internal, takes_u8)          // attrs: begin, end, strides
IPUTRAIN_OP(SliceGrad, internal, none)          // (dy) -> zeros of attr shape with dy written at the slice
IPUTRAIN_OP(Gather, builtin, row_gather)        // (params, i32 indices); attrs: axis
IPUTRAIN_OP(GatherGrad, internal, row_scatter)  // (indices, dy) -> scatter-add into attr shape
IPUTRAIN_OP(TakeAlongAxis, builtin, none)       // (x, i32 indices of x's rank); attrs: axis
IPUTRAIN_OP(TakeAlongAxisGrad, internal, none)  // (indices, dy) -> add dy back into zeros of attr shape
IPUTRAIN_OP(IndexAt, internal, none)            // (x, i32 index scalar) -> x without `axis`, at the (clamped) index
IPUTRAIN_OP(IndexAtGrad, internal, none)        // (dy, index) -> zeros of attr shape with dy at the index of `axis`
IPUTRAIN_OP(DynamicSlice, internal, none)       // (x, i32 offsets[rank]); attrs: sizes; offsets clamped
IPUTRAIN_OP(DynamicUpdateSlice, builtin, none)  // (x, update, i32 offsets[rank]) -> x with update written there
IPUTRAIN_OP(SequenceSlice, internal, none)      // (dst, src, num_elems, src_offsets, dst_offsets); attrs: zero_unused
IPUTRAIN_OP(SequenceSliceGrad, internal, none)  // (dy, the three lists) -> d dst or d src; attrs: side, shape
IPUTRAIN_OP(OneHot, builtin, none)              // (i32 indices) -> f32[..., depth]; attrs: depth, on, off
IPUTRAIN_OP(Tril, builtin, none)                // attrs: k; matrices in the last two dimensions
IPUTRAIN_OP(Triu, builtin, none)                // attrs: k
// Reductions.
IPUTRAIN_OP(Sum, internal, none)      // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Mean, internal, none)     // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Max, internal, none)      // attrs: axes (empty = all), keepdims
IPUTRAIN_OP(Argmax, internal, none)   // attrs: axis; -> i32
IPUTRAIN_OP(Argmin, internal, none)   // attrs: axis; -> i32
IPUTRAIN_OP(Cumsum, internal, none)   // attrs: axis, exclusive, reverse
IPUTRAIN_OP(Argsort, internal, none)  // attrs: axis, descending; -> i32, stable
// Linear algebra and convolution (NHWC).
IPUTRAIN_OP(MatMul, internal, matmul_temporaries)  // [..., m, k] @ [k, n] or batched with equal leading dims
IPUTRAIN_OP(Conv2D, internal, conv_temporaries)    // (x NHWC, w[KH,KW,C/groups,F]); strides, dilations, padding, groups
IPUTRAIN_OP(Conv2DBackpropInput, internal, conv_temporaries)   // (dy, filter) -> dx; attrs as conv2d + input_shape
IPUTRAIN_OP(Conv2DBackpropFilter, internal, conv_temporaries)  // (x, dy) -> dfilter; attrs as conv2d + filter_shape
IPUTRAIN_OP(MaxPool, internal, none)                           // attrs: ksize, strides, padding
IPUTRAIN_OP(MaxPoolGrad, internal, none)                       // (x, dy) -> dx
IPUTRAIN_OP(AvgPool, internal, none)                           // attrs: ksize, strides, padding
IPUTRAIN_OP(AvgPoolGrad, internal, none)                       // (dy) -> dx; attrs as avg_pool + input_shape
// Recurrent (fused; core/ops/recurrent_util.hpp).
IPUTRAIN_OP(Lstm, builtin, none)       // (xw, recurrent_kernel, h0, c0, lengths) -> per step i, f, g, o, c, h
IPUTRAIN_OP(LstmGrad, internal, none)  // (dy, out, recurrent_kernel, c0, lengths) -> dpre per step, then dh0, dc0
IPUTRAIN_OP(Gru, builtin, none)        // (xw, recurrent_kernel, recurrent_bias, h0, lengths); attrs: reset_after
IPUTRAIN_OP(GruGrad, internal, none)   // (dy, out, recurrent_kernel, h0, lengths) -> [dxw | d_inner] per step, then dh0
// Softmax.
IPUTRAIN_OP(Softmax, builtin, none)          // attrs: axis
IPUTRAIN_OP(SoftmaxGrad, internal, none)     // (y, dy) -> dx; attrs: axis
IPUTRAIN_OP(LogSoftmax, builtin, none)       // attrs: axis
IPUTRAIN_OP(LogSoftmaxGrad, internal, none)  // (y, dy) -> dx; attrs: axis
// Random.
IPUTRAIN_OP(DropoutMask, internal, none)  // -> f32 mask of 0 or 1/(1-rate); attrs: rate, shape, name
IPUTRAIN_OP(
    CandidateSampler, internal,
    none)  // (labels i32[b, t]) -> (class, log expected count) rows; attrs: num_sampled, range_max, unique, name
// Statistics.
IPUTRAIN_OP(Histogram, internal, none)  // (x f32[m], levels f32[n]) -> f32[n + 1] counts; attrs: absolute
// Non-trainable state.
IPUTRAIN_OP(MovingAverage, internal,
            state_update)  // (x, state) -> x while training, state in inference; attrs: momentum
IPUTRAIN_OP(StateRead, internal,
            checkpoint | stateful | state_read)  // (state) -> the state (zeros where reset), stashed
IPUTRAIN_OP(StateWrite, internal,
            checkpoint | stateful | state_write)  // (x, state) -> x, which the engine then copies into the state
// Losses.
IPUTRAIN_OP(SoftmaxCrossEntropy, builtin, none)             // (logits f32[..., C], labels i32[...]) -> f32[...]
IPUTRAIN_OP(SoftmaxCrossEntropyGrad, internal, none)        // (logits, labels, dy f32[...]) -> f32[..., C]
IPUTRAIN_OP(SigmoidCrossEntropyWithLogits, internal, none)  // (logits f32, labels f32) -> f32, elementwise
// CTC (connectionist temporal classification); attrs: blank.
IPUTRAIN_OP(CtcLoss, builtin,
            none)  // (logits f32[b, t, c], labels i32[b, l], logit_lengths, label_lengths i32[b]) -> f32[b]
IPUTRAIN_OP(CtcLossGrad, internal, none)  // (logits, labels, logit_lengths, label_lengths, dy f32[b]) -> f32[b, t, c]
IPUTRAIN_OP(CtcGreedyDecode, builtin, none)  // (logits f32[b, t, c], logit_lengths i32[b]) -> i32[b, t], padded with -1
IPUTRAIN_OP(CtcBeamSearchDecode, builtin,
            none)  // (logits, logit_lengths) -> f32[b, top_paths, t + 1]; beam_width, top_paths
// Across replicas (ExecContext::replicas; core/ops/collective_util.hpp); attrs: group.
IPUTRAIN_OP(CrossReplicaSum, builtin, per_replica)    // same shape, summed (mean = 1: averaged) over the group
IPUTRAIN_OP(AllGather, builtin, per_replica)          // x -> [group, ...x], the members' x in replica order
IPUTRAIN_OP(ReduceScatter, builtin, per_replica)      // f32[group k, ...] -> [k, ...]: this member's block of the sum
IPUTRAIN_OP(AllToAll, builtin, per_replica)           // attrs: split_axis, concat_axis, group
IPUTRAIN_OP(ReplicationIndex, internal, per_replica)  // (anchor) -> i32 scalar: the replica running it
// Ops a program registered in C++ (include/iputrain/custom_op.hpp; core/ops/custom_registry.hpp).
IPUTRAIN_OP(Custom, internal, none)      // (x...) -> f32; attrs: op (the registered name), its attributes
IPUTRAIN_OP(CustomGrad, internal, none)  // (x..., y, dy) -> d x[input]; attrs: op, input
// Loops that do not unroll (core/ops/loop_util.hpp): the body is a graph run once per iteration.
IPUTRAIN_OP(LoopArg, internal, leaf | bound)  // a body's leaf; attrs: index
IPUTRAIN_OP(Loop, internal, packed)      // (initial..., [cond], captured...) -> packed f32; attrs: begin, end, counts
IPUTRAIN_OP(LoopGrad, internal, packed)  // (loop, d loop, loop's inputs...) -> packed f32 gradients
IPUTRAIN_OP(LoopPart, internal, none)    // (packed) -> one part; attrs: offset, dtype, shape
// Pipelining.
IPUTRAIN_OP(RecomputationCheckpoint, builtin,
            checkpoint | recompute_mark)  // identity whose output is stashed, not recomputed
