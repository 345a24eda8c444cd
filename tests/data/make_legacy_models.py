#!/usr/bin/python3
"""Hand-built models in the legacy export form, committed under tests/data/legacy/.

Older exporters wrote a Linear layer as `Transpose(W)` into Gemm's B and `Expand(b, shape)` into
Gemm's C; torch 1.13 no longer does (it emits Gemm(transB=1)), so these are built by hand with
onnx.helper. Each model also exercises a case the -O1 passes (fuse-transpose-gemm,
eliminate-nop-expand, fuse-matmul-add-gemm, eliminate-dead-nodes) must or must not rewrite;
see README.md and expected_counts.json.

Run with Debian's interpreter (python3-onnx 1.12, python3-numpy):

    /usr/bin/python3 tests/data/make_legacy_models.py           # writes tests/data/legacy/*.onnx
    /usr/bin/python3 tests/data/make_legacy_models.py --check   # rebuilds in memory, compares bytes

Every model is shape-inferred (value_info filled) and passes
onnx.checker.check_model(full_check=True) for its opset. Weights are seeded: a rerun writes the
same bytes.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

# ONNX IR version that goes with each opset (onnx/helper.py VERSION_TABLE).
IR_FOR_OPSET = {6: 3, 7: 3, 8: 3, 9: 4, 11: 6, 13: 7, 17: 8}

F32, F64, F16, I32, I64, BOOL = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16,
                                 TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL)
NP = {F32: np.float32, F64: np.float64, F16: np.float16, I32: np.int32, I64: np.int64}


class G:
    """A small graph builder: nodes, initializers, inputs, outputs, for one opset."""

    def __init__(self, name, opset, seed):
        self.name, self.opset = name, opset
        self.rng = np.random.RandomState(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = {}

    def uniq(self, base):
        self.count[base] = self.count.get(base, 0) + 1
        return "%s_%d" % (base, self.count[base])

    def input(self, name, elem, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def output(self, name, elem, shape=None):
        self.outputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def weight(self, name, shape, elem=F32, scale=None):
        if elem in (I32, I64):
            arr = self.rng.randint(-3, 4, size=shape).astype(NP[elem])
        else:
            fan_in = shape[-1] if len(shape) else 1
            s = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
            arr = (self.rng.uniform(-1.0, 1.0, size=shape) * s).astype(NP[elem])
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def const(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(self, op, inputs, n_out=1, out=None, **attrs):
        name = self.uniq(op)
        outs = out if out is not None else (
            ["%s_out" % name] if n_out == 1 else ["%s_out%d" % (name, i) for i in range(n_out)])
        if isinstance(outs, str):
            outs = [outs]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if len(outs) == 1 else outs

    # --- op helpers that respect each opset's signature ---------------------------------------
    def unsqueeze0(self, x):
        if self.opset >= 13:
            ax = self.const(self.uniq("axes0"), np.array([0], dtype=np.int64))
            return self.node("Unsqueeze", [x, ax])
        return self.node("Unsqueeze", [x], axes=[0])

    def gemm(self, a, b, c=None, out=None, **attrs):
        if self.opset < 7 and c is not None:
            attrs.setdefault("broadcast", 1)
        ins = [a, b] + ([c] if c is not None else [])
        return self.node("Gemm", ins, out=out, **attrs)

    def batch_shape(self, x, last):
        """[N, last] computed at run time: Shape(x) -> Gather(0) -> Unsqueeze -> Concat."""
        s = self.node("Shape", [x])
        idx = self.const(self.uniq("idx0"), np.array(0, dtype=np.int64))
        n = self.node("Gather", [s, idx], axis=0)
        n1 = self.unsqueeze0(n)
        tail = self.const(self.uniq("dim"), np.array([last], dtype=np.int64))
        return self.node("Concat", [n1, tail], axis=0)

    def model(self, graph_name=None):
        graph = helper.make_graph(self.nodes, graph_name or self.name, self.inputs, self.outputs,
                                  initializer=self.inits)
        if IR_FOR_OPSET[self.opset] < 4:
            # Before IR 4 every initializer must also be a graph input (as legacy exports did).
            have = {i.name for i in graph.input}
            for t in self.inits:
                if t.name not in have:
                    graph.input.append(helper.make_tensor_value_info(t.name, t.data_type,
                                                                     list(t.dims)))
        m = helper.make_model(graph, producer_name="onnx-opt tests/data/make_legacy_models.py",
                              opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = IR_FOR_OPSET[self.opset]
        return m


def legacy_linear(g, x, n_in, n_out, batch, expand, relu, tag):
    """One legacy Linear layer: Gemm(x, Transpose(W), Expand(b, shape)) [+ Relu].

    expand: None (opset 7: no Expand, Gemm broadcasts b itself), "row" (constant [1, n_out]),
    "static" (constant [batch, n_out]), "shapeof" (from Shape(x) at run time)."""
    w = g.weight("%s.weight" % tag, [n_out, n_in])
    b = g.weight("%s.bias" % tag, [n_out])
    wt = g.node("Transpose", [w], perm=[1, 0])
    c = b
    if expand == "row":
        c = g.node("Expand", [b, g.const(g.uniq("shape"), np.array([1, n_out], np.int64))])
    elif expand == "static":
        c = g.node("Expand", [b, g.const(g.uniq("shape"), np.array([batch, n_out], np.int64))])
    elif expand == "shapeof":
        c = g.node("Expand", [b, g.batch_shape(x, n_out)])
    y = g.gemm(x, wt, c)
    return g.node("Relu", [y]) if relu else y


# ---------------------------------------------------------------------------------------------
# Model builders. Each returns (ModelProto, description).
# ---------------------------------------------------------------------------------------------

def alexnet_head(opset, form):
    """AlexNet's classifier head (3 Linear layers) in legacy form, at toy size:
    [N,128] -> 64 -> 32 -> 10 (AlexNet's is [N,9216] -> 4096 -> 4096 -> 1000)."""
    g = G("legacy_alexnet_head", opset, seed=7)
    batch = 8 if form == "static" else "N"
    x = g.input("input", F32, [batch, 128])
    expand = None if opset < 8 else form
    h = legacy_linear(g, x, 128, 64, batch, expand, True, "fc1")
    h = legacy_linear(g, h, 64, 32, batch, expand, True, "fc2")
    y = legacy_linear(g, h, 32, 10, batch, expand, False, "fc3")
    g.nodes[-1].output[0] = "output"
    g.output("output", F32, [batch, 10])
    return g.model()


def tg_other_user(opset):
    """Transposes with another user: one also feeds Neg (a graph output), one is itself a graph
    output. The Gemms must read around them (transB=1) while the Transposes stay."""
    g = G("tg_other_user", opset, seed=11)
    x = g.input("input", F32, ["N", 32])
    w1, b1 = g.weight("w1", [16, 32]), g.weight("b1", [16])
    wt1 = g.node("Transpose", [w1], perm=[1, 0])
    h = g.node("Relu", [g.gemm(x, wt1, b1)])
    g.node("Neg", [wt1], out="w1t_neg")
    w2, b2 = g.weight("w2", [8, 16]), g.weight("b2", [8])
    g.node("Transpose", [w2], perm=[1, 0], out="w2t")
    g.gemm(h, "w2t", b2, out="output")
    g.output("output", F32, ["N", 8])
    g.output("w1t_neg", F32, [32, 16])
    g.output("w2t", F32, [16, 8])
    return g.model()


def tg_identity_perm(opset):
    """perm=[0,1] is no transposition: must not be folded. W is square so a wrong fold would
    still run and give wrong numbers."""
    g = G("tg_identity_perm", opset, seed=12)
    x = g.input("input", F32, ["N", 24])
    w, b = g.weight("w", [24, 24]), g.weight("b", [24])
    wt = g.node("Transpose", [w], perm=[0, 1])
    g.gemm(x, wt, b, out="output")
    g.output("output", F32, ["N", 24])
    return g.model()


def tg_no_perm(opset):
    """Transpose without perm (reverses the axes) feeding B: folds to transB=1. Square W."""
    g = G("tg_no_perm", opset, seed=13)
    x = g.input("input", F32, ["N", 24])
    w, b = g.weight("w", [24, 24]), g.weight("b", [24])
    wt = g.node("Transpose", [w])
    g.gemm(x, wt, b, out="output")
    g.output("output", F32, ["N", 24])
    return g.model()


def tg_transb_set(opset):
    """Gemm already has transB=1 and B is Transpose(W): folding gives transB=0 on W."""
    g = G("tg_transb_set", opset, seed=14)
    x = g.input("input", F32, ["N", 32])
    w, b = g.weight("w", [32, 16]), g.weight("b", [16])      # stored [K, N]
    wt = g.node("Transpose", [w], perm=[1, 0])               # [16, 32]
    g.gemm(x, wt, b, out="output", transB=1)
    g.output("output", F32, ["N", 16])
    return g.model()


def tg_transpose_a(opset):
    """A comes transposed ([K, N] input): folds to transA=1; B is also Transpose(W): transB=1."""
    g = G("tg_transpose_a", opset, seed=15)
    xt = g.input("input_t", F32, [32, "N"])
    a = g.node("Transpose", [xt], perm=[1, 0])
    w, b = g.weight("w", [16, 32]), g.weight("b", [16])
    wt = g.node("Transpose", [w], perm=[1, 0])
    g.gemm(a, wt, b, out="output")
    g.output("output", F32, ["N", 16])
    return g.model()


def tg_output_transpose(opset, with_c):
    """Transpose of a Gemm's output. Without C (opset >= 11): (A B')' = B A' -> one Gemm with
    both flags right. With a constant C [M, N] (static M): C can be transposed too."""
    g = G("tg_output_transpose", opset, seed=16)
    m = 4 if with_c else "N"
    x = g.input("input", F32, [m, 32])
    w = g.weight("w", [16, 32])
    c = g.weight("c", [4, 16]) if with_c else None
    y = g.gemm(x, w, c, transB=1)
    g.node("Transpose", [y], perm=[1, 0], out="output")
    g.output("output", F32, [16, m])
    return g.model()


def ne_expand_cases(opset):
    """Expand in front of elementwise consumers (opset >= 8), case by case:
    e1: [1,8] -> Add with [N,8]: the Add broadcasts anyway             -> Expand goes
    e2: Expand([4,8] -> [4,8]) into Relu: a no-op Expand               -> Expand goes
    e3: [1,8] -> [3,8] into Mul with [1,8]: would change Mul's shape   -> Expand stays
    e4: [8] -> [1,8] into Where with [N,8] operands (Max at opset 8)   -> Expand goes
    e5: [1,8] -> [1,8] is also a graph output: Sub reads around it     -> Expand stays (output)
    e6: [8] -> [1,8] into Relu (not broadcasting, shape changes)       -> Expand stays"""
    g = G("ne_expand_cases", opset, seed=21)
    x = g.input("input", F32, ["N", 8])
    z = g.input("z", F32, [4, 8])
    s18 = g.const("shape_1x8", np.array([1, 8], np.int64))
    b1 = g.weight("b1", [1, 8])
    e1 = g.node("Expand", [b1, s18])
    g.node("Add", [x, e1], out="add_out")
    e2 = g.node("Expand", [z, g.const("shape_4x8", np.array([4, 8], np.int64))])
    g.node("Relu", [e2], out="relu_out")
    b3 = g.weight("b3", [1, 8])
    e3 = g.node("Expand", [b3, g.const("shape_3x8", np.array([3, 8], np.int64))])
    g.node("Mul", [g.weight("m3", [1, 8]), e3], out="mul_out")
    b4 = g.weight("b4", [8])
    e4 = g.node("Expand", [b4, s18])
    if opset >= 9:
        cond = g.node("Greater", [x, g.const("zero", np.array(0.0, np.float32))])
        g.node("Where", [cond, x, e4], out="where_out")
    else:  # Where exists from opset 9; Max broadcasts (numpy-style) from opset 8
        g.node("Max", [x, e4], out="where_out")
    b5 = g.weight("b5", [1, 8])
    g.node("Expand", [b5, s18], out="expanded_b5")
    g.node("Sub", [x, "expanded_b5"], out="sub_out")
    e6 = g.node("Expand", [g.weight("b6", [8]), s18])
    g.node("Relu", [e6], out="relu6_out")
    for name, shape in (("add_out", ["N", 8]), ("relu_out", [4, 8]), ("mul_out", [3, 8]),
                        ("where_out", ["N", 8]), ("expanded_b5", [1, 8]), ("sub_out", ["N", 8]),
                        ("relu6_out", [1, 8])):
        g.output(name, F32, shape)
    return g.model()


def ne_gemm_c_other_user(opset):
    """Expand(b, Shape-derived [N,16]) into Gemm's C and also a graph output: the Gemm reads b,
    the Expand stays for the output."""
    g = G("ne_gemm_c_other_user", opset, seed=22)
    x = g.input("input", F32, ["N", 32])
    w, b = g.weight("w", [16, 32]), g.weight("b", [16])
    g.node("Expand", [b, g.batch_shape(x, 16)], out="bias_expanded")
    g.gemm(x, w, "bias_expanded", out="output", transB=1)
    g.output("output", F32, ["N", 16])
    g.output("bias_expanded", F32, ["N", 16])
    return g.model()


def mm_expand_add(opset, shapeof):
    """Legacy MatMul form: Add(MatMul(X, Transpose(W)), Expand(b, shape)). With the target
    [1, n] constant, Expand goes (Add broadcasts), MatMul+Add fuse, Transpose folds: one Gemm
    per layer. With the target from Shape(X), whether the Expand into Add can go depends on
    whether shape inference proves the Expand's output is [N, n] (see the note)."""
    g = G("mm_expand_add", opset, seed=23)
    x = g.input("input", F32, ["N", 64])
    h = x
    for i, (k, n) in enumerate(((64, 32), (32, 10))):
        w, b = g.weight("fc%d.weight" % (i + 1), [n, k]), g.weight("fc%d.bias" % (i + 1), [n])
        wt = g.node("Transpose", [w], perm=[1, 0])
        mm = g.node("MatMul", [h, wt])
        shape = g.batch_shape(x, n) if shapeof else g.const(g.uniq("shape"),
                                                             np.array([1, n], np.int64))
        e = g.node("Expand", [b, shape])
        h = g.node("Add", [mm, e], out="output" if i == 1 else None)
        if i == 0:
            h = g.node("Relu", [h])
    g.output("output", F32, ["N", 10])
    return g.model()


def mm_biases(opset, static):
    """A chain of MatMul+Add with every valid bias form; all fuse into Gemm.
    static (M=4): [n], [1,n], [M,1], scalar, [1], bias as first operand, [M,n].
    dynamic M: [n], [1,n], scalar, [1], bias as first operand."""
    g = G("mm_biases", opset, seed=31)
    m = 4 if static else "N"
    x = g.input("input", F32, [m, 16])
    biases = [("n", [16]), ("1n", [1, 16]), ("scalar", []), ("one", [1]), ("first", [16])]
    if static:
        biases = biases[:2] + [("m1", [4, 1])] + biases[2:] + [("mn", [4, 16])]
    h = x
    for i, (kind, shape) in enumerate(biases):
        w = g.weight("w%d" % i, [16, 16])
        b = g.weight("b%d_%s" % (i, kind), shape)
        mm = g.node("MatMul", [h, w])
        last = i == len(biases) - 1
        ins = [b, mm] if kind == "first" else [mm, b]
        h = g.node("Add", ins, out="output" if last else None)
        if not last:
            h = g.node("Relu", [h])
    g.output("output", F32, [m, 16])
    return g.model()


def mm_typed(opset, elem):
    """2-D MatMul+Add of one element type: float16/double fuse into Gemm; int32 must stay
    (Gemm's types are float types only; ORT has no integer Gemm)."""
    g = G("mm_typed", opset, seed=32)
    x = g.input("input", elem, ["N", 8])
    w = g.weight("w", [8, 4], elem)
    b = g.weight("b", [4], elem)
    g.node("Add", [g.node("MatMul", [x, w]), b], out="output")
    g.output("output", elem, ["N", 4])
    return g.model()


def mm_negatives(opset):
    """MatMul+Add that must NOT fuse:
    a) A is 3-D ([2,4,16]) (fuses only with allow-reshape=true)
    b) the MatMul result is also a graph output
    c) the MatMul result has a second user (Relu)
    d) the bias [2,4,8] broadcasts the output to a bigger shape
    e) A has an unknown rank (Reshape to a shape read from a graph input; run it with
       new_shape = [4, 16])"""
    g = G("mm_negatives", opset, seed=33)
    x3 = g.input("x3d", F32, [2, 4, 16])
    x = g.input("x2d", F32, [4, 16])
    # A of unknown rank: Reshape to a shape given at run time (shape [R], R unknown).
    u = g.node("Reshape", [x, g.input("new_shape", I64, ["R"])])
    w = g.weight("w", [16, 8])
    b = g.weight("b", [8])
    g.node("Add", [g.node("MatMul", [x3, w]), b], out="out_a")
    g.node("MatMul", [x, w], out="mm_b")
    g.node("Add", ["mm_b", b], out="out_b")
    mm_c = g.node("MatMul", [x, w])
    g.node("Add", [mm_c, b], out="out_c")
    g.node("Relu", [mm_c], out="out_c_relu")
    g.node("Add", [g.node("MatMul", [x, w]), g.weight("b_big", [2, 4, 8])], out="out_d")
    e = g.node("Add", [g.node("MatMul", [u, w]), b])
    g.node("Reshape", [e, g.const("shape_4x8", np.array([4, 8], np.int64))], out="out_e")
    for name, shape in (("out_a", [2, 4, 8]), ("mm_b", [4, 8]), ("out_b", [4, 8]),
                        ("out_c", [4, 8]), ("out_c_relu", [4, 8]), ("out_d", [2, 4, 8]),
                        ("out_e", [4, 8])):
        g.output(name, F32, shape)
    return g.model()


def mm_bias_symbolic_col(opset):
    """Bias [N,1] as a graph input whose first dim is the same symbol as A's M: a valid [M,1]
    bias when the pass trusts equal dim_params."""
    g = G("mm_bias_symbolic_col", opset, seed=34)
    x = g.input("input", F32, ["N", 16])
    b = g.input("bias", F32, ["N", 1])
    w = g.weight("w", [16, 8])
    g.node("Add", [g.node("MatMul", [x, w]), b], out="output")
    g.output("output", F32, ["N", 8])
    return g.model()


def subgraphs(opset):
    """The patterns inside If branches and a Loop body, reading outer-scope weights.
    then: legacy Gemm(x, Transpose(W1), Expand(b1, [1,16])); else: MatMul(x, W2) + b2.
    Loop (3 iterations): h = Relu(Gemm(h, Transpose(W3), Expand(b3, [1,16]))) and
    h = MatMul(h, W4) + b4, with the Transpose of W3 computed in the outer graph."""
    g = G("subgraphs", opset, seed=41)
    x = g.input("input", F32, ["N", 16])
    flag = g.input("flag", BOOL, [])
    w1, b1 = g.weight("w1", [16, 16]), g.weight("b1", [16])
    w2, b2 = g.weight("w2", [16, 16]), g.weight("b2", [16])
    w3, b3 = g.weight("w3", [16, 16]), g.weight("b3", [16])
    w4, b4 = g.weight("w4", [16, 16]), g.weight("b4", [16])
    s116 = g.const("shape_1x16", np.array([1, 16], np.int64))
    trips = g.const("trip_count", np.array(3, np.int64))
    w3t = g.node("Transpose", [w3], perm=[1, 0], out="w3_t")

    # then branch
    t = G("then", opset, seed=0)
    t.count = g.count
    wt = t.node("Transpose", [w1], perm=[1, 0])
    e = t.node("Expand", [b1, s116])
    t.gemm(x, wt, e, out="then_out")
    t.output("then_out", F32, ["N", 16])
    then_g = helper.make_graph(t.nodes, "then_branch", [], t.outputs)
    # else branch
    el = G("else", opset, seed=0)
    el.count = g.count
    el.node("Add", [el.node("MatMul", [x, w2]), b2], out="else_out")
    el.output("else_out", F32, ["N", 16])
    else_g = helper.make_graph(el.nodes, "else_branch", [], el.outputs)
    h0 = g.node("If", [flag], out="if_out", then_branch=then_g, else_branch=else_g)

    # loop body: (iter, cond, h) -> (cond, h)
    lb = G("body", opset, seed=0)
    lb.count = g.count
    it = lb.input("iter", I64, [])
    cin = lb.input("cond_in", BOOL, [])
    hin = lb.input("h_in", F32, ["N", 16])
    lb.node("Identity", [cin], out="cond_out")
    e3 = lb.node("Expand", [b3, s116])
    h1 = lb.node("Relu", [lb.gemm(hin, w3t, e3)])
    lb.node("Add", [lb.node("MatMul", [h1, w4]), b4], out="h_out")
    lb.output("cond_out", BOOL, [])
    lb.output("h_out", F32, ["N", 16])
    del it
    body = helper.make_graph(lb.nodes, "loop_body", lb.inputs, lb.outputs)
    g.node("Loop", [trips, "", h0], out="output", body=body)
    g.output("output", F32, ["N", 16])
    return g.model()


# name -> (builder, opsets)
MODELS = {}


def _add(name, fn, opsets):
    for op in opsets:
        MODELS["%s_op%d" % (name, op)] = (fn, op)


_add("legacy_alexnet_head", lambda op: alexnet_head(op, "row"), (7, 8, 9, 11, 13))
_add("legacy_alexnet_head_static", lambda op: alexnet_head(op, "static"), (8, 9, 11, 13))
_add("legacy_alexnet_head_shapeof", lambda op: alexnet_head(op, "shapeof"), (8, 9, 11, 13))
_add("tg_other_user", tg_other_user, (7, 9, 13))
_add("tg_identity_perm", tg_identity_perm, (7, 9, 13))
_add("tg_no_perm", tg_no_perm, (7, 9, 13))
_add("tg_transb_set", tg_transb_set, (7, 9, 13))
_add("tg_transpose_a", tg_transpose_a, (7, 9, 13))
_add("tg_output_transpose_noc", lambda op: tg_output_transpose(op, False), (11, 13))
_add("tg_output_transpose_constc", lambda op: tg_output_transpose(op, True), (9, 13))
_add("ne_expand_cases", ne_expand_cases, (8, 9, 13))
_add("ne_gemm_c_other_user", ne_gemm_c_other_user, (9, 13))
_add("mm_expand_add", lambda op: mm_expand_add(op, False), (8, 9, 13))
_add("mm_expand_add_shapeof", lambda op: mm_expand_add(op, True), (9, 13))
_add("mm_biases_static", lambda op: mm_biases(op, True), (7, 9, 13))
_add("mm_biases_dynbatch", lambda op: mm_biases(op, False), (7, 9, 13))
_add("mm_float16", lambda op: mm_typed(op, F16), (9, 13))
_add("mm_double", lambda op: mm_typed(op, F64), (9, 13))
_add("mm_int32", lambda op: mm_typed(op, I32), (9, 13))
_add("mm_negatives", mm_negatives, (9, 13))
_add("mm_bias_symbolic_col", mm_bias_symbolic_col, (9, 13))
_add("subgraphs", subgraphs, (9, 11, 13))


def build(key):
    fn, opset = MODELS[key]
    m = fn(opset)
    m.graph.name = key
    m = onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    onnx.checker.check_model(m, full_check=True)
    return m.SerializeToString()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", default=os.path.join(HERE, "legacy"))
    ap.add_argument("--check", action="store_true",
                    help="rebuild in memory and compare with the files in --outdir")
    ap.add_argument("--only", nargs="*", help="build only these models (names without .onnx)")
    args = ap.parse_args()
    keys = args.only or list(MODELS)
    bad = 0
    if not args.check:
        os.makedirs(args.outdir, exist_ok=True)
    for key in keys:
        try:
            data = build(key)
        except Exception:
            print("FAILED: %s" % key, file=sys.stderr)
            raise
        path = os.path.join(args.outdir, key + ".onnx")
        if args.check:
            same = os.path.exists(path) and open(path, "rb").read() == data
            if not same:
                print("DIFFERS: %s" % key)
                bad += 1
        else:
            with open(path, "wb") as f:
                f.write(data)
    print("%s %d models%s" % ("checked" if args.check else "wrote", len(keys),
                              ", %d differ" % bad if args.check else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
