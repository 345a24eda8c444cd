#!/usr/bin/python3
"""Random valid ONNX graphs rich in what the -O1 passes rewrite (tests/differential/README.md).

    gen_graphs.py --seed S --count N --out DIR

writes DIR/g<S>_<i>.onnx for i in 0..N-1 and DIR/manifest.json: per model its opset, element
type, the motifs it holds and the sizes to bind its symbolic dims to, one binding per run.
Graph i depends only on (S, i): the same command always writes the same models.

A graph is a chain of motifs over a 2-D "current" tensor [m, k] (m may be the symbolic batch N):
Transpose/Gemm arrangements, Expand of biases and shapes, MatMul+Add, and If/Loop bodies that
run a motif on outer values. Every node may be placed in an outer scope when its operands live
there, so Transposes and Expands in the main graph feed Gemms and Adds inside bodies. Values are
shared by extra readers and made graph outputs at random, which the passes must respect.

Opsets 7..17 are checked by onnx.checker (full check: strict shape inference). A graph of opset
18..23 (which libonnx 1.12 does not know) is built and checked at 17 and then relabelled: every
operator used here means the same there.
"""
import argparse
import json
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, checker, helper, numpy_helper, shape_inference

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


class Graph:
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
        self.shape = {}
        self.depth = {}
        self.elem_of = {}
        self.counter = 0
        self.motifs = []
        self.symbols = set()
        self.taken = set()
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
        self.elem_of[name] = self.elem if elem is None else elem
        self.symbols.update(d for d in shape if isinstance(d, str))
        return name

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, options):
        return self.rng.choice(options)

    def cur_depth(self):
        return self.scopes[-1].depth

    def node(self, op, inputs, shape, attrs=None, elem=None, hoist=True):
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
        self.scopes[depth].nodes.append(helper.make_node(op, inputs, [out], name=name, **(attrs or {})))
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
        choice = self.rng.random()
        if static and choice < 0.45:
            return self.constant(shape)
        source = self.graph_input(shape)
        if choice > 0.8:
            return self.node(self.unary(), [source], shape)
        return source

    def mark_output(self, name):
        """Makes `name` an output of the main graph, if it lives there (a body's outputs are
        fixed by the If/Loop that owns it, so values of bodies are left alone)."""
        if self.depth[name] != 0 or name in self.output_names:
            return
        self.output_names.add(name)
        self.outputs.append(helper.make_tensor_value_info(name, self.elem_of[name], self.shape[name]))

    def maybe_share(self, name, p=0.25):
        """Gives `name` another reader, or makes it a graph output, with probability p each."""
        if self.chance(p):
            self.mark_output(name)
        if self.chance(p):
            self.mark_output(self.node(self.unary(), [name], self.shape[name]))

    def unary(self):
        return 'Relu' if self.is_float else 'Abs'

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
        """A C for a Gemm of output [m, n], or None (only where C is optional)."""
        if allow_none and self.chance(0.15):
            return None
        shape = self.pick([[n], [1, n], [m, n], [m, 1], [], [1], [1, 1]])
        if self.opset >= 8 and self.chance(0.3):
            return self.expand_of(shape, [m, n], into=True)
        return self.tensor(shape)

    def motif_transpose_gemm(self, cur):
        if not self.is_float:
            return cur
        m, k = self.shape[cur]
        n = self.rng.randint(1, 4)
        self.motifs.append('transpose-gemm')
        a, trans_a = self.gemm_operand(m, k, source=cur)
        if self.chance(0.15) and trans_a == 0 and self.shape[a] == [m, k]:
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
        if self.chance(0.3):
            attrs['alpha'] = self.pick([0.5, 2.0, -1.0, 0.25])
        if self.chance(0.3):
            attrs['beta'] = self.pick([0.5, 2.0, -1.0, 0.0])
        y = self.node('Gemm', [a, b] + ([c] if c else []), [m, n], attrs)
        if self.chance(0.4):
            self.maybe_share(y, 0.15)
            attrs = {'perm': [1, 0]} if self.chance(0.7) else {}
            y = self.node('Transpose', [y], [n, m], attrs)
        self.maybe_share(y, 0.15)
        return y

    def shape_value(self, target, like):
        """An int64 1-D value holding `target` (ints and symbols); symbols are read from Shape of
        `like`, whose shape holds them."""
        static = all(isinstance(d, int) for d in target)
        if like is None and not static:
            return None
        if not target:
            like = None
        if static and (like is None or not self.chance(0.3)):
            return self.constant([len(target)], np.array(target, dtype=np.int64), TensorProto.INT64)
        like_shape = self.shape[like]
        if target == like_shape and self.chance(0.5):
            return self.node('Shape', [like], [len(target)], elem=TensorProto.INT64)
        shape = self.node('Shape', [like], [len(like_shape)], elem=TensorProto.INT64)
        parts = []
        for d in target:
            if d in like_shape and (isinstance(d, str) or self.chance(0.5)):
                parts.append(self.dim_of(shape, like, like_shape.index(d)))
            else:
                if isinstance(d, str):
                    return None
                parts.append(self.constant([1], np.array([d], dtype=np.int64), TensorProto.INT64))
        if len(parts) == 1:
            return parts[0]
        return self.node('Concat', parts, [len(target)], {'axis': 0}, elem=TensorProto.INT64)

    def dim_of(self, shape, like, axis):
        """A 1-element int64 value holding dim `axis` of `like`, whose Shape is `shape`: Shape with
        start/end (opset 15+), or Gather of a scalar or 1-element index (negative at times),
        Unsqueezed to 1-D, through an Identity now and then."""
        rank = len(self.shape[like])
        if self.opset >= 15 and self.chance(0.3):
            start = axis - rank if self.chance(0.5) else axis
            return self.node('Shape', [like], [1], {'start': start, 'end': start + 1 if start != -1 else rank},
                             elem=TensorProto.INT64)
        index_shape = [] if self.chance(0.5) else [1]
        value = axis - rank if self.chance(0.3) else axis
        index = self.constant(index_shape, np.array(value, dtype=np.int64).reshape(index_shape),
                              TensorProto.INT64)
        if self.chance(0.2):
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
        if len(shape) == 2 and shape[0] == self.shape[cur][0]:
            return y
        self.mark_output(y)
        return cur

    def motif_matmul_add(self, cur):
        m, k = self.shape[cur]
        n = self.rng.randint(1, 4)
        if not self.is_float and self.opset < 9:
            return cur  # integer MatMul from opset 9
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
        product = self.node('MatMul', [a, b], out)
        self.maybe_share(product, 0.12)
        if self.chance(0.15):
            bias = self.node('MatMul', [a, b], out)  # Add(MatMul, MatMul)
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
        y = self.node('Add', operands, y_shape)
        self.maybe_share(y, 0.12)
        return self.continue_or_output(y, cur)

    def body(self, motif, cur, formal=None):
        """Runs `motif` in a new scope on `cur` (an outer value), or on `formal`, a body input
        of cur's shape; returns (nodes, output). An outer value is returned through an Identity
        (ONNX Runtime rejects a body that returns one directly)."""
        self.scopes.append(Scope(len(self.scopes)))
        if formal is not None:
            cur = self.define(formal, self.shape[cur], self.cur_depth())
        y = motif(cur)
        if y == cur or self.depth[y] != self.cur_depth():
            y = self.node('Identity', [y], self.shape[y], hoist=False)
        scope = self.scopes.pop()
        return scope.nodes, y

    def motif_if(self, cur):
        self.motifs.append('if')
        motif = self.pick(self.body_motifs())
        then_nodes, y = self.body(motif, cur)
        # The else branch: the same shape from another value.
        other = self.graph_input(self.shape[y])
        else_nodes, z = self.body(lambda _: self.node('Identity', [other], self.shape[y], hoist=False), cur)
        info = lambda v: helper.make_tensor_value_info(v, self.elem, self.shape[v])
        cond = self.graph_input([], TensorProto.BOOL)
        out = self.node('If', [cond], self.shape[y], {
            'then_branch': helper.make_graph(then_nodes, self.fresh('then'), [], [info(y)]),
            'else_branch': helper.make_graph(else_nodes, self.fresh('else'), [], [info(z)]),
        }, hoist=False)
        return out

    def motif_loop(self, cur):
        """Loop<body>(2, true, cur): the body runs a motif on outer values or on its input
        carrying `cur` (through unchanged: ONNX requires a carried value); the motif's result is
        scanned."""
        self.motifs.append('loop')
        motif = self.pick(self.body_motifs())
        carried_in, carried_out = self.fresh('carried_in'), self.fresh('carried_out')
        # The motif reads the outer `cur`, or the body's own input carrying it.
        nodes, y = self.body(motif, cur, carried_in if self.chance(0.5) else None)
        iteration, cond_in, cond_out = self.fresh('i'), self.fresh('cond_in'), self.fresh('cond_out')
        nodes.append(helper.make_node('Identity', [cond_in], [cond_out]))
        nodes.append(helper.make_node('Identity', [carried_in], [carried_out]))
        info = lambda v, shape, elem=self.elem: helper.make_tensor_value_info(v, elem, shape)
        body = helper.make_graph(
            nodes, self.fresh('body'),
            [info(iteration, [], TensorProto.INT64), info(cond_in, [], TensorProto.BOOL),
             info(carried_in, self.shape[cur])],
            [info(cond_out, [], TensorProto.BOOL), info(carried_out, self.shape[cur]),
             info(y, self.shape[y])])
        trips = self.constant([], np.array(2, dtype=np.int64), TensorProto.INT64, where='initializer')
        keep_going = self.constant([], np.array(True), TensorProto.BOOL, where='initializer')
        final, scan = self.fresh('loop_final'), self.fresh('loop_scan')
        self.scopes[-1].nodes.append(helper.make_node(
            'Loop', [trips, keep_going, cur], [final, scan], name=self.fresh('Loop'), body=body))
        self.define(final, self.shape[cur], self.cur_depth())
        self.define(scan, [2] + self.shape[y], self.cur_depth())
        self.mark_output(scan)
        return final

    def plain_motifs(self):
        return [self.motif_transpose_gemm, self.motif_expand, self.motif_matmul_add]

    def body_motifs(self):
        """What a new If/Loop body runs: a plain motif, or (one level down) another body."""
        nested = [self.motif_if, self.motif_loop] if self.cur_depth() == 0 else []
        return self.plain_motifs() * 3 + nested

    # -- the whole model -----------------------------------------------------------------------
    def build(self):
        m = self.pick(['N', 'N', 1, 2, 3])
        cur = self.graph_input([m, self.rng.randint(1, 4)])
        for _ in range(self.rng.randint(1, 4)):
            motif = self.pick(self.plain_motifs() * 3 + [self.motif_if, self.motif_loop])
            cur = motif(cur)
        if self.depth[cur] != 0 or cur in [i.name for i in self.inputs]:
            cur = self.node('Identity', [cur], self.shape[cur], hoist=False)
        self.mark_output(cur)
        graph = helper.make_graph(self.scopes[0].nodes, 'differential', self.inputs, self.outputs,
                                  self.initializers)
        model = helper.make_model(graph, producer_name='onnx-opt differential',
                                  opset_imports=[helper.make_opsetid('', min(self.opset, NEWEST_CHECKED_OPSET))])
        model.ir_version = IR_VERSION[min(self.opset, NEWEST_CHECKED_OPSET)]
        checker.check_model(model, full_check=True)
        if self.chance(0.4):  # declared intermediate shapes, as exporters often write them
            model = shape_inference.infer_shapes(model, strict_mode=True)
        if self.opset > NEWEST_CHECKED_OPSET:
            model.opset_import[0].version = self.opset
            model.ir_version = IR_VERSION[self.opset]
        return model


def generate(seed, index):
    rng = random.Random(f'{seed}/{index}')
    opset = rng.choice(list(range(7, 18)) * 2 + list(range(18, 24)))
    elem = rng.choice(['float'] * 6 + ['double', 'float16', 'float16', 'int32', 'int64'])
    g = Graph(rng, opset, elem)
    model = g.build()
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
