#!/usr/bin/python3
"""Writes the models of tests/data/shape_chains/, for CTest equivalence.shape_chains: ONNX Runtime
runs each one before and after fuse-consecutive-unsqueezes, fuse-consecutive-squeezes,
eliminate-unsqueeze-squeeze, fuse-consecutive-slices and fuse-consecutive-concats on the same
inputs (tests/data/CMakeLists.txt). Each model holds the rewrites and, beside them, near misses
the passes must leave alone.

  unsqueeze_chains_op13.onnx   Unsqueeze pairs with axes inputs: the outer axis before, after and
                               between the inner one, negative axes, an inner one read elsewhere
  unsqueeze_chains_op11.onnx   the same with axes attributes, negative ones included
  squeeze_chains_op13.onnx     Squeeze pairs: axes inputs, negative axes, an outer one without
                               axes, both without axes
  squeeze_chains_op11.onnx     the same with axes attributes
  unsqueeze_squeeze_op13.onnx  Squeeze(Unsqueeze) and Unsqueeze(Squeeze) of the same axes
                               (negative ones, without axes over known dims), and of other axes
  unsqueeze_squeeze_op10.onnx  the same at opset 10 (Squeeze-1, Unsqueeze-1: attributes, no
                               negative axes)
  slice_chains_op13.onnx       Slice pairs on disjoint axes (negative starts and steps, INT64
                               bounds), on one axis of a known dim (clamped ends), int32
                               arguments, and one axis of a symbolic dim (left alone)
  slice_chains_op9.onnx        Slice-1 pairs with attributes, axes omitted in one
  concat_chains_op13.onnx      nested Concats, negative and non-negative axes of one rank, an
                               inner one read twice by the outer, one read elsewhere, another axis
  concat_chains_op4.onnx       Concat-4 with its required axis
  chains_in_if.onnx            one chain of each kind inside both branches of an If, reading
                               values of the main graph
  squeeze_empty_axes_op13.onnx a Squeeze with an empty axes input read by a Shape: ONNX
                               Runtime's kernel squeezes every dim of 1, its optimizer folds the
                               Shape by ONNX's inference, which squeezes none (an empty axes
                               attribute, before opset 13, fails ONNX's checker)

The files are committed, so running the tests needs no Python. Regenerate with Debian's
interpreter (python3-onnx belongs to it):
    /usr/bin/python3 tests/data/make_shape_chain_models.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shape_chains")
F32, BOOL = TensorProto.FLOAT, TensorProto.BOOL
INT64_MAX = 2**63 - 1


def model(graph, opset):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="onnx-opt/tests/data/make_shape_chain_models.py")
    m.ir_version = 8 if opset >= 13 else (4 if opset >= 9 else 3)
    # Outputs declared by element type only get their shapes from inference. A model whose
    # output shapes are all given is checked without it: libonnx contradicts some of them
    # (ONNX Runtime checks every shape when the test runs).
    inferred = any(not o.type.tensor_type.HasField("shape") for o in m.graph.output)
    if inferred:
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    for o in m.graph.output:
        if not o.type.tensor_type.HasField("shape"):
            raise ValueError(f"{graph.name}: output {o.name} has no inferred shape")
    # libonnx infers Squeeze-11 without axes, and Slice-1, as scalars: no intermediate
    # declarations, so that the models state nothing untrue.
    del m.graph.value_info[:]
    onnx.checker.check_model(m, full_check=inferred)
    return m


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


class Builder:
    """Nodes and initializers of one graph, with fresh names."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes, self.inits, self.count = [], [], 0

    def fresh(self, hint):
        self.count += 1
        return f"{hint}{self.count}"

    def ints(self, values, dtype=np.int64):
        name = self.fresh("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def axes_op(self, op_type, x, axes):
        """Squeeze/Unsqueeze with axes in the opset's form; axes None: none given."""
        if axes is None:
            return self.op(op_type, [x])
        if self.opset >= 13:
            return self.op(op_type, [x, self.ints(axes)])
        return self.op(op_type, [x], axes=axes)

    def slice(self, x, starts, ends, axes=None, steps=None, dtype=np.int64):
        if self.opset < 10:
            attrs = {"starts": starts, "ends": ends}
            if axes is not None:
                attrs["axes"] = axes
            return self.op("Slice", [x], **attrs)
        inputs = [x, self.ints(starts, dtype), self.ints(ends, dtype)]
        if axes is not None or steps is not None:
            inputs.append(self.ints(axes if axes is not None else list(range(len(starts))), dtype))
        if steps is not None:
            inputs.append(self.ints(steps, dtype))
        return self.op("Slice", inputs)


def save(name, builder, inputs, outputs, opset):
    # Every output goes through a Neg (finish()), so that no chain end is itself a graph output.
    graph = helper.make_graph(builder.nodes, name, inputs, outputs, initializer=builder.inits)
    onnx.save(model(graph, opset), os.path.join(HERE, name + ".onnx"))


def finish(b, values, shapes=None):
    """Graph outputs o0, o1, ... reading `values` through a Neg each, of the shapes given, else
    of shapes ONNX's inference gives them."""
    outputs = []
    # Neg-1 has no ONNX Runtime kernel: Identity before opset 6.
    op = "Neg" if b.opset >= 6 else "Identity"
    for i, v in enumerate(values):
        name = f"o{i}"
        b.nodes.append(helper.make_node(op, [v], [name], name=f"{op.lower()}_{name}"))
        outputs.append(helper.make_tensor_value_info(name, F32, (shapes or {}).get(v)))
    return outputs


def unsqueeze_chains(opset):
    b = Builder(opset)
    negative = opset >= 11
    results = [
        b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", "X", [0]), [2]),
        b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", "X", [1]), [0]),
        b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", "X", [2, 0]), [1, 4]),
    ]
    if negative:
        results.append(b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", "X", [-1]), [-5, 1]))
        results.append(b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", "X", [0, -1]), [-3]))
    shared = b.axes_op("Unsqueeze", "X", [1])
    results += [b.axes_op("Unsqueeze", shared, [3]), shared]
    save(f"unsqueeze_chains_op{opset}", b, [vi("X", ["N", 3])], finish(b, results), opset)


def squeeze_chains(opset):
    b = Builder(opset)
    negative = opset >= 11
    results = [
        b.axes_op("Squeeze", b.axes_op("Squeeze", "X", [0]), [1]),
        b.axes_op("Squeeze", b.axes_op("Squeeze", "X", [2]), [0]),
        b.axes_op("Squeeze", b.axes_op("Squeeze", "X", [0, 4]), [1]),
        b.axes_op("Squeeze", b.axes_op("Squeeze", "Q", [2]), None),
        b.axes_op("Squeeze", b.axes_op("Squeeze", "Q", None), None),
    ]
    if negative:
        results.append(b.axes_op("Squeeze", b.axes_op("Squeeze", "X", [-1]), [-2, 0]))
    shared = b.axes_op("Squeeze", "X", [4])
    results += [b.axes_op("Squeeze", shared, [0]), shared]
    # ONNX's checker wants every output's shape, and libonnx infers none for Squeeze-11 without
    # axes: the Squeezes without axes read Q, of known dims, and their shapes are given.
    inputs = [vi("X", [1, "N", 1, 3, 1]), vi("Q", [1, 2, 1, 3, 1])]
    shapes = {results[3]: [2, 3], results[4]: [2, 3]}
    save(f"squeeze_chains_op{opset}", b, inputs, finish(b, results, shapes), opset)


def unsqueeze_squeeze(opset):
    b = Builder(opset)
    negative = opset >= 11
    # ONNX's inference (libonnx's, and ONNX Runtime's) of Squeeze-1 with unsorted axes gives the
    # wrong shape: they are unsorted only from opset 11.
    results = [
        b.axes_op("Squeeze", b.axes_op("Unsqueeze", "X", [0, 2]), [2, 0] if negative else [0, 2]),
        b.axes_op("Squeeze", b.axes_op("Unsqueeze", "K", [1]), None),
        b.axes_op("Unsqueeze", b.axes_op("Squeeze", "W", [0, 2]), [0, 2]),
        b.axes_op("Unsqueeze", b.axes_op("Squeeze", "V", None), [2, 0]),
        # Near misses: other axes; a Squeeze without axes of a tensor with a dim of 1.
        b.axes_op("Squeeze", b.axes_op("Unsqueeze", "W", [0]), [1]),
        b.axes_op("Squeeze", b.axes_op("Unsqueeze", "V", [0]), None),
        b.axes_op("Unsqueeze", b.axes_op("Squeeze", "W", [0]), [1]),
    ]
    if negative:
        results.append(b.axes_op("Squeeze", b.axes_op("Unsqueeze", "X", [-1, 0]), [3, -4]))
        results.append(b.axes_op("Unsqueeze", b.axes_op("Squeeze", "W", [-2]), [2]))
    inputs = [vi("X", ["N", 3]), vi("K", [2, 3]), vi("W", [1, "N", 1, 4]), vi("V", [1, 5, 1, 4])]
    # libonnx infers no shape for some Squeezes without axes: every shape is given.
    expected = [["N", 3], [2, 3], [1, "N", 1, 4], [1, 5, 1, 4], [1, "N", 1, 4], [5, 4],
                ["N", 1, 1, 4], ["N", 3], [1, "N", 1, 4]]
    shapes = dict(zip(results, expected))
    save(f"unsqueeze_squeeze_op{opset}", b, inputs, finish(b, results, shapes), opset)


def slice_chains(opset):
    b = Builder(opset)
    results = []
    if opset >= 10:
        results += [
            b.slice(b.slice("X", [1], [-1], [0]), [-1], [-INT64_MAX], [2], [-2]),
            b.slice(b.slice("X", [2], [9], [2]), [-3], [100], [-1]),
            b.slice(b.slice("X", [0, 1], [INT64_MAX, 7], [1, 2], [1, 1]), [5, 3], [-100, 1], [2, 0], [-1, 1]),
            b.slice(b.slice("X", [1], [3], [1], dtype=np.int32), [0], [1], [2], dtype=np.int32),
            b.slice(b.slice("X", [1], [9], [2]), [1], [INT64_MAX], [2], [2]),
            # Near misses: one axis of a symbolic dim; a step of 2 on an axis both slice.
            b.slice(b.slice("X", [1], [3], [0]), [0], [1], [0]),
            b.slice(b.slice("X", [0], [10], [2], [2]), [1], [3], [2]),
        ]
    else:
        results += [
            b.slice(b.slice("X", [1], [5]), [0, 2, 1], [2, 8, 6], [1, 2, 0]),
            b.slice(b.slice("X", [2, 1], [9, 4], [2, 1]), [-3, 1], [100, 3], [2, 1]),
        ]
    if opset >= 10:
        save(f"slice_chains_op{opset}", b, [vi("X", ["N", 4, 10])], finish(b, results), opset)
        return
    # libonnx infers no shapes for Slice-1: they are given.
    shapes = {results[0]: [3, 2, 6], results[1]: [6, 2, 3]}
    save(f"slice_chains_op{opset}", b, [vi("X", [6, 4, 10])], finish(b, results, shapes), opset)


def concat_chains(opset):
    b = Builder(opset)
    negative = opset >= 11
    inner = b.op("Concat", ["A", "B"], axis=1)
    nested = b.op("Concat", [inner, "C"], axis=1)
    results = [b.op("Concat", ["C", nested, "A"], axis=1)]
    twice = b.op("Concat", ["A", "C"], axis=1)
    results.append(b.op("Concat", [twice, "B", twice], axis=1))
    if negative:
        neg = b.op("Concat", ["A", "B"], axis=-1)
        results.append(b.op("Concat", [neg, "C"], axis=1))
        neg0 = b.op("Concat", ["A", "A"], axis=-2)
        results.append(b.op("Concat", ["A", neg0], axis=0))
    shared = b.op("Concat", ["A", "B"], axis=1)
    results += [b.op("Concat", [shared, "C"], axis=1), shared]
    other = b.op("Concat", ["C", "C"], axis=0)
    results.append(b.op("Concat", [other, "D"], axis=1))
    inputs = [vi("A", [2, 3]), vi("B", [2, 2]), vi("C", [2, 1]), vi("D", [4, 2])]
    # libonnx infers no shapes for Concat-4: they are given.
    shapes = None if negative else dict(zip(results, [[2, 10], [2, 10], [2, 6], [2, 5], [4, 3]]))
    save(f"concat_chains_op{opset}", b, inputs, finish(b, results, shapes), opset)


def chains_in_if():
    def branch(name, sign):
        b = Builder(13)
        b.count = 100 if sign > 0 else 200
        x = b.op("Neg" if sign > 0 else "Abs", ["X"])
        u = b.axes_op("Unsqueeze", b.axes_op("Unsqueeze", x, [0]), [3])
        s = b.axes_op("Squeeze", b.axes_op("Squeeze", u, [0]), [2])
        e = b.axes_op("Squeeze", b.axes_op("Unsqueeze", s, [1]), [1])
        sl = b.slice(b.slice(e, [1], [4], [1]), [0], [1], [0])
        c = b.op("Concat", [b.op("Concat", [sl, sl], axis=1), "Y"], axis=1)
        b.nodes.append(helper.make_node("Identity", [c], [f"{name}_out"], name=f"{name}_id"))
        return helper.make_graph(b.nodes, name, [], [vi(f"{name}_out", None)], initializer=b.inits)

    b = Builder(13)
    b.nodes.append(helper.make_node("If", ["cond"], ["r"], name="if",
                                    then_branch=branch("then", 1), else_branch=branch("else", -1)))
    inputs = [vi("cond", [], BOOL), vi("X", [2, 5]), vi("Y", [1, 2])]
    save("chains_in_if", b, inputs, finish(b, ["r"]), 13)


def squeeze_empty_axes():
    b = Builder(13)
    squeezed = b.op("Squeeze", ["X", b.ints(np.zeros(0, np.int64))])
    shape = b.op("Cast", [b.op("Shape", [squeezed])], to=F32)
    save("squeeze_empty_axes_op13", b, [vi("X", [1, 3, 1])], finish(b, [shape, squeezed]), 13)


def main():
    os.makedirs(HERE, exist_ok=True)
    for opset in (13, 11):
        unsqueeze_chains(opset)
        squeeze_chains(opset)
    unsqueeze_squeeze(13)
    unsqueeze_squeeze(10)
    slice_chains(13)
    slice_chains(9)
    concat_chains(13)
    concat_chains(4)
    chains_in_if()
    squeeze_empty_axes()


if __name__ == "__main__":
    main()
