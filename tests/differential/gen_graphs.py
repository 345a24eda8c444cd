#!/usr/bin/python3
"""Random valid ONNX graphs rich in what the passes rewrite (tests/differential/README.md).

    gen_graphs.py --seed S --count N --out DIR

writes DIR/g<S>_<i>.onnx for i in 0..N-1 and DIR/manifest.json: per model its opset, element
type, the motifs it holds and the sizes to bind its symbolic dims to, one binding per run.
Graph i depends only on (S, i): the same command always writes the same models.

A graph is a chain of motifs over a 2-D "current" tensor [m, k] (m may be the symbolic batch N),
one motif family per pass family of the catalogue (FAMILIES): what the passes rewrite and their
near misses, which they must leave alone. Graph i starts with family ROTATION[i % len], so a
short batch gives every family its chances; the later motifs are picked by FAMILY_WEIGHTS. If/Loop/Scan
bodies run a motif on outer values; every node may be placed in an outer scope when its operands
live there, so values of the main graph feed nodes in bodies. Values are shared by extra readers
and made outputs at random (of the graph they live in: a body's are returned by its If or Loop),
which the passes must respect. Nothing is left unread but now and then (a dead node makes every
rewrite pass change the model).

Opsets 7..17 are checked by onnx.checker (full check: strict shape inference). A graph of opset
18..23 (which libonnx 1.12 does not know) is built and checked at 17 and then relabelled: every
operator used here means the same there, once the reductions' axes attributes become inputs.
"""
import argparse
import json
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, checker, helper, numpy_helper, shape_inference

from shape_probes import ShapeProbes

# The float types by width (transpose_across casts a value back to the one it was rounded in).
FLOAT_WIDTH = {TensorProto.FLOAT16: 1, TensorProto.FLOAT: 2, TensorProto.DOUBLE: 3}
FLOAT_TYPES = {
    'float': (TensorProto.FLOAT, np.float32),
    'double': (TensorProto.DOUBLE, np.float64),
    'float16': (TensorProto.FLOAT16, np.float16),
}
INT_TYPES = {
    'int32': (TensorProto.INT32, np.int32),
    'int64': (TensorProto.INT64, np.int64),
}
# The IR version each opset came with (ONNX's versioning table), at least 4: from IR 4 on an
# initializer need not be a graph input.
IR_VERSION = {7: 4, 8: 4, 9: 4, 10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8,
              18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}
NEWEST_CHECKED_OPSET = 17
SYMBOLS = ('N', 'B')
# Sizes of the symbolic dims, one binding per run: 1 is the broadcast trap, and N != B catches a
# pass that takes two different symbols to be equal.
DIM_BINDINGS = [{'N': 1, 'B': 1}, {'N': 3, 'B': 2}, {'N': 2, 'B': 3}]


def broadcast(a, b):
    """numpy broadcast of two shapes whose dims are ints or symbols; None if not provably valid."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out[::-1]


class Scope:
    def __init__(self, depth):
        self.depth = depth
        self.nodes = []
        self.computed = set()  # the values defined here, but a body's own inputs
        self.outputs = []  # values made outputs of the body besides its result


class Ref:
    """A node attribute that refers to an attribute of the function the node is in."""

    def __init__(self, name, kind):
        self.name, self.kind = name, kind


class FunctionBody:
    """The nodes of a model-local function being built. Its names are its own: now and then one
    repeats a name of the main graph (ONNX Runtime inlines the calls, renaming them)."""

    def __init__(self, g):
        self.g, self.nodes, self.names = g, [], set()

    def name(self, hint):
        if self.g.shape and self.g.chance(0.3):
            other = self.g.pick(sorted(self.g.shape))
            if other not in self.names:
                self.names.add(other)
                return other
        i = len(self.names)
        while f'{hint}{i}' in self.names:
            i += 1
        self.names.add(f'{hint}{i}')
        return f'{hint}{i}'

    def op(self, op, inputs, domain=None, **attrs):
        out = self.name(op.lower() + '_')
        node = helper.make_node(op, inputs, [out], domain=domain,
                                **{k: v for k, v in attrs.items() if not isinstance(v, Ref)})
        for k, v in attrs.items():
            if isinstance(v, Ref):
                node.attribute.append(onnx.AttributeProto(name=k, type=v.kind, ref_attr_name=v.name))
        self.nodes.append(node)
        return out


class Graph(ShapeProbes):
    """Builds one model. Values are names; self.shape[name] is the value's shape, and
    self.depth[name] the scope it is defined in (0 = main graph)."""

    def __init__(self, rng, opset, elem):
        self.rng = rng
        self.opset = opset
        self.elem_name = elem
        self.elem = {**FLOAT_TYPES, **INT_TYPES}[elem][0]
        self.is_float = elem in FLOAT_TYPES
        self.scopes = [Scope(0)]
        self.inputs = []
        self.initializers = []
        self.outputs = []
        self.output_names = set()
        self.read = set()  # the values some node reads or a body returns
        self.shape = {}
        self.depth = {}
        self.elem_of = {}
        self.counter = 0
        self.motifs = []
        self.symbols = set()
        self.untracked_symbols = 0
        self.taken = set()
        self.functions = []  # the model-local functions (motif_function), in domain fn_domain
        self.function_keys = {}  # a function's signature -> the names of those of it
        self.fn_domain = None
        self.relabel_fixes = []  # what opsets 18+ change once checked at 17 (at_relabel)
        # Declare the batch dim N of graph inputs as unknown (no dim_param) instead: what the
        # passes may prove about N must then come from elsewhere, or not at all.
        self.unknown_batch = self.chance(0.25)

    # -- names, values ---------------------------------------------------------------------------
    def fresh(self, hint):
        """A new name; now and then one that a pass might derive from an existing name (a
        transposed C, a flattened A, a fused node), so that new names must avoid it."""
        self.counter += 1
        if self.shape and self.chance(0.05):
            name = self.pick(sorted(self.shape)) + self.pick(['_transposed', '_2d', '_shape', '_n'])
            if name not in self.shape and name not in self.taken:
                self.taken.add(name)
                return name
        if self.chance(0.03):
            for name in ['Gemm', 'Gemm_2', 'MatMul_Add', 'Add_Gemm']:
                if name not in self.taken and name not in self.shape:
                    self.taken.add(name)
                    return name
        name = f'{hint}{self.counter}'
        self.taken.add(name)
        return name

    def define(self, name, shape, depth, elem=None):
        self.shape[name] = list(shape)
        self.depth[name] = depth
        self.scopes[depth].computed.add(name)
        self.elem_of[name] = self.elem if elem is None else elem
        self.symbols.update(d for d in shape if d in SYMBOLS)
        return name

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, options):
        return self.rng.choice(options)

    def forms(self, options, count):
        """`count` of a motif's forms, to build one after the other (an option listed twice may
        come twice): a form per motif would give each form of a family too few chances in a CI
        batch to fire, and a motif more costs more than a form more."""
        return self.rng.sample(options, min(count, len(options)))

    def cur_depth(self):
        return self.scopes[-1].depth

    def node(self, op, inputs, shape, attrs=None, elem=None, hoist=True, domain=None):
        """Adds a node with one output of `shape`, in the innermost scope or (when `hoist`) in a
        random outer scope where all its inputs are visible. Returns the output's name."""
        depth = max([self.depth[i] for i in inputs if i] + [0])
        if hoist and depth < self.cur_depth() and self.chance(0.5):
            depth = self.rng.randint(depth, self.cur_depth())
        else:
            depth = self.cur_depth()
        out = self.fresh(op.lower() + '_')
        name = ''
        if self.chance(0.7):
            name = f'/layer{self.counter}/{op}' if self.chance(0.5) else self.fresh(op)
        self.scopes[depth].nodes.append(helper.make_node(op, inputs, [out], name=name, domain=domain,
                                                          **(attrs or {})))
        self.read.update(inputs)
        return self.define(out, shape, depth, elem)

    def random_data(self, shape, elem=None):
        elem = self.elem if elem is None else elem
        np_type = {**{v[0]: v[1] for v in FLOAT_TYPES.values()},
                   **{v[0]: v[1] for v in INT_TYPES.values()}}[elem]
        if np.issubdtype(np_type, np.floating):
            data = np.array([self.rng.uniform(-1, 1) for _ in range(int(np.prod(shape)))])
        else:
            data = np.array([self.rng.randint(-2, 2) for _ in range(int(np.prod(shape)))])
        return data.astype(np_type).reshape(shape)

    def constant(self, shape, data=None, elem=None, where='any'):
        """A constant of a static shape: an initializer or a Constant node."""
        data = self.random_data(shape, elem) if data is None else data
        name = self.fresh('c')
        tensor = numpy_helper.from_array(data, name)
        # Constant holds every type from opset 9; before, only floating types.
        constant_ok = self.opset >= 9 or data.dtype.kind == 'f'
        if where == 'initializer' or not constant_ok or (where == 'any' and self.chance(0.6)):
            self.initializers.append(tensor)
            if where == 'any' and self.chance(0.05):
                # keep_initializers_as_inputs: a default the caller may override, not a constant.
                self.inputs.append(helper.make_tensor_value_info(name, tensor.data_type, shape))
            return self.define(name, shape, 0, tensor.data_type)
        if tensor.data_type == TensorProto.FLOAT and self.opset >= 12 and len(shape) <= 1 and self.chance(0.5):
            # Constant's value_float (a scalar) and value_floats (1-D), from opset 12.
            values = [float(v) for v in data.flatten()]
            attrs = {'value_floats': values} if shape else {'value_float': values[0]}
        else:
            attrs = {'value': helper.make_tensor(name + '_value', tensor.data_type, list(shape),
                                                 data.flatten().tolist())}
        # In the main graph, or in the body being built (where only that body sees it).
        depth = self.cur_depth() if self.chance(0.5) else 0
        self.scopes[depth].nodes.append(helper.make_node('Constant', [], [name], **attrs))
        return self.define(name, shape, depth, tensor.data_type)

    def graph_input(self, shape, elem=None):
        name = self.fresh('in')
        declared = [None if d == 'N' and self.unknown_batch else d for d in shape]
        self.inputs.append(helper.make_tensor_value_info(
            name, self.elem if elem is None else elem, declared))
        return self.define(name, shape, 0, elem)

    def tensor(self, shape):
        """A value of `shape`: a constant (static shapes only), a graph input, or computed."""
        static = all(isinstance(d, int) for d in shape)
        if self.opset >= 8 and shape and self.chance(0.08):
            # An Expand of a smaller value to exactly `shape`, read where nothing broadcasts
            # (Gemm's A and B, MatMul) as well as where something does.
            smaller = [1 if self.chance(0.5) else d for d in shape][self.rng.randint(0, len(shape)):]
            e = self.expand_of(smaller, shape, exact=True)
            if self.shape[e] == shape:
                return e
            self.keep(e)
        choice = self.rng.random()
        if static and choice < 0.45:
            return self.constant(shape)
        source = self.graph_input(shape)
        if choice > 0.8:
            return self.node(self.unary(), [source], shape)
        return source

    def mark_output(self, name):
        """Makes `name` an output of the graph it lives in: of the main graph, or of the body
        being built there, whose If or Loop then returns it too (body()). A value nothing reads
        would be dead, and every rewrite pass's driver would erase it: a change to check with
        ONNX Runtime for every pass, which --each-pass pays for. Now and then a body's is left
        so, for the drivers' erasing of dead nodes in bodies."""
        depth = self.depth[name]
        if depth > 0:
            scope = self.scopes[depth]
            if name in scope.computed and name not in scope.outputs and not self.chance(0.15):
                scope.outputs.append(name)
                self.read.add(name)
            return
        if name in self.output_names:
            return
        self.output_names.add(name)
        self.outputs.append(helper.make_tensor_value_info(name, self.elem_of[name], self.shape[name]))

    def keep(self, name):
        """Makes `name` an output where a node computes it and nothing reads it: a dead node,
        which every rewrite pass's driver erases, would make a change for every pass to check
        with ONNX Runtime."""
        if name in self.read or name in self.output_names or \
                name in {i.name for i in self.inputs} | {t.name for t in self.initializers}:
            return
        self.mark_output(name)

    def then(self, cur, new):
        """`new` as the next current tensor, cur kept (keep) if nothing reads it."""
        if new != cur:
            self.keep(cur)
        return new

    def maybe_share(self, name, p=0.25):
        """Gives `name` another reader, or makes it a graph output, with probability p each."""
        if self.chance(p):
            self.mark_output(name)
        if self.chance(p):
            elem = self.elem_of[name]
            self.mark_output(self.node(self.unary(elem), [name], self.shape[name], elem=elem))

    def unary(self, elem=None):
        """A unary op ORT has a kernel for, for `elem` (the graph's type by default)."""
        elem = self.elem if elem is None else elem
        if elem == TensorProto.BOOL:
            return 'Not'
        return 'Relu' if elem in [t for t, _ in FLOAT_TYPES.values()] else 'Abs'

    # -- motifs --------------------------------------------------------------------------------
    def transpose2d(self, x, *, swap=True):
        """A Transpose of the 2-D x: perm [1,0], no perm (also a swap), or the identity [0,1]."""
        m, k = self.shape[x]
        if not swap:
            return self.node('Transpose', [x], [m, k], {'perm': [0, 1]})
        attrs = {'perm': [1, 0]} if self.chance(0.7) else {}
        t = self.node('Transpose', [x], [k, m], attrs)
        self.maybe_share(t, 0.15)
        return t

    def gemm_operand(self, rows, cols, source=None):
        """A value and flag that Gemm reads as a [rows, cols] operand, in one of the ways the
        pass folds (a Transpose with the flag unset or set) or must leave alone (the identity
        perm, a flag on a plain value). `source`, if given, is a [rows, cols] value to use."""
        kind = self.pick(['plain', 'plain', 'swap', 'swap', 'flag', 'swap-flag', 'identity', 'double'])
        def get(shape):
            if source is not None and shape == [rows, cols]:
                return source
            return self.tensor(shape)
        if kind == 'plain':
            return get([rows, cols]), 0
        if kind == 'swap':      # Transpose of [cols, rows], flag 0: folds to flag 1
            return self.transpose2d(get([cols, rows]) if source is None else self.transpose2d(source)), 0
        if kind == 'flag':      # a [cols, rows] value read transposed by the flag
            return (self.tensor([cols, rows]) if source is None else self.transpose2d(source)), 1
        if kind == 'swap-flag':  # Transpose of [rows, cols] with the flag set: folds to flag 0
            return self.transpose2d(get([rows, cols])), 1
        if kind == 'identity':
            return self.transpose2d(get([rows, cols]), swap=False), 0
        inner = self.transpose2d(get([rows, cols]))  # Transpose(Transpose(x)): two folds
        return self.transpose2d(inner), 0

    def bias(self, m, n, allow_none):
        """A C for a Gemm of output [m, n], or None (only where C is optional). A weight half
        the time: fuse-transpose-gemm moves a Transpose of the output into a constant C only."""
        if allow_none and self.chance(0.5):
            return None
        shape = self.pick([[n], [1, n], [m, n], [m, 1], [], [1], [1, 1]])
        if self.opset >= 8 and self.chance(0.3):
            return self.expand_of(shape, [m, n], into=True)
        if all(isinstance(d, int) for d in shape) and self.chance(0.5):
            return self.weights(shape)
        return self.tensor(shape)

    def motif_transpose_gemm(self, cur):
        if not self.is_float:
            return cur
        m, k = self.shape[cur]
        n = self.rng.randint(1, 4)
        self.motifs.append('transpose-gemm')
        a, trans_a = self.gemm_operand(m, k, source=cur)
        if self.chance(0.15) and trans_a == 0 and self.shape[a] == [m, k] and isinstance(m, int):
            # One value read as both A and B: Gemm(T, T) with op(B) = [k, m] -> [m, m].
            b, trans_b, n = a, 1, m
        else:
            b, trans_b = self.gemm_operand(k, n)
        c = self.bias(m, n, allow_none=self.opset >= 11)
        attrs = {}
        if trans_a:
            attrs['transA'] = 1
        if trans_b:
            attrs['transB'] = 1
        if self.chance(0.2):
            attrs['alpha'] = self.pick([0.5, 2.0, -1.0, 0.25])
        if self.chance(0.3):
            attrs['beta'] = self.pick([0.5, 2.0, -1.0, 0.0])
        y = self.node('Gemm', [a, b] + ([c] if c else []), [m, n], attrs)
        if c is None and self.chance(0.7):
            # The bias added after the Gemm, by an Add or a Sum (fuse-add-bias-into-gemm; an
            # alpha other than 1 is a near miss).
            self.maybe_share(y, 0.1)
            bias = self.bias(m, n, allow_none=False)
            y = self.node(self.pick(['Add', 'Sum']), [y, bias] if self.chance(0.5) else [bias, y], [m, n])
        if self.chance(0.6):
            self.maybe_share(y, 0.15)
            attrs = {'perm': [1, 0]} if self.chance(0.7) else {}
            y = self.node('Transpose', [y], [n, m], attrs)
        self.maybe_share(y, 0.15)
        return y

    def shape_value(self, target, like, read=0.3):
        """An int64 1-D value holding `target` (ints and symbols); symbols are read from Shape of
        `like`, whose shape holds them, and so are its static dims with probability `read`
        where the target is static."""
        static = all(isinstance(d, int) for d in target)
        if like is None and not static:
            return None
        if not target:
            like = None
        if static and (like is None or not self.chance(read)):
            return self.constant([len(target)], np.array(target, dtype=np.int64), TensorProto.INT64)
        like_shape = self.shape[like]
        if any(isinstance(d, str) and d not in like_shape for d in target):
            return None
        if target == like_shape and self.chance(0.3):
            return self.node('Shape', [like], [len(target)], elem=TensorProto.INT64)
        shape = []  # like's Shape, once a dim is read from it
        parts = []
        for d in target:
            if d in like_shape and (isinstance(d, str) or self.chance(0.7)):
                part = self.dim_of(like, like_shape.index(d), shape)
                if self.opset >= 7 and self.chance(0.25):
                    # Computed at run time (fuse-concat-into-reshape may make one such entry -1).
                    one = self.constant([1], np.array([1], dtype=np.int64), TensorProto.INT64)
                    part = self.node('Mul', [part, one], [1], elem=TensorProto.INT64)
                parts.append(part)
            else:
                parts.append(self.constant([1], np.array([d], dtype=np.int64), TensorProto.INT64))
        if len(parts) == 1:
            return parts[0]
        return self.node('Concat', parts, [len(target)], {'axis': 0}, elem=TensorProto.INT64)

    def dim_of(self, like, axis, shape=None):
        """A 1-element int64 value holding dim `axis` of `like`: Shape with start/end (opset
        15+), or Gather of a scalar or 1-element index (negative at times) of like's Shape,
        Unsqueezed to 1-D, through an Identity now and then. `shape`, a list, holds that Shape
        once made, for the next dims to read (a Shape made first and read by none would be
        dead)."""
        rank = len(self.shape[like])
        if self.opset >= 15 and self.chance(0.3):
            start = axis - rank if self.chance(0.5) else axis
            return self.node('Shape', [like], [1], {'start': start, 'end': start + 1 if start != -1 else rank},
                             elem=TensorProto.INT64)
        shape = [] if shape is None else shape
        if not shape:
            shape.append(self.node('Shape', [like], [rank], elem=TensorProto.INT64))
        shape = shape[0]
        index_shape = [] if self.chance(0.5) else [1]
        value = axis - rank if self.chance(0.3) else axis
        index = self.constant(index_shape, np.array(value, dtype=np.int64).reshape(index_shape),
                              TensorProto.INT64)
        if self.chance(0.1):
            shape = self.node('Identity', [shape], self.shape[shape], elem=TensorProto.INT64)
        gathered = self.node('Gather', [shape, index], self.shape[index], {'axis': 0},
                             elem=TensorProto.INT64)
        if self.shape[gathered] == []:
            if self.opset >= 13:
                axes = self.constant([1], np.array([0], dtype=np.int64), TensorProto.INT64)
                gathered = self.node('Unsqueeze', [gathered, axes], [1], elem=TensorProto.INT64)
            else:
                gathered = self.node('Unsqueeze', [gathered], [1], {'axes': [0]},
                                     elem=TensorProto.INT64)
        return gathered

    def expand_of(self, x_shape, out_shape, x=None, into=False, exact=False):
        """Expand(x, S) whose result broadcasts with `out_shape` (`into`: to out_shape itself, as
        Gemm's C must); x has x_shape (made if None). The target is a no-op, exactly out_shape,
        something between (ones, a shorter one), or one that grows the rank."""
        x = self.tensor(x_shape) if x is None else x
        x_shape = self.shape[x]
        candidates = [out_shape, x_shape, [1] * len(x_shape), [1],
                      [1] + list(out_shape[1:]), out_shape[-1:], [2] + list(out_shape)]
        self.rng.shuffle(candidates)
        for target in candidates:
            result = broadcast(x_shape, target)
            if result is None or broadcast(result, out_shape) is None:
                continue
            if (into and broadcast(result, out_shape) != out_shape) or (exact and result != out_shape):
                continue
            like = self.pick([v for v in self.shape if self.shape[v] == out_shape and self.depth[v] == 0]
                             or [None])
            s = self.shape_value(target, like)
            if s is None:
                continue
            e = self.node('Expand', [x, s], result)
            self.maybe_share(e, 0.1)
            return e
        return x

    def motif_expand(self, cur):
        if self.opset < 8:
            return cur
        m, k = self.shape[cur]
        self.motifs.append('expand')
        x_shape = self.pick([[k], [1, k], [m, k], [m, 1], [], [1], [1, 1]])
        x = self.pick([cur, cur, None]) if x_shape == [m, k] else None
        e = self.expand_of(x_shape, [m, k], x)
        e_shape = self.shape[e]
        consumer = self.pick(['Add', 'Sub', 'Mul', 'Max', 'Where', 'PRelu', 'Expand', 'Relu', 'output'])
        if consumer == 'PRelu' and self.elem_name != 'float':
            consumer = 'Add'
        if consumer == 'Where' and self.opset < 9:
            consumer = 'Mul'
        if consumer == 'Max' and not self.is_float and self.opset < 12:
            consumer = 'Sub'  # integer Max from opset 12
        if consumer == 'output':  # of the graph, or of the body being built
            self.mark_output(e)
            return self.continue_or_output(e, cur) if self.chance(0.5) else cur
        if consumer == 'Relu':
            return self.continue_or_output(self.node(self.unary(), [e], e_shape), cur)
        if consumer == 'Expand':
            return self.continue_or_output(self.expand_of(e_shape, [m, k], e), cur)
        other = self.pick([cur, cur, cur, e]) if self.chance(0.7) else \
            self.tensor(self.pick([[m, k], [1, k], [k], [m, 1]]))
        out_shape = broadcast(e_shape, self.shape[other])
        if out_shape is None:
            return cur
        operands = [other, e] if self.chance(0.5) else [e, other]
        if consumer == 'PRelu':
            operands = [other, e]
            if broadcast(self.shape[other], e_shape) != self.shape[other]:
                return cur  # the slope broadcasts into X only
        if consumer == 'Where':
            cond = self.graph_input(self.pick([[m, k], [k], [1]]), TensorProto.BOOL)
            out_shape = broadcast(self.shape[cond], out_shape)
            if out_shape is None:
                return cur
            operands = [cond] + operands
        y = self.node(consumer, operands, out_shape)
        self.maybe_share(y, 0.1)
        return self.continue_or_output(y, cur)

    def continue_or_output(self, y, cur):
        """y as the next current tensor when it is 2-D with cur's rows; else a graph output."""
        shape = self.shape[y]
        if len(shape) == 2 and shape[0] == self.shape[cur][0] and isinstance(shape[1], int):
            return y
        self.mark_output(y)
        return cur

    def motif_matmul_add(self, cur):
        """One or two linear layers in a row (the second reads the first's result where that is
        2-D with cur's rows), or, half of the time, parallel projections of one input."""
        if self.chance(0.5):
            return self.then(cur, self.parallel_projections(cur))
        for _ in range(self.pick([1, 2])):
            cur = self.then(cur, self.linear_layer(cur))
        return cur

    def parallel_projections(self, cur):
        """Two or three MatMuls of one input (cur, or a 3-D or 1-D tensor) by constant weights,
        each with a bias Add along the last axis, or all or some without; or, half of the time
        (float types, opset 7 on), Gemms of cur with one setting (transB, alpha, beta at random),
        with C of [N] or [1, N] in all, some or none (fuse-parallel-matmuls). Near misses now and
        then: a weight another node reads too, a weight that is a graph input, a bias of the
        product's full shape, a Gemm of another alpha. The products are summed when their widths
        agree."""
        m, k = self.shape[cur]
        if not self.is_float and self.opset < 9:
            return cur  # integer MatMul from opset 9
        self.motifs.append('parallel-matmuls')
        gemm = self.is_float and self.opset >= 7 and self.chance(0.5)
        x = cur if gemm else \
            self.pick([cur] * 3 + [self.tensor(['B' if self.chance(0.5) else 2, m, k]), self.tensor([k])])
        lead = self.shape[x][:-1]
        biases = self.pick(['all', 'all', 'some', 'none']) if self.opset >= 7 else 'none'
        if gemm and self.opset < 11:
            biases = 'all'  # C is required before opset 11
        settings = {'transB': self.pick([0, 1]), 'alpha': self.pick([1.0, 0.5]), 'beta': self.pick([1.0, 2.0])}
        results = []
        for i in range(self.pick([2, 3])):
            n = self.rng.randint(1, 4)
            near = self.pick(['shared', 'input', 'full-bias' if not gemm else 'settings']) \
                if self.chance(0.15) else None
            w_shape = [n, k] if gemm and settings['transB'] else [k, n]
            w = self.graph_input(w_shape) if near == 'input' else self.constant(w_shape)
            if near == 'shared':
                self.mark_output(self.op('Neg' if self.is_float or self.opset >= 6 else 'Abs', [w], w_shape))
            if gemm:
                with_c = biases == 'all' or (biases == 'some' and i > 0)
                c = [self.constant(self.pick([[n], [1, n]]))] if with_c else []
                attrs = dict(settings, alpha=2.0) if near == 'settings' else settings
                results.append(self.op('Gemm', [x, w] + c, [m, n], **attrs))
                continue
            product = self.op('MatMul', [x, w], lead + [n])
            if biases == 'all' or (biases == 'some' and i > 0):
                full = near == 'full-bias' and lead and all(isinstance(d, int) for d in lead)
                shape = lead + [n] if full else self.pick([[n], [1, n]][:len(lead) + 1])
                bias = self.constant(shape)
                operands = [product, bias] if self.chance(0.5) else [bias, product]
                product = self.op('Add', operands, lead + [n])
            results.append(product)
        y = results[0]
        for r in results[1:]:
            if self.shape[r] == self.shape[y]:
                y = self.op('Add', [y, r], self.shape[y])
            else:
                self.mark_output(r)
        return self.continue_or_output(y, cur)

    def linear_layer(self, cur):
        """MatMul + Add (2-D, 3-D, batched, 1-D, a transposed 3-D A; biases that broadcast and
        ones that grow the output, an Add of two MatMuls), a Gemm without C followed by an Add or
        Sum (alpha 2 and beta at times), or an Einsum (einsum_product)."""
        m, k = self.shape[cur]
        n = self.rng.randint(1, 4)
        if not self.is_float and self.opset < 9:
            return cur  # integer MatMul from opset 9
        if self.opset >= 12 and self.elem_name in ('float', 'double', 'int32', 'int64') and \
                self.chance(0.15):
            return self.einsum_product(cur)
        self.motifs.append('matmul-add')
        form = self.pick(['2d'] * 6 + ['3d-a', 'batched', '1d-a', '1d-b', 'transposed-3d'])
        if form == '2d':
            a, b = cur, self.tensor([k, n])
            out = [m, n]
        elif form == '3d-a':
            a, b = self.tensor(['B', m, k] if self.chance(0.5) else [2, m, k]), self.tensor([k, n])
            out = self.shape[a][:2] + [n]
        elif form == 'batched':
            a, b = self.tensor([2, m, k]), self.tensor([2, k, n])
            out = [2, m, n]
        elif form == '1d-a':
            a, b = self.tensor([k]), self.tensor([k, n])
            out = [n]
        elif form == '1d-b':
            a, b = cur, self.tensor([k])
            out = [m]
        else:  # a 3-D Transpose (no perm of it is an axis swap Gemm can fold) feeding MatMul
            perm = self.pick([[1, 0, 2], [0, 2, 1], [2, 1, 0]])
            src_shape = [None] * 3
            target = [2, m, k]
            for i, p in enumerate(perm):
                src_shape[p] = target[i]
            a = self.node('Transpose', [self.tensor(src_shape)], target, {'perm': perm})
            b, out = self.tensor([k, n]), [2, m, n]
        # A Gemm without C (opset 11 on) for fuse-add-bias-into-gemm; alpha 2 is a near miss.
        gemm = form == '2d' and self.opset >= 11 and self.is_float and self.chance(0.5)
        attrs = {}
        if gemm:
            if self.chance(0.3):
                attrs['transB'] = 1
                b = self.tensor([n, k])
            if self.chance(0.15):
                attrs['alpha'] = 2.0
            if self.chance(0.15):
                attrs['beta'] = 0.5
        op = 'Gemm' if gemm else 'MatMul'
        product = self.node(op, [a, b], out, attrs)
        self.maybe_share(product, 0.12)
        if self.chance(0.15):
            bias = self.node(op, [a, b], out, attrs)  # Add(MatMul, MatMul)
        else:
            last = out[-1]
            rows = out[-2] if len(out) >= 2 else 1
            options = [[last], [1, last], [rows, last], [rows, 1], [], [1], [1, 1], [3, last], [1, 1, last]]
            if len(out) == 3:
                options += [out, [out[0], 1, 1]]
            shape = self.pick(options)
            if broadcast(out, shape) is None:
                shape = [last]
            if self.opset >= 8 and self.chance(0.25):
                bias = self.expand_of(shape, broadcast(out, shape))
            else:
                bias = self.tensor(shape)
        y_shape = broadcast(out, self.shape[bias])
        if y_shape is None:
            return cur
        operands = [product, bias] if self.chance(0.5) else [bias, product]
        y = self.node('Sum' if gemm and self.chance(0.5) else 'Add', operands, y_shape)
        self.maybe_share(y, 0.12)
        return self.continue_or_output(y, cur)

    def motif_einsum(self, cur):
        """einsum_product, from opset 12."""
        if self.opset < 12 or self.elem_name not in ('float', 'double', 'int32', 'int64'):
            return cur  # Einsum from opset 12; ORT's kernels have no float16
        return self.einsum_product(cur)

    def einsum_product(self, cur):
        """Einsum as a matrix product: plain, either operand transposed, batched (a batch dim of
        1 broadcast), a linear layer's weight without batch labels, a leading '...'; the near
        misses: a contraction dim of 1 (Einsum broadcasts it, MatMul would fail), the product
        transposed, a batch label summed away."""
        m, k = self.shape[cur]
        n = self.rng.randint(1, 4)
        self.motifs.append('einsum')
        form = self.pick(['plain', 'plain', 'transposed-b', 'transposed-a', 'batched', 'linear',
                          'ellipsis', 'broadcast-k', 'transposed-out', 'summed-batch'])
        batch = self.pick([2, 1])
        if form == 'plain':
            eq, a, b, out = 'ij,jk->ik', cur, self.tensor([k, n]), [m, n]
        elif form == 'transposed-b':
            eq, a, b, out = 'ij,kj->ik', cur, self.tensor([n, k]), [m, n]
        elif form == 'transposed-a':
            eq, a, b, out = 'ji,jk->ik', self.tensor([k, m]), self.tensor([k, n]), [m, n]
        elif form == 'batched':
            eq, out = 'bij,bjk->bik', [2, m, n]
            if self.cur_depth() > 0:
                # ORT infers the first operand's 1 for `b`; where it infers a body's shapes again
                # (any graph change it makes at load: a Cast pair merged, Casts around a float16
                # op it has no kernel for, an inlined HardSwish), the If preallocates that size
                # and fails (docs/limits.md).
                batch = 2
            a, b = self.tensor([batch, m, k]), self.tensor([2, k, n])
        elif form == 'linear':
            eq, a, b, out = 'bsd,hd->bsh', self.tensor([2, m, k]), self.tensor([n, k]), [2, m, n]
        elif form == 'ellipsis':
            # onnx 1.12's inference wants the '...' of both operands of one rank
            eq, out = '...ij,...jk->...ik', [2, m, n]
            a, b = self.tensor([2, m, k]), self.tensor([batch, k, n])
        elif form == 'broadcast-k':
            eq, a, b, out = 'ij,jk->ik', self.tensor([m, 1]), self.tensor([k, n]), [m, n]
        elif form == 'transposed-out':
            eq, a, b, out = 'ij,jk->ki', cur, self.tensor([k, n]), [n, m]
        else:
            eq, a, b, out = 'bij,bjk->ik', self.tensor([2, m, k]), self.tensor([2, k, n]), [m, n]
        y = self.node('Einsum', [a, b], out, {'equation': eq})
        self.maybe_share(y, 0.1)
        return self.continue_or_output(y, cur)

    def body(self, motif, cur, formal=None):
        """Runs `motif` in a new scope on `cur` (an outer value), or on `formal`, a body input
        of cur's shape; returns (nodes, output, the other values made outputs there). An outer
        value is returned through an Identity (ONNX Runtime rejects a body that returns one
        directly)."""
        self.scopes.append(Scope(len(self.scopes)))
        if formal is not None:
            cur = self.define(formal, self.shape[cur], self.cur_depth())
            self.scopes[-1].computed.discard(cur)
        y = motif(cur)
        if y == cur or self.depth[y] != self.cur_depth():
            y = self.node('Identity', [y], self.shape[y], hoist=False)
        scope = self.scopes.pop()
        return scope.nodes, y, [v for v in scope.outputs if v != y]

    def info(self, value, like=None):
        """The value_info of `value`, with the type and shape of `like` (value's own by default)."""
        like = value if like is None else like
        return helper.make_tensor_value_info(value, self.elem_of[like], self.shape[like])

    def if_node(self, cond, then_nodes, results):
        """If(cond) whose then branch computes `results` (then_nodes) and whose else branch
        returns graph inputs of the same types and shapes; returns the If's outputs, the ones
        past the first made outputs where the If is. A result with a dim the generator does not
        track stays in the then branch: an else-branch input of another size would give the
        If's output a different shape per branch, which ONNX Runtime fails on where its shape
        inference knows the then branch's (as it does once --dim fixes the dims it depends on)."""
        results = [results[0]] + [v for v in results[1:] if not self.untracked(v)]
        assert not self.untracked(results[0]), results[0]
        others = [self.graph_input(self.shape[v], self.elem_of[v]) for v in results]
        else_outputs = [self.fresh('else_out') for _ in results]
        else_nodes = [helper.make_node('Identity', [o], [e]) for o, e in zip(others, else_outputs)]
        outs = [self.fresh('if_') for _ in results]
        self.scopes[-1].nodes.append(helper.make_node(
            'If', [cond], outs, name=self.pick(['', self.fresh('If')]),
            then_branch=helper.make_graph(then_nodes, self.fresh('then'), [], [self.info(v) for v in results]),
            else_branch=helper.make_graph(else_nodes, self.fresh('else'), [],
                                          [self.info(e, o) for o, e in zip(others, else_outputs)])))
        self.read.update([cond] + results)
        for out, v in zip(outs, results):
            self.define(out, self.shape[v], self.cur_depth(), self.elem_of[v])
        for out in outs[1:]:
            self.mark_output(out)
        return outs

    def motif_if(self, cur):
        self.motifs.append('if')
        motif = self.pick_motif(self.body_families())
        then_nodes, y, others = self.body(motif, cur)
        return self.if_node(self.graph_input([], TensorProto.BOOL), then_nodes, [y] + others)[0]

    def motif_loop(self, cur):
        """Loop<body>(2, true, cur): the body runs a motif on outer values or on its input
        carrying `cur` (through unchanged: ONNX requires a carried value); the motif's result,
        and what it made outputs in the body, are scanned."""
        self.motifs.append('loop')
        motif = self.pick_motif(self.body_families())
        carried_in, carried_out = self.fresh('carried_in'), self.fresh('carried_out')
        # The motif reads the outer `cur`, or the body's own input carrying it.
        nodes, y, others = self.body(motif, cur, carried_in if self.chance(0.5) else None)
        iteration, cond_in, cond_out = self.fresh('i'), self.fresh('cond_in'), self.fresh('cond_out')
        nodes.append(helper.make_node('Identity', [cond_in], [cond_out]))
        if self.chance(0.4):
            # The carried value returned as the body's own input: valid ONNX, which ORT runs
            # for a Loop, and which legalize-subgraph-outputs gives an Identity.
            carried_out = carried_in
        else:
            nodes.append(helper.make_node('Identity', [carried_in], [carried_out]))
        info = lambda v, shape, elem=self.elem: helper.make_tensor_value_info(v, elem, shape)
        body = helper.make_graph(
            nodes, self.fresh('body'),
            [info(iteration, [], TensorProto.INT64), info(cond_in, [], TensorProto.BOOL),
             info(carried_in, self.shape[cur])],
            [info(cond_out, [], TensorProto.BOOL), info(carried_out, self.shape[cur])] +
            [self.info(v) for v in [y] + others])
        trips = self.constant([], np.array(2, dtype=np.int64), TensorProto.INT64, where='initializer')
        keep_going = self.constant([], np.array(True), TensorProto.BOOL, where='initializer')
        final = self.fresh('loop_final')
        scans = [self.fresh('loop_scan') for _ in [y] + others]
        self.scopes[-1].nodes.append(helper.make_node(
            'Loop', [trips, keep_going, cur], [final] + scans, name=self.fresh('Loop'), body=body))
        self.read.update([trips, keep_going, cur, y] + others)
        self.define(final, self.shape[cur], self.cur_depth())
        for scan, v in zip(scans, [y] + others):
            self.define(scan, [2] + self.shape[v], self.cur_depth(), self.elem_of[v])
            self.mark_output(self.reshaped_by_own_shape(scan))
        return final

    def reshaped_by_own_shape(self, value):
        """`value`, or now and then Reshape(value, Shape(value)): the Shape of a Loop's or Scan's
        scan output folds where the model fixes the iteration count."""
        if not self.chance(0.3):
            return value
        shape = self.op('Shape', [value], [len(self.shape[value])], TensorProto.INT64)
        return self.op('Reshape', [value, shape], self.shape[value], self.elem_of[value])

    def motif_scan(self, cur):
        """Scan<body>(cur, seq), from opset 9 (Scan-8 has a batch axis): `seq` stacks cur and
        another [m, k] value along axis 0 or 1 (scan_input_axes, negative at times from opset
        11), read forward or in reverse; the body carries `cur` as its state (through an
        Identity) and runs a motif on its slice of seq, or on outer values; the motif's result,
        and what it made outputs in the body, are scanned out along axis 0 or 1
        (scan_output_axes, negative at times from 11). The final state continues the chain."""
        if self.opset < 9:
            return cur
        self.motifs.append('scan')
        motif = self.pick_motif(self.body_families())
        shape, elem = self.shape[cur], self.elem_of[cur]
        axis = self.pick([0, 1])
        stacked = list(shape)
        stacked.insert(axis, 2)
        seq = self.op('Concat', [self.unsqueeze(v, [axis]) for v in (cur, self.tensor(shape))],
                      stacked, elem, axis=axis)
        state_in, state_out, slice_in = self.fresh('state_in'), self.fresh('state_out'), self.fresh('slice')
        nodes, y, others = self.body(motif, cur, slice_in if self.chance(0.7) else None)
        nodes.append(helper.make_node('Identity', [state_in], [state_out]))
        results = [y] + others
        out_axes = [self.pick([0, 0, 1]) if self.shape[v] else 0 for v in results]
        attrs = {'num_scan_inputs': 1}
        negative = self.opset >= 11 and self.chance(0.3)
        if axis != 0 or self.chance(0.3):
            attrs['scan_input_axes'] = [axis - len(stacked) if negative else axis]
        if self.chance(0.3):
            attrs['scan_input_directions'] = [1]
        if any(out_axes) or self.chance(0.2):
            attrs['scan_output_axes'] = [a - len(self.shape[v]) - 1 if negative else a
                                         for v, a in zip(results, out_axes)]
        if self.chance(0.2):
            attrs['scan_output_directions'] = [self.pick([0, 1]) for _ in results]
        info = lambda v: helper.make_tensor_value_info(v, elem, shape)
        body = helper.make_graph(nodes, self.fresh('body'), [info(state_in), info(slice_in)],
                                 [info(state_out)] + [self.info(v) for v in results])
        final = self.fresh('scan_final')
        scans = [self.fresh('scan_out') for _ in results]
        self.scopes[-1].nodes.append(helper.make_node(
            'Scan', [cur, seq], [final] + scans, name=self.fresh('Scan'), body=body, **attrs))
        self.read.update([cur, seq] + results)
        self.define(final, shape, self.cur_depth(), elem)
        for scan, v, a in zip(scans, results, out_axes):
            scanned = list(self.shape[v])
            scanned.insert(a, 2)
            self.define(scan, scanned, self.cur_depth(), self.elem_of[v])
            self.mark_output(self.reshaped_by_own_shape(scan))
        return final

    # -- the catalogue's motifs ------------------------------------------------------------------
    # Each takes the current [m, k] tensor and returns the next one (or `cur`, having made graph
    # outputs of what it built); a motif whose opset or element type the ops do not allow
    # returns `cur` unchanged. Each builds what its passes rewrite and, as often, a near miss
    # they must leave alone (named in the comments).
    def np_type(self, elem=None):
        elem = self.elem if elem is None else elem
        return {**{v[0]: v[1] for v in FLOAT_TYPES.values()}, **{v[0]: v[1] for v in INT_TYPES.values()},
                TensorProto.BOOL: np.bool_}[elem]

    def full(self, shape, value, elem=None):
        """A constant of `shape` filled with `value`, of the graph's element type by default."""
        elem = self.elem if elem is None else elem
        return self.constant(shape, np.full(shape, value, dtype=self.np_type(elem)), elem)

    def ints(self, values):
        return self.constant([len(values)], np.array(values, dtype=np.int64), TensorProto.INT64)

    def op(self, op, inputs, shape, elem=None, hoist=True, **attrs):
        return self.node(op, inputs, shape, attrs, elem=elem, hoist=hoist)

    def multi(self, op, inputs, shapes, elems, **attrs):
        """A node with several outputs (Split, Dropout with its mask), in the innermost scope."""
        # An outer value is read through an Identity in the body: ORT 1.30 loses the outer input
        # of a Split whose output a body returns ("Missing Input").
        inputs = [i if not i or self.depth[i] == self.cur_depth() else
                  self.node('Identity', [i], self.shape[i], elem=self.elem_of[i], hoist=False) for i in inputs]
        outs = [self.fresh(op.lower() + '_') for _ in shapes]
        self.scopes[-1].nodes.append(helper.make_node(op, inputs, outs, name=self.fresh(op), **attrs))
        self.read.update(inputs)
        return [self.define(o, s, self.cur_depth(), e) for o, s, e in zip(outs, shapes, elems)]

    def unsqueeze(self, x, axes):
        shape = list(self.shape[x])
        rank = len(shape) + len(axes)
        for a in sorted(a % rank for a in axes):
            shape.insert(a, 1)
        if self.opset < 11:  # negative axes from Unsqueeze-11
            axes = [a % rank for a in axes]
        elem = self.elem_of[x]
        if self.opset >= 13:
            return self.op('Unsqueeze', [x, self.ints(axes)], shape, elem)
        return self.op('Unsqueeze', [x], shape, elem, axes=axes)

    def squeeze(self, x, axes):
        rank = len(self.shape[x])
        drop = {a % rank for a in axes}
        shape = [d for i, d in enumerate(self.shape[x]) if i not in drop]
        if self.opset < 11:  # negative axes from Squeeze-11
            axes = [a % rank for a in axes]
        elem = self.elem_of[x]
        if self.opset >= 13:
            return self.op('Squeeze', [x, self.ints(axes)], shape, elem)
        return self.op('Squeeze', [x], shape, elem, axes=axes)

    def reshape(self, x, target, shape, **attrs):
        return self.op('Reshape', [x, self.ints(target)], shape, self.elem_of[x], **attrs)

    def slice(self, x, starts, ends, axes, steps, shape):
        if self.opset < 10:
            return self.op('Slice', [x], shape, self.elem_of[x], starts=starts, ends=ends, axes=axes)
        operands = [x, self.ints(starts), self.ints(ends), self.ints(axes)]
        if steps is not None:
            operands.append(self.ints(steps))
        return self.op('Slice', operands, shape, self.elem_of[x])

    def pad(self, x, pads, shape, mode='constant', value=None):
        attrs = {} if mode == 'constant' and self.chance(0.5) else {'mode': mode}
        if self.opset < 11:
            if value is not None:
                attrs['value'] = float(value)
            return self.op('Pad', [x], shape, self.elem_of[x], pads=pads, **attrs)
        operands = [x, self.ints(pads)]
        if value is not None:
            operands.append(self.full([], value, self.elem_of[x]))
        return self.op('Pad', operands, shape, self.elem_of[x], **attrs)

    def clip(self, x, lo, hi):
        if self.opset < 11:
            return self.op('Clip', [x], self.shape[x], min=float(lo), max=float(hi))
        return self.op('Clip', [x, self.full([], lo), self.full([], hi)], self.shape[x])

    def reduce_mean(self, x, axes, keepdims=1):
        """ReduceMean with the axes attribute; build() moves them to the input from opset 18."""
        rank = len(self.shape[x])
        kept = {a % rank for a in axes}
        shape = [1 if i in kept else d for i, d in enumerate(self.shape[x]) if keepdims or i not in kept]
        return self.op('ReduceMean', [x], shape, axes=axes, keepdims=keepdims)

    def motif_fold(self, cur):
        """Constant subgraphs for fold-constants, and shape computations for fold-shapes and
        fuse-concat-into-reshape: arithmetic, Concat, Slice and Cast of weights, and Reshape of
        cur to a shape read from Shape/Size/Gather/Unsqueeze/Concat chains."""
        self.motifs.append('fold')
        for form in self.forms(['arith', 'concat', 'slice', 'cast', 'twins'] + ['shape'] * 4 + ['size'] * 2 +
                               ['shape_after_fold'] * 4, 2):
            cur = self.then(cur, self.fold_form(cur, form))
        return cur

    def fold_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'arith':
            ops = ['Add', 'Sub', 'Mul'] + (['Div'] if self.is_float else [])
            # Max and Min broadcast from opset 8 (floats), have integer and float16 kernels from 12.
            if self.opset >= 12 or (self.opset >= 8 and self.elem_name in ('float', 'double')):
                ops += ['Max', 'Min']
            c = self.tensor([k]) if self.chance(0.1) else self.constant([k])  # a graph input: no fold
            for _ in range(self.rng.randint(1, 3)):
                op = self.pick(ops)
                shape = self.pick([[k], [1], []])
                d = self.full(shape, 0.5) if op == 'Div' else self.constant(shape)
                c = self.op(op, [c, d], [k])
            return self.op(self.pick(['Add', 'Mul']), [cur, c], [m, k])
        if form == 'concat':
            if k < 2:
                return cur
            cut = self.rng.randint(1, k - 1)
            c = self.op('Concat', [self.constant([cut]), self.constant([k - cut])], [k], axis=0)
            return self.op('Add', [c, cur], [m, k])
        if form == 'slice':
            c = self.slice(self.constant([k + 2]), [1], [k + 1], [0], [1] if self.chance(0.5) else None, [k])
            return self.op('Sub', [cur, c], [m, k])
        if form == 'cast':
            source = self.constant([k], np.array([self.rng.randint(-3, 3) for _ in range(k)], dtype=np.int64),
                                   TensorProto.INT64)
            c = self.op('Cast', [source], [k], to=self.elem)
            return self.op('Mul', [cur, c], [m, k])
        if form == 'twins':
            # One weight read by two Casts that differ only in `to`: each folds to its own tensor
            # (fold-constants folds a node with its twins, which must agree in every attribute).
            w = self.constant([k])
            if self.is_float:
                targets = [TensorProto.INT32,
                           TensorProto.FLOAT if self.elem == TensorProto.DOUBLE else TensorProto.DOUBLE]
            else:
                targets = [TensorProto.FLOAT, TensorProto.INT64 if self.elem == TensorProto.INT32 else TensorProto.INT32]
            # Not hoisted out of a body: ORT 1.30 loses an outer Cast's output that a body's Add
            # reads next to a Cast of its own ("Missing Input").
            back = [self.op('Cast', [self.op('Cast', [w], [k], elem=t, hoist=False, to=t)], [k],
                            hoist=False, to=self.elem)
                    for t in targets]
            return self.op('Add', [cur, self.op('Add', back, [k], hoist=False)], [m, k])
        if form == 'size':
            if self.opset < 9 and not self.is_float:
                return cur
            # Of cur, or of a graph input of static dims (declared, where cur's may be unknown).
            size = self.op('Size', [cur if self.chance(0.4) else self.graph_input([self.rng.randint(1, 3), k])],
                           [], TensorProto.INT64)
            scale = self.op('Cast', [size], [], to=self.elem)  # N-dependent when m is N: no fold
            return self.op('Div' if self.is_float else 'Add', [cur, scale], [m, k])
        if form == 'shape_after_fold':
            # Reshape to [-1, k] of cur or of a graph input, half the time of static rows, k
            # computed by a Mod (which ONNX's inference does not propagate) of a dim of a graph
            # input, and then a Shape, Size, Gather or Slice of the result: fold-constants folds
            # the target, and so knows the result's dims (all of them, or k), and folds what reads
            # them (with fold-shapes' patterns) in the same run.
            if self.opset < 10:
                return cur
            rows = self.pick([self.rng.randint(1, 3), 'N'])
            x = cur if m == rows or (isinstance(m, str) and rows == 'N') else self.graph_input([rows, k])
            rows = self.shape[x][0]
            g = self.graph_input([1, k])
            big = self.ints([1000])
            dim = self.node('Mod', [self.dim_of(g, 1), big],
                            [1], elem=TensorProto.INT64)
            target = self.node('Concat', [self.ints([-1]), dim], [2], {'axis': 0}, elem=TensorProto.INT64)
            y = self.op('Reshape', [x, target], [rows, k])
            shape = self.node('Shape', [y], [2], elem=TensorProto.INT64)
            reads = [self.node('Gather', [shape, self.ints([1])], [1], {'axis': 0}, elem=TensorProto.INT64),
                     self.slice(shape, [1], [2], [0], None, [1]), self.node('Size', [y], [], elem=TensorProto.INT64)]
            scale = self.op('Cast', [reads[0]], [1], to=self.elem)
            for read in reads[1:]:
                scale = self.op('Add', [scale, self.op('Cast', [read], self.shape[read], to=self.elem)], [1])
            z = self.op('Div' if self.is_float else 'Add', [y, scale], [rows, k])
            if self.chance(0.6):  # the Shape read as it is
                z = self.op('Reshape', [z, shape], [rows, k])
            return self.continue_or_output(z, cur)
        # Reshape of cur or of a graph input (its rank is declared, a computed value's may be
        # unknown), often of rows N (which only its Shape knows: fuse-concat-into-reshape and
        # fold-shapes' Gather fold the rest), to [rows, k] or [k, rows] (not a transpose), the
        # target computed from its Shape.
        rows = m if self.chance(0.4) else 'N'
        x = cur if rows == m and self.chance(0.5) else self.graph_input([rows, k])
        target = [rows, k] if self.chance(0.6) else [k, rows]
        s = self.shape_value(target, x, read=0.7)
        if s is None:
            return cur
        y = self.op('Reshape', [x, s], target)
        if x != cur and target == [m, k]:
            return self.op('Add', [cur, y], [m, k])
        return self.continue_or_output(y, cur)

    def motif_identity(self, cur):
        """Identity chains (one made a graph output, whose name must stay), an unused weight, and
        Dropouts: inference ones (opsets 7-11; 12+ without training_mode or with a constant
        false), training ones of a ratio of 0 (training_mode true or a graph input: they drop
        nothing), their masks read."""
        m, k = self.shape[cur]
        self.motifs.append('identity')
        if self.chance(0.4):
            # A weight the model does not read (exports keep unused parameters): only
            # eliminate-dead-nodes removes it, since the rewriter drops the weights rewrites
            # leave unread and the rewrite driver the dead nodes it meets.
            self.constant([3], where='initializer')
        if self.chance(0.2):
            return self.shadowed_read(cur)
        if self.opset >= 11 and self.chance(0.3):
            return self.sequence_round_trip(cur)
        if self.chance(0.4):
            y = cur
            for _ in range(self.rng.randint(1, 3)):
                y = self.op('Identity', [y], [m, k], self.elem_of[cur])
                if self.chance(0.2):
                    self.mark_output(y)
            return y
        if not self.is_float:
            return cur
        if self.opset < 12:
            attrs = {'ratio': self.pick([0.5, 0.1])} if self.chance(0.5) else {}
            return self.op('Dropout', [cur], [m, k], **attrs)
        operands = [cur]
        training = self.pick(['absent', 'absent', 'false', 'true', 'input'])
        if training != 'absent' or self.chance(0.5):
            # A training Dropout is random unless its ratio is 0: then it is exact.
            ratio = 0.0 if training in ('true', 'input') else self.pick([0.5, 0.2])
            operands.append(self.full([], ratio))
        if training in ('false', 'true'):
            operands.append(self.full([], training == 'true', TensorProto.BOOL))
        elif training == 'input':
            operands.append(self.graph_input([], TensorProto.BOOL))
        if self.chance(0.4):
            y, mask = self.multi('Dropout', operands, [[m, k], [m, k]], [self.elem, TensorProto.BOOL])
            self.mark_output(mask)
            return y
        return self.op('Dropout', operands, [m, k])

    def sequence_round_trip(self, cur):
        """cur through a sequence or an optional and back: SequenceAt of a SequenceConstruct (a
        negative index at times; an Identity of the sequence from opset 14, where Identity takes
        one), ConcatFromSequence of a SplitToSequence (size-1 pieces or a split input) or of a
        sequence a Loop carries and inserts cur into, and OptionalGetElement of an Optional
        (from opset 15; an Identity of the optional from 16).
        Passes must see through none of them, nor break the values around them; the duplicate
        SequenceAt is one for eliminate-common-subexpressions."""
        m, k = self.shape[cur]
        elem = self.elem_of[cur]
        self.motifs.append('sequence')
        forms = (['construct-at', 'split-concat'] + (['loop-insert'] if self.opset >= 13 else []) +
                 (['optional'] if self.opset >= 15 else []))
        form = self.pick(forms)
        scope = self.scopes[-1]
        emit = lambda op, inputs, **attrs: scope.nodes.append(
            helper.make_node(op, inputs, [self.fresh(op.lower() + '_')], **attrs)) or scope.nodes[-1].output[0]
        self.read.add(cur)
        if form == 'construct-at':
            items = [cur] * self.rng.randint(1, 3)
            sequence = emit('SequenceConstruct', items)
            if self.opset >= 14 and self.chance(0.4):
                sequence = emit('Identity', [sequence])
            index = self.constant([], np.array(self.pick([0, -len(items)]), dtype=np.int64),
                                  TensorProto.INT64)
            self.read.add(index)
            y = emit('SequenceAt', [sequence, index])
            if self.chance(0.3):
                twin = self.define(emit('SequenceAt', [sequence, index]), [m, k], self.cur_depth(), elem)
                self.mark_output(twin)
        elif form == 'split-concat':
            inputs = [cur]
            if k > 1 and self.chance(0.5):
                inputs.append(self.constant([2], np.array([1, k - 1], dtype=np.int64), TensorProto.INT64))
                self.read.add(inputs[-1])
            sequence = emit('SplitToSequence', inputs, axis=1)
            y = emit('ConcatFromSequence', [sequence], axis=1)
        elif form == 'loop-insert':
            # A Loop carrying a sequence (Loop-13 on): each of its 2 trips inserts cur;
            # concatenated along axis 1, [m, 2k].
            trips = self.constant([], np.array(2, dtype=np.int64), TensorProto.INT64, where='initializer')
            keep_going = self.constant([], np.array(True), TensorProto.BOOL, where='initializer')
            self.read.update([trips, keep_going])
            iteration, cond_in, cond_out = self.fresh('i'), self.fresh('cond_in'), self.fresh('cond_out')
            carried_in, carried_out = self.fresh('seq_in'), self.fresh('seq_out')
            sequence_info = lambda v: helper.make_tensor_sequence_value_info(v, elem, [m, k])
            body = helper.make_graph(
                [helper.make_node('Identity', [cond_in], [cond_out]),
                 helper.make_node('SequenceInsert', [carried_in, cur], [carried_out])],
                self.fresh('body'),
                [helper.make_tensor_value_info(iteration, TensorProto.INT64, []),
                 helper.make_tensor_value_info(cond_in, TensorProto.BOOL, []), sequence_info(carried_in)],
                [helper.make_tensor_value_info(cond_out, TensorProto.BOOL, []), sequence_info(carried_out)])
            inserted = self.fresh('loop_seq')
            scope.nodes.append(helper.make_node('Loop', [trips, keep_going, emit('SequenceEmpty', [], dtype=elem)],
                                                [inserted], name=self.fresh('Loop'), body=body))
            y = emit('ConcatFromSequence', [inserted], axis=1)
            return self.define(y, [m, 2 * k], self.cur_depth(), elem)
        else:
            optional = emit('Optional', [cur])
            if self.opset >= 16 and self.chance(0.4):
                optional = emit('Identity', [optional])
            y = emit('OptionalGetElement', [optional])
        return self.define(y, [m, k], self.cur_depth(), elem)

    def shadowed_read(self, cur):
        """x = Identity(cur), read by a Loop body whose own iteration count is named `cur` (ONNX
        lets a body's inputs shadow outer names): once eliminate-identity makes the body read
        `cur`, the saved body reads its counter by that name unless the shadow is renamed. The
        body adds x to itself; both trips' sums are scanned."""
        m, k = self.shape[cur]
        elem = self.elem_of[cur]
        self.motifs.append('shadowed_names')
        x = self.op('Identity', [cur], [m, k], elem, hoist=False)
        cond_in, cond_out = self.fresh('cond_in'), self.fresh('cond_out')
        carried_in, carried_out = self.fresh('carried_in'), self.fresh('carried_out')
        total = self.fresh('shadowed_sum')
        info = lambda v, shape, e=elem: helper.make_tensor_value_info(v, e, shape)
        body = helper.make_graph(
            [helper.make_node('Identity', [cond_in], [cond_out]),
             helper.make_node('Identity', [carried_in], [carried_out]),
             helper.make_node('Add', [x, x], [total])],
            self.fresh('body'),
            [info(cur, [], TensorProto.INT64), info(cond_in, [], TensorProto.BOOL), info(carried_in, [m, k])],
            [info(cond_out, [], TensorProto.BOOL), info(carried_out, [m, k]), info(total, [m, k])])
        trips = self.constant([], np.array(2, dtype=np.int64), TensorProto.INT64, where='initializer')
        keep_going = self.constant([], np.array(True), TensorProto.BOOL, where='initializer')
        final, scan = self.fresh('loop_final'), self.fresh('loop_scan')
        self.scopes[-1].nodes.append(helper.make_node(
            'Loop', [trips, keep_going, cur], [final, scan], name=self.fresh('Loop'), body=body))
        self.read.update([trips, keep_going, cur, x])
        self.define(final, [m, k], self.cur_depth(), elem)
        self.define(scan, [2, m, k], self.cur_depth(), elem)
        self.mark_output(scan)
        return final

    def motif_cast(self, cur):
        """One or both of: Cast to the type cur has (and CastLike, 15+); Cast -> Cast through a
        type that loses nothing (fuses) or one that does (float16, int32 for floats; int32 for
        int64: must stay); a double QDQ pair (qdq_form). In the main graph only, and the result is a graph output, never read
        by a body: ONNX Runtime 1.30 loses the output of a Cast of a Cast that a body reads
        directly ("Missing Input"), which passes removing what stood between
        (eliminate-identity), or inlining a body around it (eliminate-if-constant-condition),
        would expose."""
        if self.cur_depth() > 0:
            return cur
        self.motifs.append('cast')
        for form in self.forms(['same-type', 'chain', 'qdq', 'qdq'], self.pick([1, 2, 2])):
            cur = self.qdq_form(cur) if form == 'qdq' else self.cast_form(cur, form)
        return cur

    def qdq_form(self, cur):
        """Q -> DQ -> Q -> DQ of a float graph input, the second pair's parameters the first's
        or copies of them (eliminate-dequantize-quantize drops the middle pair), uint8 or int8,
        per tensor or (opset 13 on) per axis, the zero points left out now and then; the middle
        DequantizeLinear read elsewhere at times. Near misses, a quarter of the time: another
        scale or zero point, a zero point on one side only. The results are exact: the input is
        a graph input, whose values no pass changes."""
        if self.elem_name != 'float' or self.opset < 10:
            return cur
        m, k = self.shape[cur]
        x = cur if cur in self.input_names() else self.graph_input([m, k])
        q_elem, q_type = self.pick([(TensorProto.UINT8, np.uint8), (TensorProto.INT8, np.int8)])
        per_axis = self.opset >= 13 and isinstance(k, int) and self.chance(0.3)
        dims = [k] if per_axis else []
        axis = {'axis': self.pick([1, -1])} if per_axis else {}

        def params(scales=None, zero=None):
            scale = np.array(scales if scales is not None else
                             [self.pick([0.05, 0.0125, 0.5, 3.0]) for _ in range(k if per_axis else 1)],
                             dtype=np.float32).reshape(dims)
            zp = np.array(zero if zero is not None else
                          [self.rng.randint(-10, 10) + (128 if q_type == np.uint8 else 0)
                           for _ in range(k if per_axis else 1)], dtype=q_type).reshape(dims)
            return scale, zp

        scale, zp = params()
        with_zp = q_elem == TensorProto.INT8 or self.chance(0.8)
        first = [self.constant(dims, scale, TensorProto.FLOAT)] + \
            ([self.constant(dims, zp, q_elem)] if with_zp else [])
        near = self.pick(['scale', 'zero', 'one-side']) if self.chance(0.2) else None
        if near == 'scale':
            second = [self.constant(dims, np.asarray(scale * 2).astype(np.float32), TensorProto.FLOAT)] + first[1:]
        elif near == 'zero' and with_zp:
            second = first[:1] + [self.constant(dims, np.asarray(zp.astype(np.int32) + 1).astype(q_type), q_elem)]
        elif near == 'one-side' and q_elem == TensorProto.UINT8:
            second = first[:1] if with_zp else first + [self.constant(dims, np.zeros(dims, q_type), q_elem)]
        elif self.chance(0.5):
            second = first
        else:
            second = [self.constant(dims, scale, TensorProto.FLOAT)] + \
                ([self.constant(dims, zp, q_elem)] if with_zp else [])
        a = self.op('QuantizeLinear', [x] + first, [m, k], q_elem, hoist=False, **axis)
        b = self.op('DequantizeLinear', [a] + first, [m, k], TensorProto.FLOAT, hoist=False, **axis)
        if self.chance(0.2):
            self.mark_output(self.op('Relu', [b], [m, k], TensorProto.FLOAT, hoist=False))
        c = self.op('QuantizeLinear', [b] + second, [m, k], q_elem, hoist=False, **axis)
        return self.op('DequantizeLinear', [c] + second, [m, k], TensorProto.FLOAT, hoist=False, **axis)

    def cast_form(self, cur, form):
        m, k = self.shape[cur]
        cast = lambda x, to: self.op('Cast', [x], [m, k], to, hoist=False, to=to)
        if form == 'same-type':
            # Of a computed value mostly: a Cast of a graph input that only graph outputs read
            # stays (the output cannot take the input's place).
            x = cur if cur not in self.input_names() or self.chance(0.3) else \
                self.op(self.unary(), [cur], [m, k], hoist=False)
            # CastLike is a function ORT expands into a Cast: not for float16, where ORT's own
            # Casts around float16 arithmetic clash with it.
            if self.opset >= 15 and self.elem_name != 'float16' and self.chance(0.4):
                y = self.op('CastLike', [x, self.full([1], 0)], [m, k], hoist=False)
            else:
                y = cast(x, self.elem)
            return self.cast_result(y, cur)
        mids = {
            'float': [TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT32, TensorProto.INT64],
            'double': [TensorProto.FLOAT, TensorProto.INT64],
            'float16': [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32],
            'int32': [TensorProto.INT64, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.FLOAT],
            'int64': [TensorProto.INT32, TensorProto.DOUBLE, TensorProto.FLOAT],
        }[self.elem_name]
        wider = {'float': [TensorProto.DOUBLE], 'float16': [TensorProto.FLOAT, TensorProto.DOUBLE],
                 'int32': [TensorProto.INT64, TensorProto.DOUBLE]}
        # Half the time through a wider type, where there is one (fuse-consecutive-casts).
        mid_elem = self.pick(wider[self.elem_name] if self.elem_name in wider and self.chance(0.5) else mids)
        # Through a lossy type, a graph input's values: a computed cur whose last bits a
        # folding pass may change (legitimately) would round differently.
        lossless = mid_elem in wider.get(self.elem_name, [])
        mid = cast(cur if lossless or cur in self.input_names() else self.graph_input([m, k]), mid_elem)
        # The intermediate as an output too, unless it is wider than the graph's type: a
        # folding pass may change the last bits of a float result (fuse-bn-into-gemm), which a
        # double output would compare at double tolerance; and ORT may drop the float16
        # rounding of its float16 arithmetic (which it computes in float) before a Cast to float.
        if self.chance(0.15) and not lossless:
            self.mark_output(mid)
        return self.cast_result(cast(mid, self.elem), cur)

    def input_names(self):
        return {i.name for i in self.inputs}

    def cast_result(self, y, cur):
        """y made a graph output; cur goes on."""
        self.mark_output(y)
        return cur

    def motif_transpose(self, cur):
        """Two of: the identity perm; two Transposes that compose (to the identity or not, 2-D
        and 3-D, the inner one read elsewhere now and then); and, more often, a Transpose, a chain
        of elementwise nodes and a Transpose, 2-D and 3-D (transpose_across), Transposes of
        one perm feeding a broadcasting node (transpose_merge), or a Transpose read by a Gather or
        Squeeze that removes axes (transpose_axis_removal)."""
        self.motifs.append('transpose')
        for form in self.forms(['identity', 'pair', 'pair-3d'] + ['across-2d'] * 2 + ['across-3d'] * 3
                               + ['merge'] * 3 + ['axis-removal'] * 3, 2):
            cur = self.then(cur, self.transpose_form(cur, form))
        return cur

    def transpose_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'across-2d':
            return self.transpose_across(cur, 2)
        if form == 'across-3d':
            return self.transpose_across(cur, 3)
        if form == 'merge':
            return self.transpose_merge(cur)
        if form == 'axis-removal':
            return self.transpose_axis_removal(cur)
        if form == 'identity':
            return self.op('Transpose', [cur], [m, k], self.elem_of[cur], perm=[0, 1])
        if form == 'pair':
            inner = self.transpose2d(cur)
            return self.op('Transpose', [inner], [m, k], self.elem_of[cur], **({'perm': [1, 0]} if self.chance(0.7) else {}))
        x = self.unsqueeze(cur, [self.rng.randint(0, 2)]) if self.chance(0.5) else self.tensor([2, m, k])
        y = x
        for _ in range(2):
            perm = self.rng.sample(range(3), 3)
            y = self.op('Transpose', [y], [self.shape[y][p] for p in perm], self.elem_of[x], perm=perm)
            self.maybe_share(y, 0.1)
        self.mark_output(y)
        return cur

    def transpose(self, x, perm):
        """Transpose of x by perm; a reversing perm left out now and then (it is the default)."""
        attrs = {} if perm == list(range(len(perm)))[::-1] and self.chance(0.3) else {'perm': perm}
        return self.op('Transpose', [x], [self.shape[x][p] for p in perm], self.elem_of[x], **attrs)

    def transpose_axis_removal(self, cur):
        """3-D Transposes read by a Gather of a scalar index (negative ones and a negative axis
        at times from opset 11) and by a Squeeze of the axis of 1 they moved:
        eliminate-transpose-before-axis-removal reads the source when the kept axes stay in its
        order. They do mostly; a third of the time they are shuffled. Near misses, a fifth of the
        time each: indices of shape [1]; the Transpose read elsewhere too (it then stays, the
        Gather or Squeeze still reads the source). Half the time, the dims of a Transpose read
        off its Shape by a Gather of constant indices."""
        m, k = self.shape[cur]
        for squeeze in (False, True):
            if squeeze:
                one = self.rng.randrange(3)
                x = self.unsqueeze(cur, [one]) if self.chance(0.5) else \
                    self.graph_input([1 if i == one else d for i, d in enumerate([2, m, k])])
                one = self.shape[x].index(1)
            else:
                x = self.unsqueeze(cur, [self.rng.randint(0, 2)]) if self.chance(0.3) else self.tensor([2, m, k])
            # The removed axis of T, and X's axis that goes there.
            axis = self.rng.randrange(3)
            source_axis = one if squeeze else self.rng.randrange(3)
            kept = [a for a in range(3) if a != source_axis]
            if self.chance(0.3):
                self.rng.shuffle(kept)
            perm = kept[:axis] + [source_axis] + kept[axis:]
            t = self.transpose(x, perm)
            near = self.pick(['rank-1', 'shared']) if self.chance(0.2) else None
            if near == 'shared':
                self.mark_output(self.op('Neg', [t], self.shape[t], self.elem_of[t]))
            if squeeze:
                y = self.squeeze(t, [axis - 3 if self.opset >= 11 and self.chance(0.5) else axis])
            else:
                size = self.shape[t][axis]
                index = self.rng.randrange(size) if isinstance(size, int) else 0
                if self.opset >= 11 and isinstance(size, int) and self.chance(0.3):
                    index -= size
                index_shape = [1] if near == 'rank-1' else []
                indices = self.constant(index_shape, np.full(index_shape, index, dtype=np.int64), TensorProto.INT64)
                out = self.shape[t][:axis] + index_shape + self.shape[t][axis + 1:]
                attrs = {'axis': axis - 3 if self.opset >= 11 and self.chance(0.3) else axis}
                y = self.op('Gather', [t, indices], out, self.elem_of[t], **attrs)
            self.mark_output(y)
        if self.chance(0.6):  # dims of a Transpose read off its Shape (shape-of-transpose)
            perm = [0, 1, 2]
            self.rng.shuffle(perm)
            # A symbolic B first, so that fold-shapes leaves some of the dims to the pass.
            t = self.transpose(self.graph_input(['B', m, k]) if self.chance(0.7) else self.tensor([2, m, k]), perm)
            dims = self.op('Shape', [t], [3], TensorProto.INT64)
            index_shape = self.pick([[], [2]])
            low = -3 if self.opset >= 11 else 0
            values = np.array([perm.index(0) if self.chance(0.6) else self.rng.randrange(low, 3)
                               for _ in range(int(np.prod(index_shape)))])
            indices = self.constant(index_shape, values.reshape(index_shape).astype(np.int64), TensorProto.INT64)
            self.mark_output(self.op('Gather', [dims, indices], index_shape, TensorProto.INT64))
        return cur

    def transpose_across(self, cur, rank):
        """Transpose(X, p1) -> 1 to 3 elementwise nodes -> Transpose(p2): what
        fuse-transposes-across-elementwise rewrites into the chain computed on X, read through
        one Transpose of the composition (none when p2 undoes p1, as it does most of the time; a
        2-D p2 that does not is the identity, which eliminate-nop-transpose removes first). The nodes:
        unary ones of the value's type (through Casts to other types and back, comparisons to
        bool and back by Not, Cast or Where), binary ones whose other operand is a scalar, of
        1s only (a graph input too), or a constant that broadcasts (transposed by the pass), on
        the left at times, or the chain's value itself (Mul(v, v)). Near misses, a third of the
        time: a chain value read elsewhere or made an output, an operand of the chain's shape
        that is no constant (a graph input, or one transposed by p1 too), one of a higher rank,
        a node that is not elementwise (ReduceMean, Reshape; Softmax or LogSoftmax, which the
        chain takes along from opset 13) in the chain; and, rarely, the first Transpose read
        elsewhere (a near miss unless p2 undoes p1)."""
        m, k = self.shape[cur]
        if rank == 2:
            x = cur if self.chance(0.6) else self.graph_input([m, k])
        elif self.chance(0.35):
            x = self.unsqueeze(cur, [self.rng.randint(0, 2)])
        else:
            x = self.graph_input(self.pick([[2, m, k], [m, 3, k], [m, k, 2]]))
        perm1 = [1, 0]
        if rank == 3:
            perm1 = self.rng.sample(range(3), 3)
            if perm1 == [0, 1, 2]:  # which eliminate-nop-transpose removes first: now and then
                perm1 = self.rng.sample(range(3), 3)
        t = self.transpose(x, perm1)
        self.maybe_share(t, 0.04)
        # What the chain's value is: the range of its elements (for Sqrt, Log, a division by it,
        # Exp), whether they are bounded (of a graph input, through Tanh, Sigmoid, ...), and the
        # narrowest float type it was rounded in where the rewritten graph may round it otherwise
        # (None: exact, the same bits in both). That is the graph's type for a computed X (an
        # earlier rewrite may change its last bits) and for float16 (which ONNX Runtime computes
        # in float, rounding or not between nodes), and the type of a node whose kernel may round
        # by the element's place (ORT's Softplus, Elu and Log differ by an ulp between their SIMD
        # lanes and their tail; the rewrite moves the elements). A Floor, a Sign or a comparison
        # of an inexact value, or a Cast of it to an integer, would tell apart legitimately
        # different values; an output of a float type wider than its rounding would be compared
        # at that type's tolerance.
        exact = x in self.input_names() and self.elem_name != 'float16' or self.elem_name in INT_TYPES
        state = {'sign': 'any', 'bounded': x in self.input_names(), 'rounded': None if exact else self.elem}
        near = self.pick(['shared', 'output', 'input-side', 'transposed-side', 'rank', 'between']) \
            if self.chance(0.3) else None
        steps = self.rng.randint(1, 3)
        at = self.rng.randrange(steps)
        v = t
        for i in range(steps):
            here = near if i == at else None
            if here == 'between':
                v = self.not_elementwise(v)
                self.rounds_in(self.elem_of[v], state)
            else:
                v = self.elementwise(v, state, here, (x, perm1))
            if here in ('shared', 'output') or self.chance(0.04):
                if self.too_wide(self.elem_of[v], state):  # an output read through a Cast
                    self.mark_output(self.op('Cast', [v], self.shape[v], state['rounded'], to=state['rounded']))
                elif here == 'shared' or (here is None and self.chance(0.5)):
                    self.mark_output(self.op(self.unary(self.elem_of[v]), [v], self.shape[v], self.elem_of[v]))
                else:
                    self.mark_output(v)
        # Back to the graph's type, or to the one the value was rounded in if narrower.
        back = state['rounded'] if self.too_wide(self.elem, state) else self.elem
        if self.too_wide(self.elem_of[v], state) or (self.elem_of[v] != back and self.chance(0.6)):
            v = self.op('Cast', [v], self.shape[v], back, to=back)
        inverse = [perm1.index(i) for i in range(rank)]  # p2: output axis i is axis i of X
        if len(self.shape[v]) > rank:  # grown by an operand of a higher rank
            perm2 = [0] + [p + 1 for p in inverse] if self.chance(0.5) else self.rng.sample(range(rank + 1), rank + 1)
        elif self.chance(0.6 if rank == 3 else 0.75):
            perm2 = inverse
        else:
            perm2 = self.rng.sample(range(rank), rank)
        y = self.transpose(v, perm2)
        if self.shape[y] == [m, k] and self.elem_of[y] == self.elem and self.chance(0.8):
            self.maybe_share(y, 0.1)
            return y
        self.mark_output(y)
        return cur

    def transpose_merge(self, cur):
        """Transposes of one perm feeding a broadcasting node, whose result merge-operand-transposes
        reads through one Transpose after the node; now and then a Neg and the Transpose back
        follow (a residual block in NHWC, which then loses every Transpose). 2-D and 3-D, two
        operands or Where's three; the results are exact (no rounding a rewrite could move).
        A Concat instead now and then (its axis, negative at times from opset 11, moves with the
        perm). Near misses, a third of the time: two perms that differ (over sources of equal
        dims), a Transpose read elsewhere, an operand that is no Transpose."""
        m, k = self.shape[cur]
        rank = self.pick([2, 3])
        near = self.pick(['perms', 'shared', 'plain']) if self.chance(0.3) else None
        if rank == 2 and near == 'perms':  # a 2-D Transpose has one perm that moves axes
            near = 'plain'
        if rank == 2:
            shape, perm = [m, k], [1, 0]
        elif near == 'perms':
            shape, perm = [2, 2, 2], self.rng.sample(range(3), 3)
        else:
            shape, perm = self.pick([[2, m, k], [m, 3, k]]), self.rng.sample(range(3), 3)
        out = [shape[p] for p in perm]
        ops = ['Add', 'Sub', 'Mul']
        if self.opset >= 12 or self.elem_name not in INT_TYPES:
            ops += ['Max', 'Min']
        if self.opset >= 9:
            ops.append('Where')
        if self.opset < 8:
            ops = ['Add', 'Sub', 'Mul']
        op = 'Concat' if self.chance(0.3) else self.pick(ops)
        sources = [cur if rank == 2 and self.chance(0.5) else self.graph_input(shape)]
        sources += [self.graph_input(shape) for _ in range(2 if op == 'Where' else 1)]
        if op == 'Where':
            sources[0] = self.graph_input(shape, TensorProto.BOOL)
        operands = [self.transpose(x, perm) for x in sources]
        if near == 'perms':
            other = self.rng.sample(range(3), 3)
            operands[-1] = self.transpose(sources[-1], other if other != perm else perm[::-1])
        elif near == 'shared':
            self.mark_output(self.op('Neg', [operands[-1]], out, self.elem_of[operands[-1]]))
        elif near == 'plain':
            operands[-1] = self.graph_input(out)
        if op == 'Concat':
            axis = self.rng.randrange(rank)
            out = list(out)
            out[axis] *= len(operands)
            if self.opset >= 11 and self.chance(0.5):
                axis -= rank
            y = self.op(op, operands, out, self.elem, axis=axis)
        else:
            y = self.op(op, operands, out, self.elem)
        if self.chance(0.5):
            self.maybe_share(y, 0.05)
            y = self.transpose(self.op('Neg', [y], out, self.elem), [perm.index(i) for i in range(rank)])
        if self.shape[y] == [m, k]:
            return y
        self.mark_output(y)
        return cur

    @staticmethod
    def too_wide(elem, state):
        """Whether a value of `elem` of a chain (transpose_across) is of a float type wider than
        the one it was rounded in (state['rounded']): compared at elem's tolerance, it would
        fail on a legitimate difference."""
        rounded = state['rounded']
        return rounded is not None and elem in FLOAT_WIDTH and FLOAT_WIDTH[elem] > FLOAT_WIDTH[rounded]

    @staticmethod
    def rounds_in(elem, state):
        """Notes that a chain value of `elem` may be rounded otherwise once rewritten."""
        rounded = state['rounded']
        if elem in FLOAT_WIDTH and (rounded is None or FLOAT_WIDTH[elem] < FLOAT_WIDTH[rounded]):
            state['rounded'] = elem

    def side(self, shape, elem, kind):
        """An operand of `elem` for an elementwise node over the chain's value of `shape`: a
        scalar, of 1s only (now and then a graph input), a constant that broadcasts into shape
        (its dims 1 or the chain's, its rank shorter at times), or one of `shape` itself."""
        if kind == 'scalar':
            return self.constant([], self.side_data([], elem), elem)
        if kind == 'ones':
            dims = [1] * self.rng.randint(1, len(shape))
            if self.chance(0.3):
                return self.graph_input(dims, elem)
            return self.constant(dims, self.side_data(dims, elem), elem)
        if kind == 'full' and all(isinstance(d, int) for d in shape):
            dims = list(shape)
        else:
            dims = [d if isinstance(d, int) and self.chance(0.6) else 1 for d in shape]
            dims = dims[self.rng.randint(0, len(dims) - 1):]
        return self.constant(dims, self.side_data(dims, elem), elem, where='initializer' if self.chance(0.7) else 'any')

    def side_data(self, dims, elem):
        if elem == TensorProto.BOOL:
            return np.array([self.chance(0.5) for _ in range(int(np.prod(dims)))], dtype=np.bool_).reshape(dims)
        return self.random_data(dims, elem)

    def elementwise(self, v, state, near, source):
        """One elementwise node of a chain over v (transpose_across), valid for v's type at the
        graph's opset (and with a kernel in ONNX Runtime); `near` puts a near miss in its other
        operand: of v's shape but no constant ('input-side': a graph input, 'transposed-side':
        one transposed as the chain's source is), or of a higher rank ('rank')."""
        shape, elem = self.shape[v], self.elem_of[v]
        o = self.opset
        floats = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)
        ints = (TensorProto.INT32, TensorProto.INT64)
        side_kind = lambda: self.pick(['scalar', 'ones', 'ones', 'broadcast', 'broadcast', 'full'])

        def other(e=elem):
            if near == 'input-side':
                return self.graph_input(shape, e)
            if near == 'transposed-side':
                x, perm = source
                return self.transpose(self.graph_input(self.shape[x], e), perm)
            if near == 'rank':
                dims = self.pick([[1] * (len(shape) + 1), [2] + [1] * len(shape)])
                return self.constant(dims, self.side_data(dims, e), e)
            return self.side(shape, e, side_kind())

        def binary(op, a, b, out_elem=None, **attrs):
            out = broadcast(self.shape[a], self.shape[b])
            return self.op(op, [a, b], out, out_elem or elem, **attrs)

        binary_near = near in ('input-side', 'transposed-side', 'rank')
        if elem == TensorProto.BOOL:
            if self.elem == TensorProto.FLOAT16:
                self.rounds_in(self.elem, state)  # what the bool becomes (Cast, Where) is float16
            choice = self.pick(['Not', 'AndOr', 'Cast'] + (['Where'] * 2 if o >= 9 else []))
            if binary_near and choice in ('Not', 'Cast'):
                choice = 'AndOr'
            if choice == 'Not':
                return self.op('Not', [v], shape, elem)
            if choice == 'AndOr':
                c = other()
                if self.chance(0.7):
                    return binary(self.pick(['And', 'Or']), v, c)
                return binary(self.pick(['And', 'Or']), c, v)
            if choice == 'Cast':
                state.update(sign='nonneg', bounded=True)
                return self.op('Cast', [v], shape, self.elem, to=self.elem)
            # Where(v, a, b): the chain goes through the condition.
            a, b = other(self.elem), self.side(shape, self.elem, side_kind())
            state.update(sign='any', bounded=True)
            out = broadcast(broadcast(shape, self.shape[a]), self.shape[b])
            return self.op('Where', [v, a, b] if self.chance(0.5) else [v, b, a], out, self.elem)

        is_float = elem in floats
        unary = ['Abs', 'Neg']
        if is_float:
            unary += ['Relu', 'Sigmoid', 'Tanh'] + (['Exp'] if state['bounded'] else []) + \
                (['Sqrt'] if state['sign'] != 'any' else []) + \
                (['Log'] if state['sign'] == 'pos' and state['bounded'] else [])
            if elem in (TensorProto.FLOAT, TensorProto.FLOAT16):
                unary += ['LeakyRelu']
            if elem == TensorProto.FLOAT:
                unary += ['Elu', 'Softplus', 'HardSigmoid', 'Clip'] + (['Erf'] if o >= 9 else [])
            if elem == TensorProto.DOUBLE and o >= 12:
                unary += ['Clip']
            if o >= 9 and elem != TensorProto.FLOAT16:
                unary += ['IsNaN']
            if state['rounded'] is None:
                unary += ['Floor', 'Ceil'] + (['Sign'] if o >= 9 else []) + (['Round'] if o >= 11 else [])
        else:
            unary += (['Relu'] if elem == TensorProto.INT32 and o >= 14 else []) + (['Sign'] if o >= 9 else []) + \
                (['Clip'] if o >= 12 else [])
        binary_ops = ['Add', 'Sub', 'Mul', 'Mul', 'Square', 'Div'] + (['Pow'] if is_float or o >= 12 else [])
        if (o >= 8 and elem in (TensorProto.FLOAT, TensorProto.DOUBLE)) or o >= 12:
            binary_ops += ['Max', 'Min']
        if elem in (TensorProto.FLOAT, TensorProto.FLOAT16):
            binary_ops += ['PRelu']
        if o >= 9:
            binary_ops += ['Where']
        if state['rounded'] is None:
            if elem in ints and o >= 9 or elem in (TensorProto.FLOAT, TensorProto.DOUBLE):
                binary_ops += ['Greater', 'Less']
            if elem in ints or (o >= 11 and elem in (TensorProto.FLOAT, TensorProto.DOUBLE)):
                binary_ops += ['Equal']
        exact = state['rounded'] is None
        casts = {TensorProto.FLOAT: [TensorProto.DOUBLE, TensorProto.FLOAT16] + ([TensorProto.INT32] if exact else []),
                 TensorProto.DOUBLE: [TensorProto.FLOAT] + ([TensorProto.INT64] if exact else []),
                 TensorProto.FLOAT16: [TensorProto.FLOAT],
                 TensorProto.INT32: [TensorProto.INT64, TensorProto.FLOAT, TensorProto.DOUBLE],
                 TensorProto.INT64: [TensorProto.INT32, TensorProto.DOUBLE, TensorProto.FLOAT]}[elem]

        kind = 'binary' if binary_near else self.pick(['unary'] * 4 + ['binary'] * 5 + ['cast'])
        if kind == 'cast':
            to = self.pick(casts)
            if to not in floats:
                state.update(sign='any', bounded=False)
            if to == TensorProto.FLOAT16:
                state['rounded'] = TensorProto.FLOAT16  # computed in float by ONNX Runtime, rounded or not
            return self.op('Cast', [v], shape, to, to=to)
        if kind == 'unary':
            op = self.pick(unary)
            if op == 'Clip':
                lo, hi = self.pick([(-0.5, 0.5), (0.0, 6.0), (-1.0, 1.0)] if is_float else [(0, 1), (-1, 1)])
                if o < 11:
                    state.update(sign='nonneg' if lo >= 0 else 'any', bounded=True)
                    return self.op('Clip', [v], shape, elem, min=float(lo), max=float(hi))
                bounds = [self.constant([], np.array(b, dtype=self.np_type(elem)), elem) for b in (lo, hi)]
                if self.chance(0.2):
                    bounds[self.rng.randint(0, 1)] = ''  # an optional bound left out
                state.update(sign='nonneg' if bounds[0] and lo >= 0 else 'any',
                             bounded=bool(bounds[0] and bounds[1]) or state['bounded'])
                return self.op('Clip', [v] + bounds, shape, elem)
            if op == 'IsNaN':
                state['rounded'] = None  # no value is NaN in one and not in the other
                return self.op('IsNaN', [v], shape, TensorProto.BOOL)
            attrs = {}
            if op == 'LeakyRelu' and self.chance(0.5):
                attrs['alpha'] = self.pick([0.1, 0.25])
            if op == 'Elu' and self.chance(0.5):
                attrs['alpha'] = 0.5
            bounded = state['bounded']
            state['sign'] = {'Relu': 'nonneg', 'Abs': 'nonneg', 'Sqrt': 'nonneg', 'Softplus': 'nonneg',
                             'HardSigmoid': 'nonneg', 'Sigmoid': 'pos' if bounded else 'nonneg',
                             'Exp': 'pos'}.get(op, 'any')
            if op in ('Tanh', 'Sigmoid', 'Erf', 'HardSigmoid', 'Sign'):
                state['bounded'] = True
            elif op in ('Exp', 'Log'):
                state['bounded'] = False
            if op in ('Sigmoid', 'Tanh', 'Exp', 'Log', 'Sqrt', 'Erf', 'Elu', 'Softplus', 'HardSigmoid'):
                self.rounds_in(elem, state)  # a kernel that may round by the element's place
            return self.op(op, [v], shape, elem, **attrs)

        # With a near miss in the other operand: no division by it (an integer one by 0 fails).
        op = self.pick([b for b in binary_ops if b in ('Add', 'Sub', 'Mul', 'Max', 'Min', 'Where', 'Greater', 'Less',
                                                        'Equal')] if binary_near else binary_ops)
        if op == 'Square':  # the chain's value on both sides
            state['sign'] = 'nonneg'
            return self.op('Mul', [v, v], shape, elem)
        if op == 'Div':
            if is_float and state['sign'] == 'pos' and not binary_near and self.chance(0.5):
                state.update(sign='any', bounded=False)
                return binary('Div', self.side(shape, elem, side_kind()), v)  # c / v, v away from 0
            divisor = self.pick([2.0, 4.0, -2.0, 0.5] if is_float else [2, -2, 3])
            c = self.full(self.pick([[], [1], [1] * len(shape)]), divisor, elem)
            return binary('Div', v, c)
        if op == 'Pow':
            self.rounds_in(elem, state)
            if state['sign'] != 'any' and is_float and self.chance(0.4):
                return binary('Pow', v, self.full(self.pick([[], [1]]), 0.5, elem))
            state['sign'] = 'nonneg'
            return binary('Pow', v, self.full(self.pick([[], [1]]), 2, elem))
        if op == 'PRelu':  # its slope broadcasts into v: unidirectionally
            state['sign'] = 'any'
            return binary('PRelu', v, self.side(shape, elem, self.pick(['ones', 'broadcast', 'full'])))
        if op == 'Where':
            cond = self.side(shape, TensorProto.BOOL, side_kind())
            c = other()
            state['sign'] = 'any'
            operands = [cond, v, c] if self.chance(0.5) else [cond, c, v]
            out = broadcast(broadcast(shape, self.shape[c]), self.shape[cond])
            return self.op('Where', operands, out, elem)
        if op in ('Greater', 'Less', 'Equal'):
            c = other()
            return binary(op, v, c, TensorProto.BOOL) if self.chance(0.7) else binary(op, c, v, TensorProto.BOOL)
        state['sign'] = 'any'
        if op in ('Max', 'Min') and self.chance(0.25) and not binary_near:  # variadic
            a, b = other(), other()
            out = broadcast(broadcast(shape, self.shape[a]), self.shape[b])
            return self.op(op, [v, a, b] if self.chance(0.6) else [a, v, b], out, elem)
        c = other()
        return binary(op, v, c) if self.chance(0.75) else binary(op, c, v)

    def not_elementwise(self, v):
        """A node that is not elementwise in a chain: Softmax or LogSoftmax on an axis (which the
        chain takes along, its axis moved, from opset 13; a near miss before), ReduceMean keeping
        the axis (floats), or a Reshape to the same shape (near misses)."""
        shape, elem = self.shape[v], self.elem_of[v]
        if elem in (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16) and self.chance(0.7):
            axis = self.rng.randrange(len(shape))
            if self.chance(0.5):
                negative = self.opset >= 11 and self.chance(0.5)  # a negative axis from Softmax-11
                return self.op(self.pick(['Softmax', 'LogSoftmax']), [v], shape, elem,
                               axis=axis - len(shape) if negative else axis)
            return self.op('ReduceMean', [v], [1 if i == axis else d for i, d in enumerate(shape)], elem,
                           axes=[axis], keepdims=1)
        return self.op('Reshape', [v, self.ints([0 if isinstance(d, str) else d for d in shape])], shape, elem)

    def motif_reshape(self, cur):
        """Two of: Reshapes that change nothing (0, -1, Shape(x), allowzero), Reshape of a
        Reshape, Flatten, Unsqueeze or Squeeze (fuses unless the outer target has a 0 that copies
        the intermediate's dim), and Flattens (a no-op on 2-D with axis 1, folding a dim of 1;
        axis 0 is no no-op; a Flatten of 3-D is none either)."""
        self.motifs.append('reshape')
        for form in self.forms(['nop', 'chain', 'chain', 'flatten', 'flatten'], 2):
            cur = self.then(cur, self.reshape_form(cur, form))
        return cur

    def reshape_form(self, cur, form):
        m, k = self.shape[cur]
        elem = self.elem_of[cur]
        if form == 'nop':
            target = self.pick([[-1, k], [0, k], [0, -1]] + ([[m, k]] if isinstance(m, int) else []))
            attrs = {'allowzero': 1} if self.opset >= 14 and 0 not in target and self.chance(0.3) else {}
            if self.chance(0.2):
                return self.op('Reshape', [cur, self.op('Shape', [cur], [2], TensorProto.INT64)], [m, k], elem)
            return self.reshape(cur, target, [m, k], **attrs)
        if form == 'chain':
            flat = self.fresh_symbol() if not isinstance(m, int) else m * k
            # The inner view: a Reshape, or a Flatten, Unsqueeze or Squeeze(Unsqueeze), which
            # keep the elements in order just as well.
            view = self.pick(['Reshape', 'Reshape', 'Flatten', 'Unsqueeze', 'Squeeze'])
            if view == 'Flatten' and (self.is_float or self.opset >= 9):
                inner, inner_shape = self.op('Flatten', [cur], [1, flat], elem, axis=0), [1, flat]
            elif view == 'Unsqueeze':
                inner, inner_shape = self.unsqueeze(cur, [1]), [m, 1, k]
            elif view == 'Squeeze':
                inner, inner_shape = self.squeeze(self.unsqueeze(cur, [0, 2]), [0]), [m, 1, k]
            else:
                inner_target = self.pick([[-1], [-1, 1], [1, -1], [0, 1, -1]] + ([[m, 1, k]] if isinstance(m, int) else []))
                inner_shape = {1: [flat], 2: [flat, 1] if inner_target == [-1, 1] else [1, flat],
                               3: [m, 1, k]}[len(inner_target)]
                inner = self.reshape(cur, inner_target, inner_shape)
            self.maybe_share(inner, 0.1)
            # The outer target: known entries (fuses), or a 0 copying the intermediate's dim 0,
            # which differs from cur's when the inner Reshape moved it (must not fuse).
            outer = self.pick([[-1, k], [-1, k], [1, -1]] + ([[0, -1]] * 2 if len(inner_shape) > 1 else []))
            attrs = {'allowzero': 1} if self.opset >= 14 and 0 not in outer and self.chance(0.2) else {}
            shape = {(-1, k): [m, k], (1, -1): [1, flat]}.get(tuple(outer))
            if shape is None:  # [0, -1]: the intermediate's dim 0, and the rest
                shape = [inner_shape[0], k if inner_shape[0] == m else (1 if inner_shape[0] == flat else flat)]
            y = self.reshape(inner, outer, shape, **attrs)
            return self.continue_or_output(y, cur)
        if not self.is_float and self.opset < 9:
            return cur  # Flatten-1 takes floating types only
        if self.chance(0.2):
            x = self.unsqueeze(cur, [self.pick([1, 2])])
            return self.op('Flatten', [x], [m, k], elem, axis=1)
        axis = self.pick([1, 1, 1, 0] + ([-1] if self.opset >= 11 else []))
        y = self.op('Flatten', [cur], [m, k] if axis != 0 else [1, self.fresh_symbol()], elem, axis=axis)
        return self.continue_or_output(y, cur)

    def fresh_symbol(self):
        """A dim the generator does not track (a product of dims), a symbol of its own: one
        shared with another untracked dim would claim the two equal. Never a graph input's: the
        runs could not give it the size the graph computes."""
        self.untracked_symbols += 1
        return f'D{self.untracked_symbols}'

    def untracked(self, value):
        return any(isinstance(d, str) and d not in SYMBOLS for d in self.shape[value])

    def motif_squeeze(self, cur):
        """Two of: Unsqueeze -> Unsqueeze (fuses) squeezed back, Squeeze -> Squeeze,
        Squeeze(Unsqueeze) and Unsqueeze(Squeeze) of the same axes (negative ones too) and of
        other axes (stays), and a reduction unsqueezed (reduce_unsqueeze)."""
        self.motifs.append('squeeze')
        reduce = ['reduce'] * 2 if self.elem_name in ('float', 'double') else []  # reduce_unsqueeze's types
        for form in self.forms(['unsqueezes', 'squeezes', 'squeeze-unsqueeze', 'unsqueeze-squeeze'] + reduce, 2):
            cur = self.then(cur, self.squeeze_form(cur, form))
        return cur

    def squeeze_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'reduce':
            return self.reduce_unsqueeze(cur)
        if form == 'unsqueezes':
            a1 = self.pick([[0], [1], [2], [-1], [0, 3]])
            u1 = self.unsqueeze(cur, a1)
            r = len(self.shape[u1])
            a2 = self.pick([[0], [r], [-1], [1]])
            u2 = self.unsqueeze(u1, a2)
            self.maybe_share(u1, 0.1)
            if self.chance(0.3):
                self.mark_output(u2)
                return cur
            # Squeeze back every inserted axis (some written negative): cur's dims stay.
            inserted = self.inserted_axes(self.shape[u2], [m, k])
            rank = len(self.shape[u2])
            return self.squeeze(u2, [a - rank if self.chance(0.3) else a for a in inserted])
        if form == 'squeezes':
            x = self.graph_input([m, 1, k, 1])
            s1 = self.squeeze(x, self.pick([[1], [-3], [3], [-1]]))
            return self.squeeze(s1, [1] if self.shape[s1][1] == 1 else [2])
        if form == 'unsqueeze-squeeze':
            a = self.pick([[0], [1], [2], [-1], [-3]])
            u = self.unsqueeze(cur, a)
            same = self.chance(0.7)
            if same:
                return self.squeeze(u, a)
            # Another axis holding a 1 (if there is one): no cancelling pair.
            others = [i for i, d in enumerate(self.shape[u]) if d == 1 and i != a[0] % 3]
            if not others:
                return self.squeeze(u, a)
            return self.continue_or_output(self.squeeze(u, [self.pick(others)]), cur)
        x = self.graph_input([m, 1, k])
        s = self.squeeze(x, self.pick([[1], [-2]]))
        y = self.unsqueeze(s, self.pick([[1], [-2], [1], [0]]))
        self.maybe_share(y, 0.2)
        self.mark_output(self.op(self.unary(), [y], self.shape[y]))  # a reader besides the output
        return cur

    def reduce_unsqueeze(self, cur):
        """A reduction with keepdims=0 (ReduceX over one axis or all of them, ArgMax, ArgMin)
        unsqueezed at the reduced axes (fuses), and the near misses: other axes put back,
        keepdims=1, the reduction read elsewhere."""
        m, k = self.shape[cur]
        ops = {'float': ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceL2',
                         'ReduceSumSquare', 'ReduceLogSumExp', 'ArgMax', 'ArgMin'],
               'double': ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceSumSquare',
                          'ReduceLogSumExp']}.get(self.elem_name)
        if ops is None:  # ORT's CPU reductions lack most other types
            return cur
        self.motifs.append('reduce-unsqueeze')
        op = self.pick(ops)
        arg = op.startswith('Arg')
        axes = self.pick([[1], [-1], [0]] + ([] if arg else [None]))
        if axes is not None and self.opset < 11:  # negative axes from opset 11
            axes = [a % 2 for a in axes]
        keepdims = 0 if self.chance(0.9) else 1
        attrs, inputs = {'keepdims': keepdims}, [cur]
        if arg:
            attrs['axis'] = axes[0]
            if self.opset >= 12 and self.chance(0.3):
                attrs['select_last_index'] = 1
        elif axes is not None:
            if op == 'ReduceSum' and self.opset >= 13:
                inputs.append(self.ints(axes))
            else:  # build() moves them to the input from opset 18
                attrs['axes'] = axes
        reduced = [0, 1] if axes is None else [axes[0] % 2]
        shape = [1 if i in reduced else d for i, d in enumerate([m, k])] if keepdims else \
            [d for i, d in enumerate([m, k]) if i not in reduced]
        r = self.op(op, inputs, shape, TensorProto.INT64 if arg else None, **attrs)
        self.maybe_share(r, 0.05)
        put_back = reduced if self.chance(0.8) else self.pick([[0], [1], [0, 1]])
        if max(put_back) >= len(shape) + len(put_back):  # an axis the output does not have
            put_back = [0]
        rank = len(shape) + len(put_back)
        u = self.unsqueeze(r, [a - rank if self.chance(0.3) else a for a in put_back])
        fits = len(self.shape[u]) == 2 and all(d in (1, c) for d, c in zip(self.shape[u], [m, k]))
        if arg or not fits:
            self.mark_output(u)
            return cur
        return self.op('Sub', [cur, u], [m, k])

    @staticmethod
    def inserted_axes(shape, original):
        """The axes of `shape` (original's dims with 1s inserted) to squeeze to get original
        back: original's dims matched first come, in order (where a 1 of original could be
        either, both are 1s: the values are the same)."""
        axes, j = [], 0
        for i, d in enumerate(shape):
            if j < len(original) and d == original[j]:
                j += 1
            else:
                axes.append(i)
        return axes

    def motif_pad_slice(self, cur):
        """Two of: Pads of zeros (any mode: a no-op), a real Pad sliced back; Slices of the full
        range (ends past the dim, INT64_MAX) and near misses (one short, step -1); Slice -> Slice."""
        self.motifs.append('pad-slice')
        pads = ['nop-pad', 'pad'] if self.is_float or self.opset >= 11 else []  # Pad-2: floating types only
        for form in self.forms(pads + ['nop-slice', 'slices'], 2):
            cur = self.then(cur, self.pad_slice_form(cur, form))
        return cur

    def pad_slice_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'nop-pad':
            return self.pad(cur, [0, 0, 0, 0], [m, k], self.pick(['constant', 'reflect', 'edge']),
                            self.pick([None, 0.0, 1.0]) if self.is_float else None)
        if form == 'pad':
            before, after = self.rng.randint(0, 2), self.rng.randint(0, 2)
            p = self.pad(cur, [0, before, 0, after], [m, k + before + after], self.pick(['constant', 'edge']))
            return self.slice(p, [before], [before + k], [self.pick([1, -1])], None, [m, k])
        if form == 'nop-slice':
            end = self.pick([k, k + 5, 2**63 - 1] + ([k - 1] if k > 1 else []))
            axis = self.pick([1, -1])
            steps = [self.pick([1, 1, -1])] if self.opset >= 10 and self.chance(0.4) else None
            if steps == [-1]:
                return self.slice(cur, [-1], [-2**63], [axis], steps, [m, k])
            if self.chance(0.3):  # the rows: only INT64_MAX is past a symbolic dim for sure
                return self.slice(cur, [0], [2**63 - 1], [0], steps, [m, k])
            return self.slice(cur, [0], [end], [axis], steps, [m, min(end, k)] if end != 2**63 - 1 else [m, k])
        x = self.tensor([m, k + 3])
        s1 = self.slice(x, [1], [k + 3], [1], [1] if self.chance(0.5) else None, [m, k + 2])
        if self.chance(0.3):
            s1 = self.slice(s1, [0], [2**63 - 1], [0], None, [m, k + 2])
        start = self.rng.randint(0, 2)
        return self.slice(s1, [start], [start + k], [self.pick([1, -1])], None, [m, k])

    def motif_concat_split(self, cur):
        """Two of: Concat of one input, Concat -> Concat on the same axis (fuses) or with the
        inner one read elsewhere, Split into one output, Split into two concatenated back."""
        self.motifs.append('concat-split')
        for form in self.forms(['one', 'nested', 'split-one', 'split-two'], 2):
            cur = self.then(cur, self.concat_split_form(cur, form))
        return cur

    def concat_split_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'one':
            return self.op('Concat', [cur], [m, k], self.elem_of[cur], axis=self.pick([0, 1, -1]))
        if form == 'nested':
            a = self.tensor([m, 1])
            inner = self.op('Concat', [cur, a] if self.chance(0.5) else [a, cur], [m, k + 1], axis=1)
            if self.chance(0.2):
                self.mark_output(inner)
            b = self.tensor([m, 2])
            y = self.op('Concat', [b, inner] if self.chance(0.5) else [inner, b], [m, k + 3],
                        axis=self.pick([1, -1]))
            return self.slice(y, [0], [k], [1], None, [m, k])
        if form == 'split-one':
            if self.opset >= 13 and (self.opset >= 18 or self.chance(0.5)):
                return self.multi('Split', [cur, self.ints([k])], [[m, k]], [self.elem_of[cur]], axis=1)[0]
            return self.multi('Split', [cur], [[m, k]], [self.elem_of[cur]], axis=1)[0]
        if k < 2:
            return cur
        cut = self.rng.randint(1, k - 1)
        if self.opset >= 13:
            parts = self.multi('Split', [cur, self.ints([cut, k - cut])], [[m, cut], [m, k - cut]],
                               [self.elem] * 2, axis=1)
        else:
            parts = self.multi('Split', [cur], [[m, cut], [m, k - cut]], [self.elem] * 2, axis=1, split=[cut, k - cut])
        return self.op('Concat', parts[::-1] if self.chance(0.3) else parts, [m, k], axis=1)

    def motif_nop_arith(self, cur):
        """x*1, 1*x, x+0, x-0, x/1, Pow(x, 1), And(b, true), Or(b, false) with constants that
        broadcast into x; near misses: a constant that grows x ([2, m, k]) or is not exactly the
        neutral value, 0 - x, 1 / x."""
        m, k = self.shape[cur]
        self.motifs.append('nop-arith')
        ops = [('Mul', 1), ('Add', 0), ('Sub', 0)] + ([('Div', 1)] if self.is_float else []) + \
              ([('Pow', 1)] if self.elem_name in ('float', 'double') else [])
        if self.opset >= 7 and self.chance(0.15):
            b = self.graph_input([m, k], TensorProto.BOOL)
            op, neutral = self.pick([('And', True), ('Or', False)])
            y = self.op(op, [b, self.full(self.pick([[], [1], [k]]), neutral, TensorProto.BOOL)], [m, k],
                        TensorProto.BOOL)
            self.mark_output(self.op('Not', [y], [m, k], TensorProto.BOOL))  # a reader besides the output
            return cur
        op, neutral = self.pick(ops)
        shape = self.pick([[], [1], [k], [1, k], [1, 1]])
        grows = self.chance(0.15)
        if grows:
            shape = [2, 1, k]
        value = neutral
        if self.chance(0.15):
            value = neutral + (0.001 if self.is_float else 1)
        if op == 'Add' and self.is_float and self.chance(0.3):
            value = -0.0
        int_exponent = op == 'Pow' and self.opset >= 12 and self.chance(0.3)  # Pow-12: T1 apart from T
        c = self.full(shape, value, TensorProto.INT64 if int_exponent else None)
        # 1 * x and 0 + x; 0 - x, 1 / x and 1 ^ x are near misses.
        swap = op in ('Mul', 'Add') and self.chance(0.5) or (not int_exponent and self.chance(0.1))
        operands = [c, cur] if swap else [cur, c]
        y = self.op(op, operands, broadcast([m, k], shape))
        return self.continue_or_output(y, cur)

    def motif_idempotent(self, cur):
        """Three of: Relu(Relu), Floor(Floor), Ceil(Ceil), Round(Round) (11+), Sign(Sign) (9+)
        (near misses: two different ones); Clip(Relu) and Relu(Clip) (fuse-relu-clip), mins of
        -1, -0, +0 and 0.5 (near misses: a max of 0 or less before a Relu, a shared inner node);
        Clip(Clip) (fuse-consecutive-clips; near misses: intervals that do not overlap, bounds
        of -0 and +0, a shared inner Clip)."""
        if self.elem_name not in ('float', 'double'):
            return cur
        self.motifs.append('idempotent')
        # ONNX Runtime has double Clip kernels from Clip 12 only.
        clips = ['relu-clip', 'clip-relu', 'clip-relu', 'clips', 'clips'] \
            if self.elem_name == 'float' or self.opset >= 12 else []
        for form in self.forms(['pair'] + clips, 3):
            cur = self.then(cur, self.idempotent_form(cur, form))
        return cur

    def idempotent_form(self, cur, form):
        if form == 'clips':
            # Each Clip's min at most its max: ONNX Runtime refuses a Clip 6 whose min is above.
            inner = self.clip(cur, *self.pick([(-1.0, 6.0), (0.0, 6.0), (-2.0, 2.0), (0.5, 3.0)]))
            self.maybe_share(inner, 0.1)
            return self.clip(inner, *self.pick([(0.0, 6.0), (-1.0, 1.0), (0.0, 4.0), (2.5, 3.0), (-0.0, 5.0)]))
        if form != 'pair':
            lo, hi = self.pick([-1.0, -0.0, 0.0, 0.5]), self.pick([6.0, 6.0, 6.0, 6.0, 0.0, -1.0])
            if self.opset < 11:
                lo = min(lo, hi)  # ONNX Runtime refuses a Clip 6 whose min is above its max
            if form == 'relu-clip':
                inner = self.op('Relu', [cur], self.shape[cur])
                self.maybe_share(inner, 0.1)
                return self.clip(inner, lo, hi)
            inner = self.clip(cur, lo, hi)
            self.maybe_share(inner, 0.1)
            return self.op('Relu', [inner], self.shape[cur])
        ops = ['Relu', 'Floor', 'Ceil'] + (['Round'] if self.opset >= 11 else []) + (['Sign'] if self.opset >= 9 else [])
        first = self.pick(ops)
        inner = self.op(first, [cur], self.shape[cur])
        self.maybe_share(inner, 0.1)
        return self.op(first if self.chance(0.75) else self.pick(ops), [inner], self.shape[cur])

    def motif_pre_shape(self, cur):
        """Shape or Size of cur through a Cast and unary ops (read elsewhere now and then),
        cur reshaped to that shape: eliminate-pre-shape-ops reads cur's shape. Near miss: Shape
        of a Transpose. Now and then the Shape of a NonZero's result through them, a shape no
        fixed input dim makes known (fold-shapes folds the others once --dim fixes them)."""
        m, k = self.shape[cur]
        self.motifs.append('pre-shape')
        if self.opset >= 9 and self.chance(0.25):
            as_float = self.node('Cast', [cur], [m, k], {'to': TensorProto.FLOAT}, elem=TensorProto.FLOAT)
            nonzero = self.node('NonZero', [as_float], [2, self.fresh_symbol()], elem=TensorProto.INT64)
            v = self.node('Cast', [nonzero], self.shape[nonzero], {'to': TensorProto.FLOAT}, elem=TensorProto.FLOAT)
            v = self.node(self.unary(TensorProto.FLOAT), [v], self.shape[nonzero], elem=TensorProto.FLOAT)
            self.mark_output(self.node('Shape', [v], [2], elem=TensorProto.INT64))
            return cur
        if self.chance(0.2):
            t = self.node('Transpose', [cur], [k, m], {'perm': [1, 0]})
            return self.continue_or_output(self.node('Reshape', [cur, self.node('Shape', [t], [2], elem=TensorProto.INT64)],
                                                     [k, m]), cur)
        v = self.node('Cast', [cur], [m, k], {'to': TensorProto.FLOAT}, elem=TensorProto.FLOAT)
        for _ in range(self.rng.randint(0, 2)):
            v = self.node(self.unary(TensorProto.FLOAT), [v], [m, k], elem=TensorProto.FLOAT)
        self.maybe_share(v, 0.2)
        if self.chance(0.3):
            self.mark_output(self.node('Size', [v], [], elem=TensorProto.INT64))
        return self.node('Reshape', [cur, self.node('Shape', [v], [2], elem=TensorProto.INT64)], [m, k])

    def motif_where_log_softmax(self, cur):
        """One or both of: Where(Not(c), x, y) (9+), Log(Softmax(x)) on an axis (the Softmax read
        elsewhere now and then)."""
        forms = (['where-not'] if self.opset >= 9 else []) + (['log-softmax'] if self.is_float else [])
        for form in self.forms(forms, self.pick([1, 2])):
            cur = self.then(cur, self.where_log_softmax_form(cur, form))
        return cur

    def where_log_softmax_form(self, cur, form):
        m, k = self.shape[cur]
        if form == 'where-not':
            self.motifs.append('where-not')
            c = self.graph_input(self.pick([[m, k], [k], [1]]), TensorProto.BOOL)
            n = self.op('Not', [c], self.shape[c], TensorProto.BOOL)
            self.maybe_share(n, 0.1)
            other = self.tensor(self.pick([[m, k], [k], [1]]))
            return self.op('Where', [n, cur, other] if self.chance(0.5) else [n, other, cur], [m, k])
        self.motifs.append('log-softmax')
        # The Softmax reads a Tanh of the input: an element far below its row's maximum makes the
        # unfused Softmax underflow to 0 and its Log -inf, where the fused LogSoftmax gives the
        # finite value it should (docs/passes/fuse-log-softmax.md). Bounded, both agree.
        bounded = self.op('Tanh', [cur], [m, k])
        s = self.op('Softmax', [bounded], [m, k], **({'axis': self.pick([1, -1, 0])} if self.chance(0.7) else {}))
        self.maybe_share(s, 0.15)
        return self.op('Log', [s], [m, k])

    def weights(self, shape, lo=-1.0, hi=1.0):
        data = np.array([self.rng.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)
        return self.constant(shape, data.astype(self.np_type()), where=self.pick(['any', 'initializer']))

    def batch_norm(self, x, channels):
        operands = [self.weights([channels]), self.weights([channels]), self.weights([channels]),
                    self.weights([channels], 0.1, 2.0)]
        attrs = {'epsilon': self.pick([1e-5, 1e-3])} if self.chance(0.5) else {}
        if self.opset < 9:
            attrs['spatial'] = 1
        return self.op('BatchNormalization', [x] + operands, self.shape[x], **attrs)

    def motif_conv(self, cur):
        """A small CNN on a 4-D graph input: up to three layers, each a Conv (or ConvTranspose)
        of constant weights, a Pad before it now and then, after it what exporters write there
        (BatchNormalization, an Add of a per-channel bias ([C,1,1], [1,C,1,1], [1]) or of one
        that is not ([W]), a Mul by a per-channel scale, or that Mul and Add in either order: a
        frozen BatchNormalization), and a pool after a Pad now and then (AveragePool with
        count_include_pad 1 (fuses) or 0, MaxPool (stays), ceil_mode at times). The layers take
        what follows the Conv in turn, so that one graph holds several of the five fusions. A
        Pad of zeros fuses into the Conv or AveragePool after it; one of another value, mode or
        axis stays. Without layers the input is pooled. Strides of 1 or 2. The result is a
        graph output, and sometimes its Shape or a Conv's."""
        if self.elem_name != 'float':
            return cur
        self.motifs.append('conv')
        b, c = self.pick([1, 'N', 2]), self.rng.randint(1, 3)
        h, w = self.rng.randint(3, 5), self.rng.randint(3, 5)
        x = self.graph_input([b, c, h, w])
        layers = self.pick([0, 1, 2, 2, 3])
        # A Shape of what follows a ConvTranspose is left out: the oracle's Conv and pool rules
        # are what the Shape outputs are for.
        shape_known = True
        afters = ['bn', 'add', 'mul'] * 2 + [self.pick(['mul-add', 'add-mul'])]
        sizes_known = lambda: all(isinstance(d, int) for d in self.shape[x][2:])
        for after in self.rng.sample(afters, len(afters))[:layers]:
            if self.chance(0.5):
                x = self.conv_pad(x)
                if x is None:
                    return cur
            x, transposed = self.conv_layer(x, after, shape_known)
            shape_known = shape_known and not transposed
            if self.chance(0.5):
                x = self.padded_pool(x)
                if x is None:
                    return cur
                if not sizes_known():
                    break  # a ceil_mode size that is not known: no layer can follow
        if sizes_known() and (layers == 0 or self.chance(0.4)):
            x = self.padded_pool(x)
            if x is None:
                return cur
        self.mark_output(x)
        if shape_known:
            self.maybe_shape_output(x)
        return cur

    def conv_pad(self, x, min_size=1):
        """x (4-D) padded on H and W by 0 or 1 per side (1 on both where the dim is below
        min_size): with zeros (+0, the value absent or given), or a near miss: the value 1, edge
        mode, or a pad of the batch axis (whose result then becomes a graph output, and None is
        returned)."""
        b, c, h, w = self.shape[x]
        p = [1 if d < min_size else self.rng.randint(0, 1) for d in (h, w, h, w)]
        near = self.pick([None, None, None, None, 'value', 'mode', 'batch'])
        full_pads = [0, 0, p[0], p[1], 0, 0, p[2], p[3]]
        if near == 'batch':
            full_pads[4] = 1
        shape = [b if near != 'batch' else self.fresh_symbol(), c, h + p[0] + p[2], w + p[1] + p[3]]
        y = self.pad(x, full_pads, shape, 'edge' if near == 'mode' else 'constant',
                     1.0 if near == 'value' else self.pick([None, 0.0]))
        if near == 'batch':
            self.mark_output(y)
            return None
        return y

    def conv_layer(self, x, after, shape_known):
        """Conv or ConvTranspose (groups, a bias or not, a weight that is a graph input now and
        then) of the 4-D x, then `after` of its result: 'bn', 'add', 'mul', 'mul-add' or
        'add-mul'. Returns the layer's output and whether the Conv was a ConvTranspose."""
        b, c, h, w = self.shape[x]
        transpose = self.opset >= 11 and self.chance(0.2)
        group = c if c > 1 and self.chance(0.3) else 1
        co = c * self.rng.randint(1, 2) if group > 1 else self.rng.randint(1, 3)
        kh, kw = self.rng.randint(1, min(3, h)), self.rng.randint(1, min(3, w))
        wshape = [c, co // group, kh, kw] if transpose else [co, c // group, kh, kw]
        weight = self.weights(wshape) if self.chance(0.9) else self.graph_input(wshape)
        operands = [x, weight] + ([self.weights([co])] if self.chance(0.5) else [])
        op = 'ConvTranspose' if transpose else 'Conv'
        attrs = {'group': group} if group > 1 else {}
        stride = 1 if transpose else self.pick([1, 1, 2])
        if stride > 1:
            attrs['strides'] = [stride, stride]
        shape = ([b, co, h + kh - 1, w + kw - 1] if transpose else
                 [b, co, (h - kh) // stride + 1, (w - kw) // stride + 1])
        y = self.op(op, operands, shape, **attrs)
        # Another reader of the Conv's output: what comes after it does not fold.
        if shape_known and not transpose and self.chance(0.15):
            self.mark_output(self.op('Shape', [y], [4], TensorProto.INT64))
        self.maybe_share(y, 0.1)
        if after == 'bn':
            return self.batch_norm(y, co), transpose
        for op in [part.capitalize() for part in after.split('-')]:
            bias = self.pick([[co, 1, 1], [1, co, 1, 1], [co, 1, 1], [1], [shape[3]]])
            y = self.op(op, [y, self.weights(bias)] if self.chance(0.7) else [self.weights(bias), y],
                        broadcast(shape, bias))
            shape = self.shape[y]
        return y, transpose

    def padded_pool(self, x):
        """AveragePool (count_include_pad 1 or 0) or MaxPool after a Pad (conv_pad's) of the 4-D
        x: kernels of 2 or 3, strides 1 or 2, ceil_mode at times. None where the Pad is of the
        batch axis."""
        x = self.conv_pad(x, min_size=2)
        if x is None:
            return None
        b, c, h, w = self.shape[x]
        kind = self.pick(['AveragePool', 'AveragePool', 'AveragePool', 'MaxPool'])
        # Kernels larger than the pads (of 1 at most): ONNX Runtime refuses a pad >= kernel.
        kh, kw = self.rng.randint(2, min(3, h)), self.rng.randint(2, min(3, w))
        stride = self.pick([1, 1, 2])
        attrs = {'kernel_shape': [kh, kw], 'strides': [stride, stride]}
        if kind == 'AveragePool':
            attrs['count_include_pad'] = self.pick([1, 1, 1, 0])
        ceil = self.opset >= 10 and self.chance(0.2)
        if ceil:
            attrs['ceil_mode'] = 1

        def size(d, k):
            # Where the windows do not fit exactly, ONNX Runtime versions differ on the last one.
            return self.fresh_symbol() if ceil and (d - k) % stride else (d - k) // stride + 1
        return self.op(kind, [x], [b, c, size(h, kh), size(w, kw)], **attrs)

    def motif_unet(self, cur):
        """A U-Net decoder's Resize (13+) of x to N and C of x's Shape and H and W of a skip
        connection's (a graph input of dynamic batch, H sometimes dynamic too): fold-shapes knows
        the result's Shape where the sizes are, and folds the H and W of the skip's."""
        if self.elem_name != 'float' or self.opset < 13:
            return cur
        self.motifs.append('unet')
        b, c = self.pick([1, 'N', 2]), self.rng.randint(1, 3)
        h, w = self.rng.randint(2, 4), self.rng.randint(2, 4)
        x = self.graph_input([b, c, h, w])
        skip_h = self.pick([h * 2, h * 2, h + 1, 'H'])
        skip = self.graph_input(['N', self.rng.randint(1, 3), skip_h, w * 2])
        # Initializers that are not graph inputs: ORT's inference of the sizes reads through them
        # only, and refuses the model when it cannot.
        fixed = lambda v: self.constant([1], np.array([v], dtype=np.int64), TensorProto.INT64,
                                        where='initializer')

        def part(v, start, end):
            shape = self.op('Shape', [v], [4], TensorProto.INT64)
            return self.op('Slice', [shape, fixed(start), fixed(end), fixed(0)],
                           [end - start], TensorProto.INT64)
        sizes = self.op('Concat', [part(x, 0, 2), part(skip, 2, 4)], [4], TensorProto.INT64, axis=0)
        y = self.op('Resize', [x, '', '', sizes], [b, c, skip_h, w * 2], mode='nearest')
        self.mark_output(y)
        self.mark_output(self.op('Shape', [y], [4], TensorProto.INT64))
        return cur

    def maybe_shape_output(self, y):
        """Sometimes Shape(y) as a graph output, which fold-shapes folds from the oracle's own
        Conv and pool rules (their sizes against ONNX Runtime's)."""
        if self.chance(0.4):
            self.mark_output(self.op('Shape', [y], [len(self.shape[y])], TensorProto.INT64))

    def motif_gemm_bn(self, cur):
        """Gemm or MatMul of cur and a constant weight, then BatchNormalization on the columns;
        near misses: the weight a graph input, the product read elsewhere."""
        if self.elem_name not in ('float', 'double') or self.opset < 9:
            return cur
        self.motifs.append('gemm-bn')
        m, k = self.shape[cur]
        n = self.rng.randint(1, 3)
        trans_b = self.chance(0.3)
        wshape = [n, k] if trans_b else [k, n]
        weight = self.weights(wshape) if self.chance(0.85) else self.graph_input(wshape)
        if self.chance(0.5):
            attrs = {'transB': 1} if trans_b else {}
            if self.chance(0.3):
                attrs['alpha'] = 0.5
            bias = [self.weights([n])] if self.opset < 11 or self.chance(0.6) else []  # C optional from 11
            y = self.op('Gemm', [cur, weight] + bias, [m, n], **attrs)
        else:
            y = self.op('MatMul', [cur, weight if not trans_b else self.weights([k, n])], [m, n])
        self.maybe_share(y, 0.1)
        return self.batch_norm(y, n)

    def motif_if_constant(self, cur):
        """An If whose condition is a constant (a Constant node or an initializer; one that is
        also a graph input a caller may override must stay)."""
        self.motifs.append('if-constant')
        motif = self.pick_motif(FAMILIES)
        then_nodes, y, others = self.body(motif, cur)
        cond = self.constant([], np.array(self.chance(0.5)), TensorProto.BOOL,
                             where=self.pick(['any', 'initializer']))
        return self.if_node(cond, then_nodes, [y] + others)[0]

    def motif_cse(self, cur):
        """The same node twice (CSE), the same constant twice (duplicate initializers, then
        CSE); near misses: the same bytes in another shape, one element different."""
        m, k = self.shape[cur]
        self.motifs.append('cse')
        if self.chance(0.5):
            op = self.pick(['Abs', 'Neg'] + (['Relu', 'Exp'] if self.is_float else []))
            a, b = self.op(op, [cur], [m, k]), self.op(op, [cur], [m, k])
            return self.op('Add', [a, b], [m, k])
        data = self.random_data([k])
        c1 = self.constant([k], data, where='initializer')
        near = self.pick([None, None, 'shape', 'value'])
        if near == 'shape':
            c2 = self.constant([1, k], data.reshape([1, k]), where='initializer')
        else:
            other = data.copy()
            if near == 'value':
                other[0] = other[0] + 1
            c2 = self.constant([k], other, where='initializer')
        a, b = self.op('Add', [cur, c1], [m, k]), self.op('Add', [cur, c2], [m, k])
        return self.op('Sub' if self.is_float else 'Mul', [a, b], [m, k])

    def norm_input(self, cur):
        """The value a normalization motif normalizes: cur, or a 3-D [2, m, k] input."""
        return cur if self.chance(0.7) else self.graph_input([2] + self.shape[cur])

    def norm_tail(self, x, d, axes, rms):
        """Normalizes d (= x - mean, or x for RMS) by Sqrt(ReduceMean(d^2) + eps); the near
        misses: axes differing between the ReduceMeans, eps not a positive constant."""
        shape = self.shape[x]
        sq = self.op('Pow', [d, self.full([], 2.0)], shape) if self.chance(0.5) else self.op('Mul', [d, d], shape)
        other_axes = axes if self.chance(0.9) else [0]
        var = self.reduce_mean(sq, other_axes)
        eps_kind = self.pick(['const'] * 12 + ['input', 'zero'])
        if eps_kind == 'const':
            # Powers of two, which every float type holds exactly (the fused op's epsilon is a
            # float attribute: a double 1e-5 is a near miss), and 1e-5. float16 gets normal
            # numbers: where d^2 underflows, a subnormal eps leaves ORT's float16 result to its
            # choice of where to compute in float32 (an If's branch gives another than the
            # same nodes inlined, by 0.06 on values of 0.1).
            epsilons = [2.0**-12, 2.0**-11, 2.0**-10, 1e-3] if self.elem == TensorProto.FLOAT16 \
                else [2.0**-17, 2.0**-20, 2.0**-10, 1e-5]
            eps = self.full(self.pick([[], [1]]), self.pick(epsilons))
        elif eps_kind == 'zero':
            eps = self.full([], 0.0)
        else:
            eps = self.op('Abs', [self.graph_input([])], [])
        std = self.op('Sqrt', [self.op('Add', [var, eps] if self.chance(0.7) else [eps, var], self.shape[var])],
                      self.shape[var])
        if self.chance(0.6):
            n = self.op('Div', [d, std], shape)
        else:
            inv = self.op('Reciprocal', [std], self.shape[std]) if self.chance(0.6) else \
                self.op('Div', [self.full([], 1.0), std], self.shape[std])
            n = self.op('Mul', [d, inv] if self.chance(0.5) else [inv, d], shape)
        k = shape[-1]
        if self.chance(0.8):
            scale_shape = self.pick([[k], [k], [k], [1, k], [1]] + ([[shape[-2], 1]] if isinstance(shape[-2], int) else []))
            n = self.op('Mul', [n, self.weights(scale_shape)], broadcast(shape, scale_shape))
            if not rms and self.chance(0.7):
                n = self.op('Add', [n, self.weights([k])] if self.chance(0.7) else [self.weights([k]), n],
                            self.shape[n])
        return n

    def spread(self, x):
        """x plus a ramp along its last axis (the one every 2-D normalization here reduces):
        rows an earlier motif made nearly constant (a saturated Clip) would have the
        normalization divide the rounding differences of earlier fusions, which are legitimate,
        by a tiny deviation, beyond any tolerance."""
        k = self.shape[x][-1]
        if not isinstance(k, int) or k < 2:
            return x
        ramp = np.arange(k, dtype=self.np_type()) * self.np_type()(0.5)
        return self.op('Add', [x, self.constant([k], ramp)], self.shape[x])

    def norm_axes(self, x):
        rank = len(self.shape[x])
        return self.pick([[-1], [-1], [rank - 1]] + ([[-2, -1], [1, 2]] if rank == 3 else []))

    def motif_layer_norm(self, cur):
        """The written-out LayerNormalization, one or two in a row (fuses from opset 17), its
        near misses: the centered value read elsewhere, axes or eps wrong, a scale along the rows."""
        if self.opset < 13 or self.elem_name not in ('float', 'double', 'float16'):
            return cur
        self.motifs.append('layer-norm')
        for _ in range(self.pick([1, 2])):
            cur = self.then(cur, self.layer_norm(cur))
        return cur

    def layer_norm(self, cur):
        x = self.norm_input(cur)
        if x == cur:
            x = self.spread(x)
        axes = self.norm_axes(x)
        mean = self.reduce_mean(x, axes)
        d = self.op('Sub', [x, mean], self.shape[x])
        if self.chance(0.05):
            self.mark_output(d)
        y = self.norm_tail(x, d, axes, rms=False)
        return self.continue_or_output(y, cur)

    def motif_rms_norm(self, cur):
        """The written-out RMSNormalization, two in a row (fuses at opset 23 only: two chances
        per graph), near misses as for LayerNorm."""
        if self.opset < 13 or self.elem_name not in ('float', 'double', 'float16'):
            return cur
        self.motifs.append('rms-norm')
        for _ in range(2):
            x = self.norm_input(cur)
            cur = self.then(cur, self.continue_or_output(self.norm_tail(x, x, self.norm_axes(x), rms=True), cur))
        return cur

    def motif_gelu(self, cur):
        """GELU written out, two in a row, erf and tanh forms in four groupings (fuses from opset
        20; the one rooted at a Div, the rarest, twice as often); near misses: a constant 2% off."""
        if self.opset < 13 or self.elem_name not in ('float', 'double'):
            return cur
        self.motifs.append('gelu')
        for grouping in self.forms(['x*(1+e)*0.5', '0.5x*(1+e)', 'x*(0.5(1+e))', '/2', '/2'], 2):
            cur = self.then(cur, self.gelu(cur, grouping))
        return cur

    def gelu(self, x, grouping):
        shape = self.shape[x]
        off = 1.02 if self.chance(0.15) else 1.0
        mul = lambda a, b: self.op('Mul', [a, b] if self.chance(0.5) else [b, a], shape)
        c = lambda v: self.full(self.pick([[], [1]]), v)
        if self.elem_name == 'float' and self.chance(0.5):  # ORT's Erf is for float only
            if self.chance(0.5):
                inner = self.op('Div', [x, c(1.4142135623730951 * off)], shape)
            else:
                inner = mul(x, c(0.7071067811865476 * off))
            curve = self.op('Erf', [inner], shape)
        else:
            cube = self.op('Pow', [x, c(3.0)], shape) if self.chance(0.5) else mul(mul(x, x), x)
            poly = self.op('Add', [x, mul(c(0.044715 * off), cube)], shape)
            curve = self.op('Tanh', [mul(c(0.7978845608028654), poly)], shape)
        one_plus = self.op('Add', [c(1.0), curve] if self.chance(0.5) else [curve, c(1.0)], shape)
        if grouping == 'x*(1+e)*0.5':
            return mul(mul(x, one_plus), c(0.5))
        if grouping == '0.5x*(1+e)':
            return mul(mul(c(0.5), x), one_plus)
        if grouping == 'x*(0.5(1+e))':
            return mul(x, mul(c(0.5), one_plus))
        return self.op('Div', [mul(x, one_plus), c(2.0)], shape)

    def motif_hard(self, cur):
        """HardSwish and HardSigmoid written out, three in a row (MobileNetV3 has both): three of
        x * HardSigmoid(x), x * Clip(x + 3, 0, 6) / 6, Clip(x + 3, 0, 6) / 6 and
        Clip(alpha * x + beta, 0, 1); near misses: other alpha, bounds."""
        if self.elem_name != 'float':
            return cur
        self.motifs.append('hard')
        for form in self.forms(['x*hardsigmoid', 'relu6-product', 'relu6', 'affine'], 3):
            cur = self.then(cur, self.hard_form(cur, form))
        return cur

    def hard_form(self, x, form):
        shape = self.shape[x]
        mul = lambda a, b: self.op('Mul', [a, b] if self.chance(0.5) else [b, a], shape)
        near = self.chance(0.15)
        if form == 'x*hardsigmoid':
            hs = self.op('HardSigmoid', [x], shape, alpha=0.2 if near else 0.16666667, beta=0.5)
            return mul(x, hs)
        if form == 'affine':
            a = self.op('Add', [mul(x, self.full([], self.pick([0.2, 0.1]))), self.full([], 0.5)], shape)
            return self.clip(a, 0.0, 2.0 if near else 1.0)
        shifted = self.op('Add', [x, self.full([], 3.0)] if self.chance(0.5) else [self.full([], 3.0), x], shape)
        if self.chance(0.3):
            shifted = self.op('Relu', [shifted], shape)
        clipped = self.clip(shifted, 0.0, 5.0 if near else 6.0)
        sixth = self.pick(['div', 'mul'])
        scaled = self.op('Div', [clipped, self.full([], 6.0)], shape) if sixth == 'div' else \
            mul(clipped, self.full([], 1.0 / 6.0))
        return mul(x, scaled) if form == 'relu6-product' else scaled

    def motif_rnn(self, cur):
        """An RNN, GRU or LSTM over cur as one time step, its initial state built as exporters do:
        ConstantOfShape(0) of [1, batch, hidden] from Shape(cur), a constant of zeros, or one
        layer's slice of a [2, batch, hidden] zeros; near misses: -0.0, ones, a graph input."""
        if self.elem_name != 'float' or not 9 <= self.opset <= 21:
            return cur  # ONNX Runtime's RNN kernels are float; ConstantOfShape is from opset 9
        self.motifs.append('rnn')
        m, k = self.shape[cur]
        op = self.pick(['RNN', 'GRU', 'LSTM'])
        hidden = self.rng.randint(1, 3)
        gates = {'RNN': 1, 'GRU': 3, 'LSTM': 4}[op]
        step = self.unsqueeze(cur, [0])
        w = self.weights([1, gates * hidden, k])
        r = self.weights([1, gates * hidden, hidden])

        def state():
            form = self.pick(['shape', 'shape', 'constant', 'layers', 'near'])
            if form == 'constant' and isinstance(m, int):
                return self.full([1, m, hidden], 0.0)
            if form == 'near':
                near = self.pick(['negative_zero', 'ones', 'input'])
                if near == 'input':
                    return self.graph_input([1, m, hidden])
                value = -0.0 if near == 'negative_zero' else 1.0
                if isinstance(m, int) and self.chance(0.5):
                    return self.full([1, m, hidden], value)
                form, fill = 'shape', value
            else:
                fill = 0.0
            layers = 2 if form == 'layers' else 1
            dims = self.node('Shape', [cur], [2], elem=TensorProto.INT64)
            batch = self.node('Gather', [dims, self.ints([0])], [1], {'axis': 0}, elem=TensorProto.INT64)
            target = self.node('Concat', [self.ints([layers]), batch, self.ints([hidden])], [3],
                               {'axis': 0}, elem=TensorProto.INT64)
            value = {} if fill == 0.0 and self.chance(0.3) else \
                {'value': helper.make_tensor('value', TensorProto.FLOAT, [1], [fill])}
            zeros = self.node('ConstantOfShape', [target], [layers, m, hidden], value)
            if layers == 1:
                return zeros
            start = self.rng.randint(0, 1)
            if self.opset < 10:  # Slice-1 takes its bounds as attributes
                return self.node('Slice', [zeros], [1, m, hidden],
                                 {'starts': [start], 'ends': [start + 1], 'axes': [0]})
            return self.node('Slice', [zeros, self.ints([start]), self.ints([start + 1]), self.ints([0])],
                             [1, m, hidden])

        states = [state()] + ([state()] if op == 'LSTM' else [])
        outputs = self.multi(op, [step, w, r, '', ''] + states,
                             [[1, 1, m, hidden]] + [[1, m, hidden]] * len(states),
                             [self.elem] * (1 + len(states)), hidden_size=hidden)
        if self.chance(0.3):
            self.mark_output(outputs[0])
        return self.squeeze(outputs[1], [0])

    # -- model-local functions -------------------------------------------------------------------
    def motif_function(self, cur):
        """Calls of model-local functions (ModelProto.functions, in a domain of their own that the
        model imports), which no pass looks into and whose outputs are of a custom domain's op:
        two of these forms. `linear`: Transpose -> Gemm or MatMul + Add inside, of cur and a
        weight. `narrow`: a Gather of columns by indices the call reads from a constant, [m, 1]
        at times, read by an Add of zeros, a Mul of ones or an Expand that grow it (near misses
        for the nop eliminations, which must not guess the call's shape). `lift`: an Unsqueeze to
        [1, m, k] inside, read by MatMul + Add (which must not become a Gemm) and a Reshape back.
        `attrs`: attribute references (ref_attr_name) to a Transpose's perm, a Gemm's transB and
        alpha, a Concat's axis or a LeakyRelu's alpha, set by the call or left to the default.
        `cast`: a Cast inside to another type (`to` an attribute of the call at times), then a
        Cast in the main graph (one to the type the call returns, a nop, at times) and back.
        `const`: a call of constants only (fold-constants must not fold it), added to cur.
        `nested`: a function calling another. A function made earlier is called again now and
        then (one defined for the main graph called in a body too), and a call is twinned at
        times: the same call again (CSE may merge it, it does not have to) or one of other
        attributes (never to merge). Function names repeat a value's, a node's or a standard
        op's name at times (a function `Identity` computes no identity: a pass must check the
        domain), and names inside repeat the main graph's. What a call returns is read by nodes
        the passes rewrite (Identity, Transpose pairs, Reshape to its Shape or to a target
        gathered from it, Expand, x+0, Shape as an output) or goes on as the current tensor."""
        self.motifs.append('function')
        for form in self.forms(['linear', 'linear', 'narrow', 'lift', 'attrs', 'attrs', 'cast',
                                'const', 'nested'], 2):
            cur = self.then(cur, getattr(self, f'function_{form}')(cur))
        return cur

    def sign_op(self):
        """A unary op that changes some values of the graph's type (Relu for float16)."""
        return 'Relu' if self.elem == TensorProto.FLOAT16 else self.pick(['Neg', 'Abs'])

    def function_domain(self):
        if self.fn_domain is None:
            self.fn_domain = self.pick(['local', 'com.example.functions', 'onnx_opt.test'])
        return self.fn_domain

    def define_function(self, key, hint, inputs, outputs, nodes, attributes=(), nested=False):
        """Adds a model-local function (its signature under `key`, for calls to reuse) named
        `hint`, or now and then a main-graph value's or node's name or a standard op's."""
        taken = {f.name for f in self.functions}
        node_names = sorted({n.name for s in self.scopes for n in s.nodes if n.name})
        # A standard op's name only where that op takes as many inputs: ONNX Runtime 1.30 aborts
        # loading a call of a one-input function named Add (an assertion on the node's inputs).
        op_names = ['Identity', 'Relu', 'Transpose', 'Cast', 'Dropout'] if len(inputs) == 1 else \
            ['Reshape', 'Gemm', 'Add', 'MatMul'] if len(inputs) == 2 else ['Gemm']
        options = [hint] * 6 + [self.pick(sorted(self.shape))] + \
            ([self.pick(node_names)] if node_names else []) + [self.pick(op_names)]
        name = self.pick(options)
        while name in taken:
            name = f'{name}_{len(taken)}'
        opsets = [helper.make_opsetid('', min(self.opset, NEWEST_CHECKED_OPSET))]
        if nested:
            opsets.append(helper.make_opsetid(self.function_domain(), 1))
        self.functions.append(helper.make_function(self.function_domain(), name, inputs, outputs, nodes,
                                                   opsets, list(attributes)))
        self.function_keys.setdefault(key, []).append(name)
        return name

    def existing_function(self, key):
        """A function of signature `key` made earlier, now and then (reused), else None."""
        names = self.function_keys.get(key)
        return self.pick(names) if names and self.chance(0.5) else None

    def call(self, fn, inputs, shape, elem=None, hoist=True, **attrs):
        return self.node(fn, inputs, shape, attrs, elem=elem, hoist=hoist, domain=self.function_domain())

    def twin(self, fn, inputs, y, elem=None, **attrs):
        """Now and then the same call again (or, given `attrs`, one of other attributes, whose
        result has y's shape), both read: their sum or difference."""
        if not self.chance(0.3):
            return y
        self.motifs.append('function-twins')
        other = self.call(fn, inputs, self.shape[y], elem, **attrs)
        op = 'Sub' if elem is None and self.is_float and self.chance(0.5) else 'Add'
        return self.op(op, [y, other], self.shape[y], elem)

    def call_readers(self, y, cur):
        """What reads the call's output y: nodes the passes rewrite, or the chain goes on from y."""
        shape, elem = self.shape[y], self.elem_of[y]
        reader = self.pick(['none', 'none', 'identity', 'transposes', 'reshape-shape', 'reshape-target',
                            'expand', 'nop-arith', 'shape'])
        if reader == 'identity':
            y = self.op('Identity', [y], shape, elem)
            if self.chance(0.3):
                self.mark_output(y)
        elif reader == 'transposes' and len(shape) == 2:
            t = self.op('Transpose', [y], shape[::-1], elem, perm=[1, 0])
            y = self.op('Transpose', [t], shape, elem, perm=[1, 0]) if self.chance(0.7) else t
        elif reader == 'reshape-shape':
            y = self.op('Reshape', [y, self.op('Shape', [y], [len(shape)], TensorProto.INT64)], shape, elem)
        elif reader == 'reshape-target':
            target = self.shape_value(shape, y, read=0.7)
            if target is not None:
                y = self.op('Reshape', [y, target], shape, elem)
        elif reader == 'expand' and self.opset >= 8:
            y = self.expand_of(shape, shape, x=y, exact=True)
        elif reader == 'nop-arith' and elem == self.elem:
            value = self.pick([0, 1])
            neutral = self.full(shape[-1:] if isinstance(shape[-1], int) else [1], value)
            y = self.op('Add' if value == 0 else 'Mul', [y, neutral] if self.chance(0.5) else [neutral, y], shape)
        elif reader == 'shape':
            self.mark_output(self.op('Shape', [y], [len(shape)], TensorProto.INT64))
        self.maybe_share(y, 0.1)
        if elem != self.elem:
            self.mark_output(y)
            return cur
        return self.continue_or_output(y, cur)

    def function_linear(self, cur):
        """Y = Gemm(X, Transpose(W)[, B]) or MatMul(X, W^T or W) [+ B] inside; X is cur."""
        m, k = self.shape[cur]
        if not self.is_float and self.opset < 9:
            return cur  # integer MatMul from opset 9
        n = self.rng.randint(1, 4)
        trans = self.chance(0.6)
        gemm = self.elem_name in ('float', 'double') and self.chance(0.5)
        bias = self.chance(0.6) or (gemm and self.opset < 11)
        key = ('linear', trans, gemm, bias)
        fn = self.existing_function(key)
        if fn is None:
            body = FunctionBody(self)
            x, w = body.name('X'), body.name('W')
            b = body.name('B') if bias else None
            wt = body.op('Transpose', [w], perm=[1, 0]) if trans else w
            if self.chance(0.2):
                wt = body.op('Identity', [wt])
            if gemm:
                y = body.op('Gemm', [x, wt] + ([b] if bias else []))
            else:
                y = body.op('MatMul', [x, wt])
                if bias:
                    y = body.op('Add', [y, b] if self.chance(0.5) else [b, y])
            if self.chance(0.3):
                y = body.op('Identity', [y])
            fn = self.define_function(key, 'linear', [x, w] + ([b] if bias else []), [y], body.nodes)
        self.motifs.append('function-linear')
        wshape = [n, k] if trans else [k, n]
        weight = self.weights(wshape) if self.chance(0.85) else self.graph_input(wshape)
        inputs = [cur, weight] + ([self.weights([n])] if bias else [])
        y = self.call(fn, inputs, [m, n])
        y = self.twin(fn, inputs, y)
        return self.call_readers(y, cur)

    def function_narrow(self, cur):
        """Y = Gather(X, I, axis=1) inside, I a constant of the call: [m, 1] or [m, 2]; read by
        an Add of zeros, a Mul of ones or an Expand to [m, k] (which grow it where k > 1)."""
        m, k = self.shape[cur]
        fn = self.existing_function(('narrow',))
        if fn is None:
            body = FunctionBody(self)
            x, i = body.name('X'), body.name('I')
            fn = self.define_function(('narrow',), 'narrow', [x, i], [body.op('Gather', [x, i], axis=1)],
                                      body.nodes)
        self.motifs.append('function-narrow')
        count = 1 if k == 1 or self.chance(0.6) else 2
        indices = self.constant([count], np.array([self.rng.randrange(k) for _ in range(count)], dtype=np.int64),
                                TensorProto.INT64, where=self.pick(['any', 'initializer']))
        y = self.call(fn, [cur, indices], [m, count])
        y = self.twin(fn, [cur, indices], y)
        grow = self.pick(['add', 'mul', 'expand', 'none'])
        if grow == 'expand' and self.opset >= 8 and count == 1:
            y = self.op('Expand', [y, self.shape_value([m, k], cur)], [m, k])
        elif grow in ('add', 'mul'):
            width = k if count == 1 else count
            neutral = self.full(self.pick([[width], [1, width]]), 0 if grow == 'add' else 1)
            y = self.op(grow.capitalize(), [y, neutral] if self.chance(0.5) else [neutral, y], [m, width])
        return self.call_readers(y, cur)

    def function_lift(self, cur):
        """Y = Unsqueeze(X, 0) inside: [1, m, k], read by MatMul + Add (no Gemm: it is 3-D) and
        reshaped back to 2-D by a target from Shape."""
        m, k = self.shape[cur]
        if not self.is_float and self.opset < 9:
            return cur
        fn = self.existing_function(('lift',))
        if fn is None:
            body = FunctionBody(self)
            x = body.name('X')
            if self.opset >= 13:
                axes = body.op('Constant', [], value=helper.make_tensor('axes', TensorProto.INT64, [1], [0]))
                y = body.op('Unsqueeze', [x, axes])
            else:
                y = body.op('Unsqueeze', [x], axes=[0])
            fn = self.define_function(('lift',), 'lift', [x], [y], body.nodes)
        self.motifs.append('function-lift')
        y = self.call(fn, [cur], [1, m, k])
        n = self.rng.randint(1, 3)
        p = self.op('MatMul', [y, self.weights([k, n])], [1, m, n])
        p = self.op('Add', [p, self.weights(self.pick([[n], [1, n]]))], [1, m, n])
        self.maybe_share(p, 0.1)
        target = self.shape_value([m, n], cur if m in SYMBOLS else None) if self.chance(0.6) else None
        if target is None:
            return self.continue_or_output(self.squeeze(p, [0]), cur)
        return self.call_readers(self.op('Reshape', [p, target], [m, n]), cur)

    def function_attrs(self, cur):
        """A function whose nodes read its attributes: Transpose perm=@perm, Gemm transB=@tb and
        alpha=@alpha (float, double), Concat axis=@axis, LeakyRelu alpha=@alpha (float); the call
        sets them or leaves them (the op's default then holds)."""
        m, k = self.shape[cur]
        kinds = ['transpose', 'concat'] + (['gemm'] if self.elem_name in ('float', 'double') and self.opset >= 11 else []) + \
            (['leaky'] if self.elem_name == 'float' else [])
        kind = self.pick(kinds)
        fn = self.existing_function(('attrs', kind))
        if fn is None:
            body = FunctionBody(self)
            x = body.name('X')
            inputs = [x]
            if kind == 'transpose':
                attr = self.pick(['perm', 'p'])
                y = body.op('Transpose', [x], perm=Ref(attr, onnx.AttributeProto.INTS))
                if self.chance(0.5):  # then no Transpose, whatever the function's name
                    y = body.op(self.sign_op(), [y])
                attributes = [attr]
            elif kind == 'concat':
                attr = self.pick(['axis', 'along'])
                y = body.op('Concat', [x, x], axis=Ref(attr, onnx.AttributeProto.INT))
                attributes = [attr]
            elif kind == 'gemm':
                w = body.name('W')
                inputs.append(w)
                y = body.op('Gemm', [x, w], transB=Ref('tb', onnx.AttributeProto.INT),
                            alpha=Ref('alpha', onnx.AttributeProto.FLOAT))
                attributes = ['tb', 'alpha']
            else:
                y = body.op('LeakyRelu', [x], alpha=Ref('alpha', onnx.AttributeProto.FLOAT))
                attributes = ['alpha']
            hint = {'transpose': 'Transpose', 'concat': 'stack', 'gemm': 'project', 'leaky': 'act'}[kind]
            fn = self.define_function(('attrs', kind), hint if self.chance(0.7) else 'with_attrs', inputs, [y],
                                      body.nodes, attributes)
        self.motifs.append('function-attrs')
        proto = next(f for f in self.functions if f.name == fn)
        attributes = list(proto.attribute)

        def settings():
            """Attributes for a call and the output shape they give."""
            if kind == 'transpose':
                perm = self.pick([[1, 0], [0, 1], None])
                attrs = {} if perm is None else {attributes[0]: perm}
                return attrs, [m, k] if perm == [0, 1] else [k, m]
            if kind == 'concat':
                axis = self.pick([0, 1] + ([-1, -2] if self.opset >= 11 else []))
                return {attributes[0]: axis}, [2 * m if isinstance(m, int) else None, k] if axis % 2 == 0 else [m, 2 * k]
            if kind == 'gemm':
                attrs = {}
                if self.chance(0.5):
                    attrs['tb'] = self.pick([0, 1])
                if self.chance(0.6):
                    attrs['alpha'] = self.pick([0.5, 2.0, -1.0])
                return attrs, None
            attrs = {'alpha': self.pick([0.01, 0.2, 3.0])} if self.chance(0.7) else {}
            return attrs, [m, k]

        attrs, shape = settings()
        if kind == 'concat' and shape[0] is None:
            attrs, shape = {attributes[0]: 1}, [m, 2 * k]
        inputs = [cur]
        if kind == 'gemm':
            n = self.rng.randint(1, 3)
            trans_b = attrs.get('tb', 0) == 1
            inputs.append(self.weights([n, k] if trans_b else [k, n]))
            shape = [m, n]
        y = self.call(fn, inputs, shape, **attrs)
        if self.chance(0.4):
            # The same function with other attributes: a call no CSE may merge with the first.
            other, other_shape = settings()
            if kind == 'concat' and other_shape[0] is None:
                other, other_shape = {attributes[0]: 1}, [m, 2 * k]
            if kind == 'gemm':
                other['tb'] = attrs.get('tb', 0)
                other_shape = shape
            if other_shape == shape:
                y = self.twin(fn, inputs, y, **other) if other != attrs else self.twin(fn, inputs, y, **attrs)
        return self.call_readers(y, cur)

    def function_cast(self, cur):
        """Y = Cast(X) to another type inside (`to` an attribute reference at times, the function
        named Cast now and then), then a Cast to that type (a nop) at times
        and one back, and a unary op after."""
        m, k = self.shape[cur]
        other = {TensorProto.FLOAT: TensorProto.DOUBLE, TensorProto.DOUBLE: TensorProto.FLOAT,
                 TensorProto.FLOAT16: TensorProto.FLOAT, TensorProto.INT32: TensorProto.INT64,
                 TensorProto.INT64: TensorProto.INT32}[self.elem]
        by_attr = self.chance(0.5)
        fn = self.existing_function(('cast', by_attr, other))
        if fn is None:
            body = FunctionBody(self)
            x = body.name('X')
            if self.chance(0.4):  # then no Cast, whatever the function's name
                x_in, x = x, body.op(self.sign_op(), [x])
            else:
                x_in = x
            y = body.op('Cast', [x], to=Ref('to', onnx.AttributeProto.INT) if by_attr else other)
            if self.chance(0.4):
                y = body.op('Identity', [y])
            fn = self.define_function(('cast', by_attr, other), 'Cast' if by_attr and self.chance(0.5) else 'widen',
                                      [x_in], [y], body.nodes, ['to'] if by_attr else [])
        self.motifs.append('function-cast')
        # All in the scope being built: ONNX Runtime 1.30 loses the output of a Cast of a Cast
        # (the call is one, once inlined) that a body reads from an outer scope ("Missing Input").
        y = self.call(fn, [cur], [m, k], other, hoist=False, **({'to': other} if by_attr else {}))
        if self.chance(0.5):
            y = self.op('Cast', [y], [m, k], other, hoist=False, to=other)
        y = self.op('Cast', [y], [m, k], hoist=False, to=self.elem)
        return self.call_readers(self.op(self.unary(), [y], [m, k], hoist=False), cur)

    def function_const(self, cur):
        """A call of constants only, [1, k], added to cur: fold-constants cannot evaluate it."""
        m, k = self.shape[cur]
        if not self.is_float and self.opset < 9:
            return cur
        fn = self.existing_function(('linear', False, False, False))
        if fn is None:
            body = FunctionBody(self)
            x, w = body.name('X'), body.name('W')
            fn = self.define_function(('linear', False, False, False), 'linear', [x, w],
                                      [body.op('MatMul', [x, w])], body.nodes)
        self.motifs.append('function-const')
        row = self.constant([1, k])
        y = self.call(fn, [row, self.constant([k, k])], [1, k])
        y = self.op('Add', [cur, y] if self.chance(0.5) else [y, cur], [m, k])
        return self.call_readers(y, cur)

    def function_nested(self, cur):
        """A function calling another (its opset_import names their domain): Relu or Abs of the
        inner one's result, or the inner one's result twice added."""
        m, k = self.shape[cur]
        inner = self.existing_function(('unary',))
        if inner is None:
            body = FunctionBody(self)
            x = body.name('X')
            y = body.op(self.sign_op(), [x])
            inner = self.define_function(('unary',), self.pick(['Identity', 'negate']), [x], [y], body.nodes)
        body = FunctionBody(self)
        x = body.name('X')
        y = body.op(inner, [x], domain=self.function_domain())
        y = body.op(self.unary(), [y]) if self.chance(0.5) else body.op('Add', [y, y])
        fn = self.define_function(('nested',), 'outer', [x], [y], body.nodes, nested=True)
        self.motifs.append('function-nested')
        y = self.call(fn, [cur], [m, k])
        if self.chance(0.3):
            y = self.op('Add', [y, self.call(inner, [cur], [m, k])], [m, k])
        return self.call_readers(y, cur)

    def pick_motif(self, families):
        """The motif of one of `families` (FAMILIES and BODY_FAMILIES names), by FAMILY_WEIGHTS."""
        name = self.rng.choices(families, [FAMILY_WEIGHTS.get(f, 1) for f in families])[0]
        return getattr(self, f'motif_{name}')

    def body_families(self):
        """What a new If/Loop/Scan body runs: a plain motif, or (one level down) another body."""
        return FAMILIES + (BODY_FAMILIES if self.cur_depth() == 0 else [])

    # -- the whole model -----------------------------------------------------------------------
    def settle(self, cur):
        """cur as the next motif's [m, k] (k known); a result of another shape (Gemm(T, T) of
        a symbolic batch is [N, N]) becomes a graph output and a new input takes over."""
        shape = self.shape[cur]
        if len(shape) == 2 and isinstance(shape[1], int):
            return cur
        self.mark_output(cur if self.depth[cur] == 0 else self.node('Identity', [cur], shape, hoist=False))
        return self.graph_input([self.pick(['N', 1, 2]), self.rng.randint(1, 4)])

    def make_declarations_stale(self, model):
        """One to three value_info entries of the main graph get another size for a dim of known
        size, as an edit of a graph leaves them: ONNX Runtime warns that they do not merge and
        runs the model with the real sizes, so no pass may believe them. (A symbolic dim given a
        size would not conflict: ONNX Runtime would believe it and might refuse the model.)"""
        sized = [(info, dim) for info in model.graph.value_info if info.type.HasField('tensor_type')
                 for dim in info.type.tensor_type.shape.dim if dim.HasField('dim_value')]
        for info, dim in self.rng.sample(sized, min(len(sized), self.rng.randint(1, 3))):
            dim.dim_value = self.pick([d for d in (1, 2, 3, 5) if d != dim.dim_value])
        if sized:
            self.motifs.append('stale_value_info')

    def make_body_declarations_stale(self, model):
        """The same for one or two declarations inside bodies: a value_info entry of an If
        branch or a Loop or Scan body, or an If branch's output (its If's outputs are what ONNX
        Runtime checks against the branch it runs)."""
        sized = []

        def walk(graph):
            for node in graph.node:
                for attr in node.attribute:
                    if attr.type != onnx.AttributeProto.GRAPH:
                        continue
                    infos = list(attr.g.value_info)
                    if node.op_type == 'If':
                        infos += list(attr.g.output)
                    sized.extend((info, dim) for info in infos if info.type.HasField('tensor_type')
                                 for dim in info.type.tensor_type.shape.dim if dim.HasField('dim_value'))
                    walk(attr.g)
        walk(model.graph)
        for info, dim in self.rng.sample(sized, min(len(sized), self.rng.randint(1, 2))):
            dim.dim_value = self.pick([d for d in (1, 2, 3, 5) if d != dim.dim_value])
        if sized:
            self.motifs.append('stale_body_value_info')

    def make_carried_declarations_stale(self, model):
        """The declared carried input of each Loop or Scan body of the main graph (and the next
        value the body returns) gets dim 0 one larger where it has a size: ONNX Runtime runs such
        a model, warning that the shapes differ, so what the passes prove about a carried value
        must come from the node's initial value, not from the body's declarations."""
        stale = False
        carried = {'Loop': (2, 1), 'Scan': (0, 0)}  # body input, body output
        for node in model.graph.node:
            if node.op_type not in carried:
                continue
            body = next(a.g for a in node.attribute if a.name == 'body')
            body_input, body_output = carried[node.op_type]
            for info in (body.input[body_input], body.output[body_output]):
                dims = info.type.tensor_type.shape.dim
                if dims and dims[0].HasField('dim_value'):
                    dims[0].dim_value += 1
                    stale = True
        if stale:
            self.motifs.append('stale_carried_value')

    def build(self, first):
        """The model: motif `first` (a FAMILIES or BODY_FAMILIES name), then 1 to 3 more."""
        m = self.pick(['N', 'N', 1, 2, 3])
        cur = self.graph_input([m, self.rng.randint(1, 4)])
        cur = self.then(cur, self.settle(getattr(self, f'motif_{first}')(cur)))
        for _ in range(self.rng.randint(1, 3)):
            motif = self.pick_motif(FAMILIES + BODY_FAMILIES)
            cur = self.then(cur, self.settle(motif(cur)))
        if self.depth[cur] != 0 or cur in [i.name for i in self.inputs]:
            cur = self.node('Identity', [cur], self.shape[cur], hoist=False)
        self.mark_output(cur)
        graph = helper.make_graph(self.scopes[0].nodes, 'differential', self.inputs, self.outputs,
                                  self.initializers)
        imports = [helper.make_opsetid('', min(self.opset, NEWEST_CHECKED_OPSET))]
        if self.functions:
            imports.append(helper.make_opsetid(self.function_domain(), 1))
        model = helper.make_model(graph, producer_name='onnx-opt differential', opset_imports=imports,
                                  functions=self.functions)
        # Model-local functions came with IR 8.
        ir_version = lambda opset: max(IR_VERSION[opset], 8 if self.functions else 0)
        model.ir_version = ir_version(min(self.opset, NEWEST_CHECKED_OPSET))
        checker.check_model(model, full_check=True)
        if self.chance(0.4):  # declared intermediate shapes, as exporters often write them
            model = shape_inference.infer_shapes(model, strict_mode=True)
            if self.chance(0.3):
                self.make_declarations_stale(model)
            if self.chance(0.5):
                self.make_body_declarations_stale(model)
        if ('loop' in self.motifs or 'scan' in self.motifs) and self.chance(0.3):
            self.make_carried_declarations_stale(model)
        if self.opset > NEWEST_CHECKED_OPSET:
            model.opset_import[0].version = self.opset
            for function in model.functions:
                function.opset_import[0].version = self.opset
            model.ir_version = ir_version(self.opset)
            reduce_axes_as_inputs(model)
            self.apply_relabel_fixes(model)
        return model


# The reductions whose axes attribute became input 1 at opset 18 (ReduceSum's did at 13).
AXES_INPUT_FROM_18 = {'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2',
                      'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare'}


def reduce_axes_as_inputs(model):
    """The reductions of opset 18 take their axes as an input: the attribute of their opset-13
    version becomes an initializer of the main graph (visible in every body)."""
    def walk(graph):
        for node in graph.node:
            for attr in node.attribute:
                for sub in ([attr.g] if attr.type == onnx.AttributeProto.GRAPH else []):
                    walk(sub)
            if node.op_type not in AXES_INPUT_FROM_18:
                continue
            axes = [a for a in node.attribute if a.name == 'axes']
            if not axes:
                continue
            name = f'{node.output[0]}_axes'
            model.graph.initializer.append(numpy_helper.from_array(np.array(axes[0].ints, dtype=np.int64), name))
            node.input.append(name)
            node.attribute.remove(axes[0])
    walk(model.graph)


# The motif families (Graph.motif_<name>). Each may prefer opsets (PREFERRED_OPSETS: 80% of the
# graphs it starts take one) and element types (FLOAT_ONLY, ELEMS) where its passes fire.
FAMILIES = ['transpose_gemm', 'expand', 'matmul_add', 'fold', 'identity', 'cast', 'transpose',
            'reshape', 'squeeze', 'pad_slice', 'concat_split', 'nop_arith', 'idempotent',
            'where_log_softmax', 'conv', 'gemm_bn', 'if_constant', 'cse', 'layer_norm', 'rms_norm',
            'gelu', 'hard', 'rnn', 'unet', 'pre_shape', 'einsum', 'function', 'shape_probe']
BODY_FAMILIES = ['if', 'loop', 'scan']  # a body running one of FAMILIES (or, one level down, these)
# Graph i of a batch starts with ROTATION[i % len(ROTATION)], so that a short batch gives every
# family its chances. The families that fuse at the newest opsets only, where a later pick
# rarely lands (RMSNorm at 23 alone), start twice as many graphs.
ROTATION = FAMILIES + BODY_FAMILIES + ['layer_norm', 'rms_norm', 'gelu']
# How often a family is picked for a later motif and for a body, against 1 for the others: more
# for the families with many passes or forms, each of which --require-fires wants to fire in
# every CI batch (conv has five fusions; the graphs of 4 seeds were counted to set these), less
# for one whose patterns fire in most graphs it is in; If, Loop and Scan run another motif in their body.
# Transpose's chains across elementwise nodes fire in some 30 graphs of each batch at 1.5.
FAMILY_WEIGHTS = {'conv': 3.5, 'fold': 3, 'squeeze': 2.5, 'matmul_add': 3, 'transpose_gemm': 2.5,
                  'identity': 2, 'reshape': 1.5, 'pad_slice': 1.5, 'concat_split': 1.5, 'cast': 2,
                  'gemm_bn': 1.5, 'idempotent': 1.5, 'layer_norm': 1.5, 'gelu': 1.5, 'hard': 1.5,
                  'unet': 1.5, 'transpose': 1.5, 'if': 2, 'loop': 2, 'scan': 1.5}
PREFERRED_OPSETS = {'layer_norm': range(17, 24), 'rms_norm': [23], 'gelu': range(20, 24),
                    'hard': range(14, 24), 'squeeze': range(7, 24), 'rnn': range(9, 22),
                    'unet': range(13, 24), 'einsum': range(12, 24)}
FLOAT_ONLY = {'conv', 'hard', 'transpose_gemm', 'rnn', 'unet'}
# The element types of the graphs a family starts, for the motifs that take some only: float,
# which the fusion is for, and the near misses (a graph of another type would go without them).
ELEMS = {'gelu': ['float'] * 3 + ['double'], 'layer_norm': ['float'] * 3 + ['double', 'float16'],
         'rms_norm': ['float'] * 3 + ['double', 'float16']}


def generate(seed, index):
    rng = random.Random(f'{seed}/{index}')
    first = ROTATION[index % len(ROTATION)]
    opsets = list(range(7, 18)) * 2 + list(range(18, 24))
    if first in PREFERRED_OPSETS and rng.random() < 0.8:
        opsets = list(PREFERRED_OPSETS[first])
    opset = rng.choice(opsets)
    elems = ELEMS.get(first, ['float'] * 6 + ['double', 'float16', 'float16', 'int32', 'int64'])
    if first in FLOAT_ONLY or rng.random() < 0.3:
        elems = ['float']
    elem = rng.choice(elems)
    g = Graph(rng, opset, elem)
    model = g.build(first)
    return model, {'opset': opset, 'elem': elem, 'motifs': sorted(set(g.motifs)),
                   'dims': [{**{s: b[s] for s in sorted(g.symbols)}, '*': b['N']} for b in DIM_BINDINGS]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--seed', type=int, required=True)
    parser.add_argument('--count', type=int, required=True)
    parser.add_argument('--out', required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = {}
    errors = 0
    for i in range(args.count):
        name = f'g{args.seed}_{i}.onnx'
        try:
            model, info = generate(args.seed, i)
        except Exception as e:  # a generator bug: report it, keep going, fail at the end
            errors += 1
            print(f'INVALID {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}',
                  file=sys.stderr)
            continue
        onnx.save(model, os.path.join(args.out, name))
        manifest[name] = info
    with open(os.path.join(args.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=0)
    print(f'generated {len(manifest)} models (seed {args.seed}), {errors} invalid')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
