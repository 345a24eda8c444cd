#!/usr/bin/python3
"""Write tests/data/expected_counts.json: for every committed model its op histogram, and the
histogram we expect after `onnx-opt -O1` (fuse-transpose-gemm, eliminate-nop-expand,
fuse-matmul-add-gemm, eliminate-dead-nodes, to a fixed point).

The "after_O1" numbers come from a small, deliberately conservative Python model of the four
passes as issue 4 specifies them (below: `reference_o1`). It is a placeholder until the real
passes exist; where the issue leaves room (a proof through symbolic dims, a fold across a
subgraph boundary), the model's entry carries a "note". With --write-optimized DIR the
reference-optimized models are saved too, so they can be run against the originals in ONNX
Runtime (that is how these expectations were checked: all outputs equal).

Histograms count nodes in the main graph and in every subgraph (If/Loop bodies) together.

Since -O1 folds constants (lift-constants, fold-shapes, fold-constants), the reference below
does not model -O1 any more: the entries whose histogram folding changed carry "note_folding"
and were measured with onnx-opt -O1 (outputs equal under ONNX Runtime,
equivalence.test_models_O1). Likewise "note_catalogue" marks the entries measured once -O1
ran the standard catalogue (eliminate-identity, eliminate-common-subexpressions, the nop
eliminations), and "note_reshape_rnn" those measured once fuse-concat-into-reshape wrote -1 for
an entry not known and eliminate-zero-rnn-initial-state dropped zero RNN states, and
"note_transpose_axis_removal" the RNN exports measured once eliminate-transpose-before-axis-removal
read around the Transpose before their last step, and "note_derived_shapes" those measured once
the shape oracle let what its rules derive stand over declarations. Do not rerun
this script to rewrite them until `reference_o1` models those too.

    /usr/bin/python3 tests/data/derive_expected_counts.py
    /usr/bin/python3 tests/data/derive_expected_counts.py --write-optimized /tmp/o1
"""
import argparse
import collections
import copy
import glob
import json
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16}
# numpy-broadcasting elementwise ops -> first opset where they broadcast numpy-style
BROADCASTING = {"Add": 7, "Sub": 7, "Mul": 7, "Div": 7, "Pow": 7, "Max": 8, "Min": 8,
                "Sum": 8, "Mean": 8, "Where": 9, "Equal": 7, "Greater": 7, "Less": 7,
                "And": 7, "Or": 7, "Xor": 7, "Mod": 10, "BitShift": 11,
                "GreaterOrEqual": 12, "LessOrEqual": 12}

NOTES = {
    "tg_output_transpose_constc":
        "the Transpose of the Gemm's output folds because C is a constant [M,N] initializer that "
        "can be stored transposed (issue: 'when C is a constant that can be transposed')",
    "mm_bias_symbolic_col":
        "bias [N,1] next to A [N,16]: a valid [M,1] bias only if the pass treats equal "
        "dim_params as equal dims; expected to fuse, a stricter pass may decline",
    "mm_expand_add_shapeof":
        "the Expand target comes from Shape(X) and shape inference gives the Expand output "
        "[unk__k, n]; removing it from the Add needs that unknown dim (1 or N) -> declines, so "
        "the MatMul+Add does not fuse either (its bias is not provably [M,N]-broadcastable). "
        "A pass that reads through Shape->Gather->Unsqueeze->Concat could do better: then "
        "only 2 Gemm + 1 Relu would remain",
    "subgraphs":
        "the Loop body's Gemm reads Transpose(w3) computed in the outer graph: the fold crosses "
        "the subgraph boundary (a real use of the outer value) and leaves the outer Transpose "
        "dead",
    "ne_expand_cases":
        "3 Expands remain: [1,8]->[3,8] into Mul (would change Mul's output), the one that is "
        "a graph output (Sub reads around it), and [8]->[1,8] into Relu (not broadcasting)",
    "ne_gemm_c_other_user":
        "histogram unchanged: the Gemm reads b directly but the Expand (and its Shape chain) "
        "stays for the graph output 'bias_expanded'",
    "tg_other_user":
        "histogram unchanged: both Gemms read the weights directly (transB=1) but the "
        "Transposes stay for Neg and for the graph output 'w2t'",
}


def histogram(graph, c=None):
    c = collections.Counter() if c is None else c
    for n in graph.node:
        c[n.op_type] += 1
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                histogram(a.g, c)
            for g in a.graphs:
                histogram(g, c)
    return dict(sorted(c.items()))


# --- a conservative reference model of -O1 --------------------------------------------------

def all_graphs(g):
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from all_graphs(a.g)
            for sg in a.graphs:
                yield from all_graphs(sg)


class Index:
    """Producers, users, shapes, constants, graph outputs; names are unique model-wide."""

    def __init__(self, model):
        self.model = model
        self.producer, self.owner, self.users = {}, {}, collections.defaultdict(list)
        self.shapes, self.types, self.consts, self.graph_outputs = {}, {}, {}, set()
        self.graphs = list(all_graphs(model.graph))   # keeps the wrappers alive
        for gi, g in enumerate(self.graphs):
            for vi in list(g.input) + list(g.output) + list(g.value_info):
                self._shape(vi)
            for t in g.initializer:
                self.consts[t.name] = (g, t)
                self.shapes[t.name] = list(t.dims)
                self.types[t.name] = t.data_type
            for o in g.output:
                self.graph_outputs.add(o.name)
            for n in g.node:
                for o in n.output:
                    self.producer[o] = n
                self.owner[key(n)] = gi
                for i, name in enumerate(n.input):
                    if name:
                        self.users[name].append((n, i))
                # captured outer values are used by the node that owns the subgraph too
                for a in n.attribute:
                    subs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)
                    for sg in subs:
                        inner = set()
                        for sgg in all_graphs(sg):
                            inner.update(i.name for i in sgg.input)
                            inner.update(t.name for t in sgg.initializer)
                            for sn in sgg.node:
                                inner.update(sn.output)
                        for sgg in all_graphs(sg):
                            for sn in sgg.node:
                                for name in sn.input:
                                    if name and name not in inner:
                                        self.users[name].append((n, -1))

    def _shape(self, vi):
        t = vi.type.tensor_type
        self.types[vi.name] = t.elem_type
        if not t.HasField("shape"):
            return
        self.shapes[vi.name] = [d.dim_value if d.HasField("dim_value") else
                                (d.dim_param if d.HasField("dim_param") else None)
                                for d in t.shape.dim]

    def direct_users(self, name):
        return [(n, i) for n, i in self.users.get(name, []) if i >= 0]

    def n_uses(self, name):
        # distinct consumers + graph outputs
        return len({(key(n), i) for n, i in self.users.get(name, [])}) + \
            (1 if name in self.graph_outputs else 0)


def key(n):
    """A node's identity: its outputs (names are unique model-wide)."""
    return tuple(n.output)


def known(shape):
    return shape is not None and all(d is not None for d in shape)


def bcast(shapes):
    """numpy broadcast over dims (int, dim_param str, or None); None dim when undecidable."""
    if any(s is None for s in shapes):
        return None
    r = max(len(s) for s in shapes)
    out = []
    for k in range(r):
        dims = [s[len(s) - r + k] for s in shapes if len(s) - r + k >= 0]
        dims = [d for d in dims if d != 1]
        if not dims:
            out.append(1)
        elif all(d == dims[0] for d in dims):
            out.append(dims[0])                 # may be None: unknown but unique
        else:
            out.append(None)
    return out


def attr(n, name, default=None):
    for a in n.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def set_attr(n, name, value):
    for a in list(n.attribute):
        if a.name == name:
            n.attribute.remove(a)
    n.attribute.extend([helper.make_attribute(name, value)])


def is_swap(t):
    perm = attr(t, "perm")
    return perm is None or list(perm) == [1, 0]


def step(model, opset):
    """Apply one rewrite; return True if something changed."""
    ix = Index(model)
    for gi, g in enumerate(ix.graphs):
        for n in list(g.node):
            # fuse-transpose-gemm: inputs A and B
            if n.op_type == "Gemm":
                for k, flag in ((0, "transA"), (1, "transB")):
                    p = ix.producer.get(n.input[k])
                    if p is not None and p.op_type == "Transpose" and is_swap(p):
                        n.input[k] = p.input[0]
                        set_attr(n, flag, 1 - attr(n, flag, 0))
                        return True
            # fuse-transpose-gemm: the Gemm's output
            if n.op_type == "Transpose" and is_swap(n):
                p = ix.producer.get(n.input[0])
                if (p is not None and p.op_type == "Gemm" and ix.owner[key(p)] == gi
                        and ix.n_uses(p.output[0]) == 1):
                    has_c = len(p.input) > 2 and p.input[2]
                    if has_c and p.input[2] not in ix.consts:
                        continue
                    if not has_c and opset < 11:
                        continue
                    ta, tb = attr(p, "transA", 0), attr(p, "transB", 0)
                    ins = [p.input[1], p.input[0]]
                    if has_c:
                        cg, ct = ix.consts[p.input[2]]
                        arr = numpy_helper.to_array(ct)
                        arr = arr.T if arr.ndim == 2 else (arr.reshape(-1, 1) if arr.ndim == 1
                                                           else arr)
                        name = p.input[2] + "_t"
                        cg.initializer.append(numpy_helper.from_array(np.ascontiguousarray(arr),
                                                                      name))
                        ins.append(name)
                    q = helper.make_node("Gemm", ins, [n.output[0]], name=p.name)
                    for a in p.attribute:
                        if a.name not in ("transA", "transB"):
                            q.attribute.extend([a])
                    q.attribute.extend([helper.make_attribute("transA", 1 - tb),
                                        helper.make_attribute("transB", 1 - ta)])
                    pos = list(g.node).index(n)
                    g.node.insert(pos, q)
                    g.node.remove(n)
                    g.node.remove(p)
                    return True
            # eliminate-nop-expand
            if n.op_type == "Expand":
                x, o = n.input[0], n.output[0]
                xs, os_ = ix.shapes.get(x), ix.shapes.get(o)
                for u, k in ix.direct_users(o):
                    ok = False
                    if known(xs) and known(os_) and xs == os_:
                        ok = True                       # a no-op Expand
                    elif u.op_type == "Gemm" and k == 2 and opset >= 7:
                        ok = xs is not None and len(xs) <= 2
                    elif u.op_type in BROADCASTING and opset >= BROADCASTING[u.op_type]:
                        before = [ix.shapes.get(v) for v in u.input]
                        after = [xs if v == o else ix.shapes.get(v) for v in u.input]
                        b0, b1 = bcast(before), bcast(after)
                        ok = b0 is not None and None not in b0 and b0 == b1
                    if ok:
                        u.input[k] = x
                        return True
            # fuse-matmul-add-gemm
            if n.op_type == "Add" and opset >= 7:
                for k in (0, 1):
                    mm = ix.producer.get(n.input[k])
                    if mm is None or mm.op_type != "MatMul" or ix.owner[key(mm)] != gi:
                        continue
                    if ix.n_uses(mm.output[0]) != 1:
                        continue
                    a, b, bias = mm.input[0], mm.input[1], n.input[1 - k]
                    sa, sb, sc = ix.shapes.get(a), ix.shapes.get(b), ix.shapes.get(bias)
                    if sa is None or sb is None or len(sa) != 2 or len(sb) != 2:
                        continue
                    if ix.types.get(a) not in FLOAT_TYPES:
                        continue
                    if sc is None or len(sc) > 2:
                        continue
                    # the bias must broadcast to [M, N] without growing the output: each of
                    # its dims (right-aligned) is 1 or provably the output's dim
                    mn = [sa[0], sb[1]]
                    tail = mn[len(mn) - len(sc):]
                    if not all(d == 1 or (d is not None and d == e) for d, e in zip(sc, tail)):
                        continue
                    q = helper.make_node("Gemm", [a, b, bias], [n.output[0]],
                                         name=(mm.name + "+" + n.name))
                    pos = list(g.node).index(n)
                    g.node.insert(pos, q)
                    g.node.remove(n)
                    g.node.remove(mm)
                    return True
    # eliminate-dead-nodes
    for g in ix.graphs:
        for n in list(g.node):
            if all(ix.n_uses(o) == 0 for o in n.output if o) and n.output:
                g.node.remove(n)
                return True
    return False


def reference_o1(model):
    model = copy.deepcopy(model)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    for _ in range(10000):
        model = onnx.shape_inference.infer_shapes(model)
        if not step(model, opset):
            return model
    raise RuntimeError("no fixed point")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write-optimized", metavar="DIR")
    args = ap.parse_args()
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "*", "*.onnx"))):
        rel = os.path.relpath(path, HERE)
        m = onnx.load(path)
        opt = reference_o1(m)
        entry = {"ops": histogram(m.graph), "after_O1": histogram(opt.graph)}
        base = os.path.basename(path)[:-5]
        for key, note in NOTES.items():
            if base.startswith(key + "_op"):
                entry["note"] = note
        out[rel] = entry
        if args.write_optimized:
            dst = os.path.join(args.write_optimized, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            onnx.checker.check_model(opt, full_check=True)
            onnx.save(opt, dst)
    with open(os.path.join(HERE, "expected_counts.json"), "w") as f:
        json.dump({"_about": "op histograms (main graph + subgraphs) of each model, and the "
                             "placeholder expectation after -O1; see README.md",
                   "models": out}, f, indent=1, sort_keys=True)
        f.write("\n")
    print("%d models" % len(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
