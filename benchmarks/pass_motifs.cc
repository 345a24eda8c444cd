// One motif per built-in pass: a few nodes, in the ONNX text syntax, on which that pass fires.
// repeatMotif (synthetic_models.cc) chains copies of a motif into graphs of any size, so that
// each pass's cost per node can be compared at 10k and 100k nodes.
//
// A motif is a graph whose first input X and output Y have the same type: copy i reads copy
// i-1's Y as its X. Other graph inputs are shared by every copy. Names must be identifiers
// (ONNX 1.12's parser reads no quoted names).

#include "synthetic_models.h"

namespace onnxopt::bench {

const std::vector<PassMotif>& passMotifs() {
  static const std::vector<PassMotif> motifs = {
      {"eliminate-common-subexpressions", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  a = Relu(X)
  b = Relu(X)
  Y = Add(a, b)
})"},
      {"eliminate-dead-nodes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  Y = Relu(X)
  dead1 = Neg(X)
  dead2 = Abs(dead1)
})"},
      {"eliminate-duplicate-initializers", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y)
<float[8] W1 = {1, 2, 3, 4, 5, 6, 7, 8}, float[8] W2 = {1, 2, 3, 4, 5, 6, 7, 8}> {
  a = Add(X, W1)
  Y = Mul(a, W2)
})"},
      {"eliminate-initializer-inputs", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, float[8] W) => (float[N,8] Y) <float[8] W = {1, 2, 3, 4, 5, 6, 7, 8}> {
  a = Add(X, W)
  Y = Relu(a)
})"},
      {"eliminate-identity", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  a = Relu(X)
  i = Identity(a)
  Y = Neg(i)
})"},
      {"eliminate-nop-expand", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <int64[2] s = {1, 8}> {
  e = Expand(X, s)
  Y = Relu(e)
})"},
      {"eliminate-zero-rnn-initial-state", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, float[1,24,8] W, float[1,24,8] R) => (float[N,8] Y)
<int64[1] A = {0}, int64[1] one = {1}, int64[1] hidden = {8}, int64[2] steps = {0, 1}> {
  x = Unsqueeze(X, A)
  s = Shape(X)
  n = Gather(s, A)
  c = Concat<axis = 0>(one, n, hidden)
  h0 = ConstantOfShape(c)
  o, oh = GRU<hidden_size = 8>(x, W, R, , , h0)
  Y = Squeeze(o, steps)
})"},
      {"eliminate-nop-concat", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  c = Concat<axis = 1>(X)
  Y = Relu(c)
})"},
      {"eliminate-nop-pad", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <int64[4] P = {0, 0, 0, 0}> {
  p = Pad(X, P)
  Y = Relu(p)
})"},
      {"eliminate-nop-slice", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y)
<int64[1] S = {0}, int64[1] E = {9223372036854775807}, int64[1] A = {0}> {
  s = Slice(X, S, E, A)
  Y = Relu(s)
})"},
      {"eliminate-nop-split", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  s = Split<axis = 1>(X)
  Y = Relu(s)
})"},
      {"fuse-transpose-gemm", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,4] X) => (float[N,4] Y)
<float[4,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, float[4] C = {1, 2, 3, 4}> {
  Wt = Transpose<perm = [1, 0]>(W)
  Y = Gemm(X, Wt, C)
})"},
      {"fuse-matmul-add-gemm", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[2,4] X) => (float[2,4] Y)
<float[4,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, float[4] b = {1, 2, 3, 4}> {
  P = MatMul(X, W)
  Y = Add(P, b)
})"},
      {"fuse-relu-clip", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <float lo = {-1.0}, float hi = {6.0}> {
  r = Relu(X)
  c = Clip(r, lo, hi)
  d = Clip(c, lo, hi)
  Y = Relu(d)
})"},
      {"fuse-consecutive-clips", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <float lo = {-1.0}, float zero = {0.0}, float hi = {6.0}> {
  a = Clip(X, lo, hi)
  b = Clip(a, zero, hi)
  Y = Clip(b, , hi)
})"},
      {"fuse-log-softmax", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  s = Softmax<axis = 1>(X)
  Y = Log(s)
})"},
      {"rewrite-where-not", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, bool[8] C) => (float[N,8] Y) {
  z = Neg(X)
  n = Not(C)
  Y = Where(n, X, z)
})"},
      {"legalize-subgraph-outputs", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, bool C) => (float[N,8] Y) {
  Y = If(C) <then_branch = then_graph () => (float[N,8] X) {
    }, else_branch = else_graph () => (float[N,8] else_out) {
      else_out = Neg(X)
    }>
})"},
      // A size an edit left stale in every copy's declaration of a.
      {"legalize-value-info", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[4,8] X) => (float[4,8] Y) <float[2,8] a> {
  a = Relu(X)
  Y = Neg(a)
})"},
      {"lift-constants", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  bias = Constant<value = float[8] {1, 2, 3, 4, 5, 6, 7, 8}>()
  Y = Add(X, bias)
})"},
      // Shape of a known shape, Gather of its known dim: fold-constants finishes the chain. The
      // Reshape is off the chain: before folding, its output's shape is unknown, and so would
      // be every later copy's.
      {"fold-shapes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[4,8] X) => (float[4,8] Y) <int64 I = {1}, int64[1] A = {0}, int64[1] K = {4}> {
  Y = Relu(X)
  s = Shape(Y)
  g = Gather<axis = 0>(s, I)
  u = Unsqueeze(g, A)
  c = Concat<axis = 0>(K, u)
  r = Reshape(Y, c)
})"},
      // The seed case: a stored-transposed weight, and arithmetic on weights.
      {"fold-constants", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y)
<float[8,8] W = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}, float[8] b = {1, 2, 3, 4, 5, 6, 7, 8}> {
  wt = Transpose(W)
  n = Neg(b)
  s = Add(wt, n)
  Y = MatMul(X, s)
})"},
      {"eliminate-nop-dropout", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  d = Dropout(X)
  Y = Relu(d)
})"},
      {"eliminate-nop-cast", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  c = Cast<to = 1>(X)
  Y = Relu(c)
})"},
      {"fuse-consecutive-casts", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  d = Cast<to = 11>(X)
  f = Cast<to = 1>(d)
  Y = Relu(f)
})"},
      {"eliminate-nop-transpose", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  t = Transpose<perm = [0, 1]>(X)
  Y = Relu(t)
})"},
      {"fuse-consecutive-transposes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,3,4] X) => (float[N,3,4] Y) {
  a = Transpose<perm = [1, 2, 0]>(X)
  b = Transpose<perm = [2, 0, 1]>(a)
  Y = Relu(b)
})"},
      {"fuse-transposes-across-elementwise", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,3,4] X) => (float[N,3,4] Y) <float[3] b = {0.5, -0.25, 0.125}> {
  a = Transpose<perm = [0, 2, 1]>(X)
  s = Add(a, b)
  r = Relu(s)
  Y = Transpose<perm = [0, 2, 1]>(r)
})"},
      {"fuse-parallel-matmuls", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,4] X) => (float[N,4] Y)
    <float[4,4] wq = {1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                      0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0},
     float[4,4] wk = {0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0,
                      0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5},
     float[4] bq = {0.1, 0.2, 0.3, 0.4}, float[4] bk = {-0.1, -0.2, -0.3, -0.4}> {
  mq = MatMul(X, wq)
  q = Add(mq, bq)
  mk = MatMul(X, wk)
  k = Add(mk, bk)
  Y = Mul(q, k)
})"},
      {"eliminate-dequantize-quantize", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <float s = {0.05}, uint8 z = {128}> {
  a = QuantizeLinear(X, s, z)
  b = DequantizeLinear(a, s, z)
  c = QuantizeLinear(b, s, z)
  Y = DequantizeLinear(c, s, z)
})"},
      {"eliminate-nop-reshape", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[4,8] X) => (float[4,8] Y) <int64[2] s = {4, 8}> {
  r = Reshape(X, s)
  Y = Relu(r)
})"},
      {"fuse-consecutive-reshapes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[4,8] X) => (float[4,8] Y) <int64[2] s1 = {8, 4}, int64[2] s2 = {4, 8}> {
  a = Reshape(X, s1)
  b = Reshape(a, s2)
  Y = Relu(b)
})"},
      {"eliminate-idempotent-ops", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  a = Relu(X)
  b = Relu(a)
  Y = Neg(b)
})"},
      {"eliminate-pre-shape-ops", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  r = Relu(X)
  s = Shape(r)
  Y = Reshape(X, s)
})"},
      {"fuse-add-bias-into-gemm", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, float[8,8] W) => (float[N,8] Y) <float[8] b = {1, 2, 3, 4, 5, 6, 7, 8}> {
  g = Gemm(X, W)
  Y = Add(g, b)
})"},
      {"eliminate-nop-arithmetic", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <float[1] one = {1.0}> {
  m = Mul(X, one)
  Y = Relu(m)
})"},
      {"fuse-bn-into-conv", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,2,4,4] X) => (float[1,2,4,4] Y)
<float[2,1,1,1] W = {1.0, 2.0}, float[2] scale = {4.0, 3.0}, float[2] B = {1.0, -1.0}, float[2] mean = {0.5, 1.0}, float[2] var = {4.0, 9.0}> {
  c = Conv<group = 2>(X, W)
  Y = BatchNormalization<epsilon = 0.0>(c, scale, B, mean, var)
})"},
      {"fuse-add-bias-into-conv", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,2,4,4] X) => (float[1,2,4,4] Y)
<float[2,1,1,1] W = {1.0, 2.0}, float[1,2,1,1] B = {0.5, -1.0}> {
  c = Conv<group = 2>(X, W)
  Y = Add(c, B)
})"},
      {"fuse-mul-into-conv", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,2,3,3] X) => (float[1,2,3,3] Y)
<float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[1,2,1,1] S = {2.0, 3.0}> {
  c = Conv(X, W)
  Y = Mul(c, S)
})"},
      {"fuse-pad-into-conv", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,1,4,4] X) => (float[1,1,4,4] Y)
<int64[8] P = {0, 0, 1, 1, 0, 0, 1, 1}, float[1,1,3,3] W = {1, 2, 3, 4, 5, 6, 7, 8, 9}> {
  p = Pad(X, P)
  Y = Conv(p, W)
})"},
      {"fuse-pad-into-pool", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,2,4,4] X) => (float[1,2,4,4] Y) <int64[8] P = {0, 0, 1, 1, 0, 0, 1, 1}> {
  p = Pad(X, P)
  Y = AveragePool<kernel_shape = [3, 3], count_include_pad = 1>(p)
})"},
      {"fuse-bn-into-gemm", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[2,3] X) => (float[2,3] Y)
<float[3,3] W = {1, 2, 3, 1, 1, 1, 2, 0, 1}, float[3] C = {1, 2, 3}, float[3] S = {1, 1, 2}, float[3] B = {0, 1, 0}, float[3] M = {1, 0, 1}, float[3] V = {4, 1, 1}> {
  g = Gemm<transB = 1>(X, W, C)
  Y = BatchNormalization<epsilon = 0.0>(g, S, B, M, V)
})"},
      {"fuse-concat-into-reshape", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,4,8] X) => (float[N,4,8] Y) <int64 I0 = {0}, int64[1] A0 = {0}, int64[2] K = {4, 8}> {
  s = Shape(X)
  g = Gather(s, I0)
  u = Unsqueeze(g, A0)
  c = Concat<axis = 0>(u, K)
  Y = Reshape(X, c)
})"},
      {"fuse-layer-norm", R"(<ir_version: 8, opset_import: ["" : 17]>
motif (float[2,3,4] X) => (float[2,3,4] Y)
<float two = {2.0}, float eps = {1e-05}, float[4] S = {1.0, 2.0, 3.0, 4.0}, float[4] B = {0.0, 0.5, 1.0, 1.5}> {
  m = ReduceMean<axes = [-1]>(X)
  d = Sub(X, m)
  p = Pow(d, two)
  v = ReduceMean<axes = [-1]>(p)
  ve = Add(v, eps)
  s = Sqrt(ve)
  n = Div(d, s)
  sc = Mul(n, S)
  Y = Add(sc, B)
})"},
      {"fuse-rms-norm", R"(<ir_version: 10, opset_import: ["" : 23]>
motif (float[2,3,4] X) => (float[2,3,4] Y)
<int64[1] axes = {-1}, float two = {2.0}, float eps = {1e-06}, float[4] S = {1.0, 2.0, 3.0, 4.0}> {
  p = Pow(X, two)
  v = ReduceMean(p, axes)
  ve = Add(v, eps)
  s = Sqrt(ve)
  n = Div(X, s)
  Y = Mul(n, S)
})"},
      {"fuse-consecutive-unsqueezes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[3,4] X) => (float[3,4] Y) <int64[1] A1 = {0}, int64[1] A2 = {2}, int64[2] s = {3, 4}> {
  u = Unsqueeze(X, A1)
  v = Unsqueeze(u, A2)
  Y = Reshape(v, s)
})"},
      {"eliminate-transpose-before-axis-removal", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,1,8] X) => (float[N,1,8] Y) <int64 I = {0}, int64[1] A = {1}> {
  t = Transpose<perm = [1, 0, 2]>(X)
  g = Gather(t, I)
  Y = Unsqueeze(g, A)
})"},
      {"fuse-consecutive-squeezes", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,3,1,4] X) => (float[1,3,1,4] Y) <int64[1] A1 = {0}, int64[1] A2 = {1}, int64[4] s = {1, 3, 1, 4}> {
  a = Squeeze(X, A1)
  b = Squeeze(a, A2)
  Y = Reshape(b, s)
})"},
      {"eliminate-unsqueeze-squeeze", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <int64[2] A = {0, 2}> {
  u = Unsqueeze(X, A)
  s = Squeeze(u, A)
  Y = Relu(s)
})"},
      {"fuse-reduce-unsqueeze", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) <int64[1] A = {1}> {
  r = ReduceMax<axes = [1], keepdims = 0>(X)
  u = Unsqueeze(r, A)
  Y = Sub(X, u)
})"},
      {"rewrite-einsum-as-matmul", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X, float[8,8] W) => (float[N,8] Y) {
  Y = Einsum<equation = "ij,kj->ik">(X, W)
})"},
      {"fuse-consecutive-slices", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[4,8] X) => (float[4,8] Y)
<int64[1] S1 = {0}, int64[1] E1 = {3}, int64[1] S2 = {1}, int64[1] E2 = {3}, int64[1] A = {0}> {
  s = Slice(X, S1, E1, A)
  t = Slice(s, S2, E2, A)
  Y = Concat<axis = 0>(t, t)
})"},
      {"fuse-consecutive-concats", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[1,8] X) => (float[1,8] Y) {
  i = Concat<axis = 0>(X, X)
  c = Concat<axis = 0>(i, X)
  Y = ReduceMax<axes = [0], keepdims = 1>(c)
})"},
      // torch.onnx.export of nn.GELU at opset 20.
      {"fuse-gelu", R"(<ir_version: 9, opset_import: ["" : 20]>
motif (float[N,8] X) => (float[N,8] Y) {
  s = Constant <value = float {1.4142135}> ()
  d = Div(X, s)
  e = Erf(d)
  one = Constant <value = float {1.0}> ()
  p = Add(e, one)
  m = Mul(X, p)
  half = Constant <value = float {0.5}> ()
  Y = Mul(m, half)
})"},
      // torch.onnx.export of x * F.relu6(x + 3) / 6 at opset 14.
      {"fuse-hardswish", R"(<ir_version: 8, opset_import: ["" : 14]>
motif (float[N,8] X) => (float[N,8] Y) {
  three = Constant <value = float {3.0}> ()
  a = Add(X, three)
  r = Relu(a)
  zero = Constant <value = float {0.0}> ()
  six = Constant <value = float {6.0}> ()
  c = Clip(r, zero, six)
  m = Mul(X, c)
  six2 = Constant <value = float {6.0}> ()
  Y = Div(m, six2)
})"},
      // torch.onnx.export of F.relu6(x + 3) / 6 at opset 14.
      {"fuse-hardsigmoid", R"(<ir_version: 8, opset_import: ["" : 14]>
motif (float[N,8] X) => (float[N,8] Y) {
  three = Constant <value = float {3.0}> ()
  a = Add(X, three)
  r = Relu(a)
  zero = Constant <value = float {0.0}> ()
  six = Constant <value = float {6.0}> ()
  c = Clip(r, zero, six)
  six2 = Constant <value = float {6.0}> ()
  Y = Div(c, six2)
})"},
      {"eliminate-if-constant-condition", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  c = Constant<value = bool {1}>()
  Y = If(c) <then_branch = then_graph () => (float[N,8] t_out) {
      t_out = Relu(X)
    }, else_branch = else_graph () => (float[N,8] e_out) {
      e_out = Abs(X)
    }>
})"},
      {"eliminate-nop-flatten", R"(<ir_version: 8, opset_import: ["" : 13]>
motif (float[N,8] X) => (float[N,8] Y) {
  f = Flatten<axis = 1>(X)
  Y = Relu(f)
})"},
  };
  return motifs;
}

}  // namespace onnxopt::bench
