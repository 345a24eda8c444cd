"""The shape_probe family of gen_graphs.py: one operator the shape analysis has a rule for (or
leaves to ONNX's inference), with random attributes and operands of static and symbolic dims,
its result's Shape (and Size) made graph outputs. fold-shapes folds each Shape whose dims the
analysis claims to know, so a wrong rule gives a wrong output here, at every opset 7 to 23.

Dims the generator does not compute (a symbol padded, a data-dependent count) are declared as
symbols of its own (fresh_symbol), never guessed: ONNX's checker compares what it infers with
what the graph declares.
"""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = 2 ** 63 - 1
INT64_MIN = -2 ** 63
FLOATS = (TensorProto.FLOAT, TensorProto.DOUBLE)


class ShapeProbes:
    """Mixed into gen_graphs.Graph, whose helpers (node, op, multi, constant, graph_input, ints,
    mark_output, fresh_symbol, chance, pick) it uses."""

    PROBES = ['slice', 'pad', 'tile', 'gather', 'gather_elements', 'split', 'reduce', 'flatten',
              'concat', 'transpose', 'range', 'topk', 'constant_of_shape', 'matmul', 'cumsum',
              'trilu', 'resize', 'gather_nd', 'depth_to_space']

    def motif_shape_probe(self, cur):
        self.motifs.append('shape-probe')
        for form in self.forms(self.PROBES, 2):
            self.motifs.append(f'probe-{form}')
            getattr(self, f'probe_{form}')(cur)
        return cur

    # -- what opsets 18+ add, which ONNX 1.12's checker does not know ----------------------------
    def at_relabel(self, fix):
        """Runs fix(model, node_of) once the graph is checked at opset 17 and relabelled (a
        graph of opset 18 or more): node_of(output name) is the node that computes it."""
        self.relabel_fixes.append(fix)

    @staticmethod
    def node_finder(model):
        nodes = {}

        def walk(graph):
            for node in graph.node:
                for output in node.output:
                    nodes[output] = node
                for attr in node.attribute:
                    for sub in ([attr.g] if attr.HasField('g') else []) + list(attr.graphs):
                        walk(sub)
        walk(model.graph)
        return nodes.__getitem__

    def apply_relabel_fixes(self, model):
        node_of = self.node_finder(model)
        for fix in self.relabel_fixes:
            fix(model, node_of)

    # -- operands ------------------------------------------------------------------------------
    def probe_dims(self, rank, symbolic=True):
        dims = ['N', 'B', 1, 2, 3, 4] if symbolic else [1, 2, 3, 4]
        return [self.pick(dims) for _ in range(rank)]

    def probe_source(self, rank, types=None, symbolic=True, cur=None):
        """A value of `rank` whose element type is one of `types` (the graph's when it is, else
        float): cur where it fits, else a graph input, at times through a Cast."""
        types = types or (self.elem,)
        elem = self.elem if self.elem in types else TensorProto.FLOAT
        if cur is not None and len(self.shape[cur]) == rank and (symbolic or all(
                isinstance(d, int) for d in self.shape[cur])) and self.chance(0.5):
            x = cur
        else:
            x = self.graph_input(self.probe_dims(rank, symbolic))
        if elem != self.elem_of[x]:
            x = self.op('Cast', [x], self.shape[x], elem, to=elem)
        return x

    def sym_or_fresh(self, d, same):
        """d when the op keeps it (`same`), a symbol of its own otherwise."""
        return d if same or isinstance(d, int) else self.fresh_symbol()

    def probe(self, y):
        """y's Shape (start/end at times, opset 15+) and Size as outputs; y itself at times."""
        rank = len(self.shape[y])
        attrs, length = {}, rank
        if self.opset >= 15 and self.chance(0.3):
            start = self.rng.randint(-rank - 1, rank + 1)
            end = self.rng.randint(-rank - 1, rank + 1)
            lo = min(max(start + rank if start < 0 else start, 0), rank)
            hi = min(max(end + rank if end < 0 else end, 0), rank)
            attrs = {'start': start} if self.chance(0.5) else {'start': start, 'end': end}
            length = max((hi if 'end' in attrs else rank) - lo, 0)
        if length == 0 and self.cur_depth() > 0:
            # ORT 1.30 divides by the size of a Scan body's empty output (SIGFPE).
            self.mark_output(self.node('Size', [y], [], elem=TensorProto.INT64))
        else:
            self.mark_output(self.node('Shape', [y], [length], attrs, elem=TensorProto.INT64))
        if self.chance(0.2):
            self.mark_output(self.node('Size', [y], [], elem=TensorProto.INT64))
        if self.chance(0.2):
            shape = self.node('Shape', [y], [rank], elem=TensorProto.INT64)
            y = self.node('Reshape', [y, shape], self.shape[y], elem=self.elem_of[y])
        if self.chance(0.5):
            self.mark_output(y)

    # -- the probes ----------------------------------------------------------------------------
    def probe_slice(self, cur):
        x = self.probe_source(self.rng.randint(1, 3), cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        d = shape[axis]
        step = self.pick([1, 1, -1, 2, -2]) if self.opset >= 10 else 1
        out = list(shape)
        if isinstance(d, int):
            bounds = list(range(-4, 5)) + [INT64_MAX, INT64_MIN]
            start, end = self.pick(bounds), self.pick(bounds)
            if not range(d)[slice(start, end, step)]:
                start, end = (0, INT64_MAX) if step > 0 else (-1, INT64_MIN)
            out[axis] = len(range(d)[slice(start, end, step)])
        elif self.chance(0.5):  # the whole of a symbol (every other element: a size of its own)
            start, end = (self.pick([0, INT64_MIN]), INT64_MAX) if step > 0 else \
                (self.pick([-1, INT64_MAX]), INT64_MIN)
            out[axis] = d if abs(step) == 1 else self.fresh_symbol()
        else:  # one element of a symbol, which may be 1
            # Reversed, from opset 11: ORT 1.30's Slice-10 inference takes the symbol for the size
            # of [-1:-2:-1] and reuses a buffer of the wrong size ("Shape mismatch attempting
            # to re-use buffer") in the original.
            start, end, step = self.pick([(0, 1, 1), (-1, INT64_MAX, 1)] +
                                         ([(-1, -2, -1)] if self.opset >= 11 else []))
            out[axis] = 1
        named = axis - len(shape) if self.opset >= 11 and self.chance(0.4) else axis
        if self.opset < 10:
            y = self.node('Slice', [x], out, {'starts': [start], 'ends': [end], 'axes': [named]},
                          elem=self.elem_of[x])
        else:
            operands = [x, self.ints([start]), self.ints([end]), self.ints([named])]
            if step != 1 or self.chance(0.5):
                operands.append(self.ints([step]))
            y = self.node('Slice', operands, out, elem=self.elem_of[x])
        self.probe(y)

    def probe_pad(self, cur):
        types = (TensorProto.FLOAT, TensorProto.DOUBLE) + \
            ((TensorProto.INT32, TensorProto.INT64) if self.opset >= 11 else ())
        x = self.probe_source(self.rng.randint(1, 4), types, cur=cur)
        shape = self.shape[x]
        rank = len(shape)
        mode = self.pick(['constant', 'constant', 'edge', 'reflect'])
        axes = list(range(rank))
        if self.opset >= 18 and self.chance(0.5):
            axes = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        before, after = [], []
        for a in axes:
            d = shape[a]
            if mode == 'reflect':
                top = d - 1 if isinstance(d, int) else 0  # a symbol may be 1
                pads = [self.rng.randint(0, min(top, 2)) for _ in range(2)]
            else:
                low = -1 if mode == 'constant' and isinstance(d, int) and d >= 3 else 0
                pads = [self.rng.randint(low, 2) for _ in range(2)]
            before.append(pads[0])
            after.append(pads[1])
        out = list(shape)
        for a, b, e in zip(axes, before, after):
            out[a] = shape[a] + b + e if isinstance(shape[a], int) else self.sym_or_fresh(shape[a], b == e == 0)
        attrs = {} if mode == 'constant' and self.chance(0.5) else {'mode': mode}
        if self.opset < 11:
            if mode == 'constant' and self.chance(0.5):
                attrs['value'] = 1.5
            y = self.node('Pad', [x], out, {'pads': before + after, **attrs}, elem=self.elem_of[x])
        else:
            operands = [x, self.ints(before + after)]
            if mode == 'constant' and self.chance(0.5):
                operands.append(self.full([], 2, self.elem_of[x]))
            full = [0] * (2 * rank)
            for a, b, e in zip(axes, before, after):
                full[a], full[a + rank] = b, e
            operands[1] = self.ints(full)
            y = self.node('Pad', operands, out, attrs, elem=self.elem_of[x])
            if len(axes) < rank or (self.opset >= 18 and self.chance(0.3)):
                named = [a - rank if self.chance(0.4) else a for a in axes]
                pads_name, axes_name = self.fresh('pads'), self.fresh('axes')

                def with_axes(model, node_of):  # Pad-18: pads of the axes given only
                    node = node_of(y)
                    model.graph.initializer.extend([
                        numpy_helper.from_array(np.array(before + after, np.int64), pads_name),
                        numpy_helper.from_array(np.array(named, np.int64), axes_name)])
                    node.input[1] = pads_name
                    node.input.extend([''] * (3 - len(node.input)) + [axes_name])
                self.at_relabel(with_axes)
        self.probe(y)

    def probe_tile(self, cur):
        x = self.probe_source(self.rng.randint(1, 3), cur=cur)
        repeats = [self.pick([1, 1, 2, 3]) for _ in self.shape[x]]
        out = [d * r if isinstance(d, int) else self.sym_or_fresh(d, r == 1)
               for d, r in zip(self.shape[x], repeats)]
        self.probe(self.node('Tile', [x, self.ints(repeats)], out, elem=self.elem_of[x]))

    def probe_gather(self, cur):
        x = self.probe_source(self.rng.randint(1, 3), cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        d = shape[axis]
        negative = self.opset >= 11
        if isinstance(d, int):
            choices = list(range(-d if negative else 0, d))
        else:
            choices = [0, -1] if negative else [0]
        indices_shape = self.pick([[], [1], [2], [2, 2], [1, 3]])
        data = np.array([self.pick(choices) for _ in range(int(np.prod(indices_shape)))],
                        dtype=np.int64).reshape(indices_shape)
        indices = self.constant(indices_shape, data, TensorProto.INT64)
        out = shape[:axis] + indices_shape + shape[axis + 1:]
        named = axis - len(shape) if negative and self.chance(0.4) else axis
        self.probe(self.node('Gather', [x, indices], out, {'axis': named}, elem=self.elem_of[x]))

    def probe_gather_elements(self, cur):
        if self.opset < 11:
            return
        x = self.probe_source(self.rng.randint(1, 3), symbolic=False, cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        indices_shape = list(shape)
        indices_shape[axis] = self.rng.randint(1, 3)
        d = shape[axis]
        data = np.array([self.rng.randint(-d, d - 1) for _ in range(int(np.prod(indices_shape)))],
                        dtype=np.int64).reshape(indices_shape)
        indices = self.constant(indices_shape, data, TensorProto.INT64)
        named = axis - len(shape) if self.chance(0.4) else axis
        self.probe(self.node('GatherElements', [x, indices], indices_shape, {'axis': named},
                             elem=self.elem_of[x]))

    def probe_split(self, cur):
        x = self.probe_source(self.rng.randint(1, 3), symbolic=False, cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        d = shape[axis]
        named = axis - len(shape) if self.opset >= 11 and self.chance(0.4) else axis
        attrs, operands = {'axis': named}, [x]
        form = self.pick(['sizes', 'equal'] + (['num_outputs'] * 2 if self.opset >= 18 else []))
        if form == 'num_outputs':
            count = self.rng.randint(1, d)
            chunk = -(-d // count)
            sizes = [min(chunk, d - i * chunk) for i in range(count)]
            if sizes[-1] <= 0:  # ORT refuses chunks that leave an output empty
                return
            operands.append(self.ints(sizes))  # checked so at 17, then num_outputs instead

            def to_num_outputs(model, node_of, count=count):
                node = node_of(ys[0])
                del node.input[1:]
                node.attribute.append(helper.make_attribute('num_outputs', count))
            self.at_relabel(to_num_outputs)
        elif form == 'equal':
            count = self.pick([c for c in range(1, d + 1) if d % c == 0])
            sizes = [d // count] * count
        else:
            cuts = sorted(self.rng.sample(range(1, d), self.rng.randint(0, d - 1))) if d > 1 else []
            sizes = [b - a for a, b in zip([0] + cuts, cuts + [d])]
            if self.opset >= 13:
                operands.append(self.ints(sizes))
            else:
                attrs['split'] = sizes
        if self.opset >= 18 and len(operands) == 1:  # Split-18 takes sizes or num_outputs
            operands.append(self.ints(sizes))
        outs = []
        for size in sizes:
            out = list(shape)
            out[axis] = size
            outs.append(out)
        ys = self.multi('Split', operands, outs, [self.elem_of[x]] * len(outs), **attrs)
        for y in ys:
            self.probe(y)

    def probe_reduce(self, cur):
        op = self.pick(['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd',
                        'ReduceL1', 'ReduceL2', 'ReduceLogSumExp', 'ReduceSumSquare'])
        types = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64) \
            if op in ('ReduceSum', 'ReduceMax', 'ReduceMin') else (TensorProto.FLOAT,)
        x = self.probe_source(self.rng.randint(1, 3), types, cur=cur)
        shape = self.shape[x]
        rank = len(shape)
        axes = sorted(self.rng.sample(range(rank), self.rng.randint(0, rank)))
        keepdims = self.pick([0, 1])
        noop = op == 'ReduceSum' and self.opset >= 13 and not axes and self.chance(0.4)
        if noop:
            out = list(shape)
        else:
            reduced = set(axes) if axes else set(range(rank))
            out = [1 if i in reduced else d for i, d in enumerate(shape) if keepdims or i not in reduced]
        named = [a - rank if self.opset >= 11 and self.chance(0.4) else a for a in axes]
        attrs = {'keepdims': keepdims} if keepdims == 0 or self.chance(0.5) else {}
        operands = [x]
        if op == 'ReduceSum' and self.opset >= 13:
            if named or self.chance(0.3):
                operands.append(self.ints(named))
            if noop:
                attrs['noop_with_empty_axes'] = 1
        elif named:
            attrs['axes'] = named  # an input from opset 18: reduce_axes_as_inputs
        self.probe(self.node(op, operands, out, attrs, elem=self.elem_of[x]))

    def probe_flatten(self, cur):
        # Flatten-1 takes floating types only.
        types = None if self.opset >= 9 else (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)
        x = self.probe_source(self.rng.randint(1, 4), types, cur=cur)
        shape = self.shape[x]
        rank = len(shape)
        axis = self.rng.randint(-rank if self.opset >= 11 else 0, rank)
        cut = axis + rank if axis < 0 else axis

        def product(dims):
            known = [d for d in dims if d != 1]
            if all(isinstance(d, int) for d in known):
                return int(np.prod(known)) if known else 1
            return known[0] if len(known) == 1 else self.fresh_symbol()
        out = [product(shape[:cut]), product(shape[cut:])]
        attrs = {} if axis == 1 and self.chance(0.5) else {'axis': axis}
        self.probe(self.node('Flatten', [x], out, attrs, elem=self.elem_of[x]))

    def probe_concat(self, cur):
        x = self.probe_source(self.rng.randint(1, 3), cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        other = list(shape)
        other[axis] = self.rng.randint(1, 2)
        y = self.graph_input(other, self.elem_of[x]) if self.chance(0.5) or not all(
            isinstance(d, int) for d in other) else self.constant(other, elem=self.elem_of[x])
        out = list(shape)
        out[axis] = shape[axis] + other[axis] if isinstance(shape[axis], int) else self.fresh_symbol()
        named = axis - len(shape) if self.opset >= 11 and self.chance(0.4) else axis
        operands = [x, y] if self.chance(0.5) else [y, x]
        self.probe(self.node('Concat', operands, out, {'axis': named}, elem=self.elem_of[x]))

    def probe_transpose(self, cur):
        x = self.probe_source(self.rng.randint(2, 4), cur=cur)
        shape = self.shape[x]
        if self.chance(0.3):
            self.probe(self.node('Transpose', [x], shape[::-1], elem=self.elem_of[x]))
            return
        perm = self.rng.sample(range(len(shape)), len(shape))
        self.probe(self.node('Transpose', [x], [shape[p] for p in perm], {'perm': perm},
                             elem=self.elem_of[x]))

    def probe_range(self, cur):
        if self.opset < 11:
            return
        elem, np_type = self.pick([(TensorProto.FLOAT, np.float32), (TensorProto.DOUBLE, np.float64),
                                   (TensorProto.INT32, np.int32), (TensorProto.INT64, np.int64)])
        unit = 0.5 if elem in FLOATS else 1
        start = self.rng.randint(-6, 6) * unit
        delta = self.pick([-3, -2, -1, 1, 2, 3]) * unit
        limit = start + delta * self.rng.randint(1, 5) + self.pick([0, 0, unit / 2 if unit < 1 else 0])
        count = max(math.ceil((limit - start) / delta), 0)
        operands = [self.constant([], np.array(v, dtype=np_type), elem) for v in (start, limit, delta)]
        self.probe(self.node('Range', operands, [count], elem=elem))

    def probe_topk(self, cur):
        types = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64) \
            if self.opset >= 11 else (TensorProto.FLOAT,)
        x = self.probe_source(self.rng.randint(1, 3), types, cur=cur)
        shape = self.shape[x]
        axis = self.rng.randrange(len(shape))
        d = shape[axis]
        k = self.rng.randint(1, d) if isinstance(d, int) else 1
        out = list(shape)
        out[axis] = k
        named = axis - len(shape) if self.chance(0.4) else axis
        attrs = {'axis': named}
        if self.opset >= 11:
            attrs.update({'largest': self.pick([0, 1]), 'sorted': 1})
        if self.opset >= 10:
            operands = [x, self.ints([k])]
        else:
            operands, attrs['k'] = [x], k
        values, indices = self.multi('TopK', operands, [out, out], [self.elem_of[x], TensorProto.INT64], **attrs)
        self.probe(values)
        self.probe(indices)

    def probe_constant_of_shape(self, cur):
        if self.opset < 9:
            return
        x = self.probe_source(self.rng.randint(1, 3), cur=cur)
        shape = self.node('Shape', [x], [len(self.shape[x])], elem=TensorProto.INT64)
        elem = self.pick([TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32])
        np_type = {TensorProto.FLOAT: np.float32, TensorProto.INT64: np.int64, TensorProto.INT32: np.int32}[elem]
        value = numpy_helper.from_array(np.array([3], dtype=np_type), 'value')
        self.probe(self.node('ConstantOfShape', [shape], self.shape[x], {'value': value}, elem=elem))

    def probe_matmul(self, cur):
        """1-D operands (promoted and the dim removed again) and broadcast batch dims."""
        types = (TensorProto.FLOAT, TensorProto.DOUBLE) + \
            ((TensorProto.INT32, TensorProto.INT64) if self.opset >= 9 else ())
        elem = self.elem if self.elem in types else TensorProto.FLOAT
        k, n = self.rng.randint(1, 3), self.rng.randint(1, 3)
        batch, other = self.pick(['N', 1, 2]), self.pick(['B', 1, 3])
        a_shape, b_shape, out = self.pick([
            ([k], [k, n], [n]),
            (['N', k], [k], ['N']),
            ([k], [k], []),
            ([batch, 'N', k], [k, n], [batch, 'N', n]),
            ([k], [other, k, n], [other, n]),
            ([batch, 1, 2, k], [other, k, n], [batch, other, 2, n]),
        ])
        operands = []
        for s in (a_shape, b_shape):
            static = all(isinstance(d, int) for d in s)
            operands.append(self.constant(s, elem=elem) if static and self.chance(0.5)
                            else self.graph_input(s, elem))
        self.probe(self.node('MatMul', operands, out, elem=elem))

    def probe_cumsum(self, cur):
        if self.opset < 11:
            return
        x = self.probe_source(self.rng.randint(1, 3), (TensorProto.FLOAT, TensorProto.DOUBLE,
                                                       TensorProto.INT32, TensorProto.INT64), cur=cur)
        rank = len(self.shape[x])
        axis = self.rng.randint(-rank, rank - 1)
        axis_shape = self.pick([[], [1]])
        axis_value = self.constant(axis_shape, np.array(axis, dtype=np.int64).reshape(axis_shape),
                                   TensorProto.INT64)
        attrs = {k: 1 for k in ('exclusive', 'reverse') if self.chance(0.4)}
        self.probe(self.node('CumSum', [x, axis_value], self.shape[x], attrs, elem=self.elem_of[x]))

    def probe_trilu(self, cur):
        if self.opset < 14:
            return
        x = self.probe_source(self.rng.randint(2, 3), (TensorProto.FLOAT, TensorProto.DOUBLE,
                                                       TensorProto.INT64), cur=cur)
        operands = [x] + ([self.constant([], np.array(self.rng.randint(-2, 2), dtype=np.int64),
                                         TensorProto.INT64)] if self.chance(0.6) else [])
        attrs = {'upper': self.pick([0, 1])} if self.chance(0.7) else {}
        self.probe(self.node('Trilu', operands, self.shape[x], attrs, elem=self.elem_of[x]))

    def probe_resize(self, cur):
        if self.opset < 10:
            return
        batch = self.pick(['N', 1, 2])
        h, w = self.rng.randint(1, 4), self.rng.randint(1, 4)
        x = self.graph_input([batch, self.rng.randint(1, 2), h, w], TensorProto.FLOAT)
        shape = self.shape[x]
        mode = self.pick(['nearest', 'linear'])
        attrs = {} if mode == 'nearest' and self.chance(0.5) else {'mode': mode}
        empty = lambda: self.constant([0], np.zeros([0], np.float32), TensorProto.FLOAT, where='initializer')
        if self.opset >= 11 and self.chance(0.4):
            size_h, size_w = self.rng.randint(1, 5), self.rng.randint(1, 5)
            if not isinstance(batch, int):
                return
            sizes = self.ints([batch, shape[1], size_h, size_w])
            out = [batch, shape[1], size_h, size_w]
            operands = [x, '' if self.opset >= 13 else empty(), '' if self.opset >= 13 else empty(), sizes]
        else:
            sh, sw = self.pick([0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0]), self.pick([0.5, 0.6, 1.0, 1.5, 2.0, 2.5])
            out = [batch, shape[1], int(h * sh), int(w * sw)]
            if out[2] == 0 or out[3] == 0:
                return
            scales = self.constant([4], np.array([1, 1, sh, sw], dtype=np.float32), TensorProto.FLOAT)
            operands = [x, scales] if self.opset == 10 else \
                [x, '' if self.opset >= 13 else empty(), scales]
        self.probe(self.node('Resize', operands, out, attrs, elem=TensorProto.FLOAT))

    def probe_gather_nd(self, cur):
        if self.opset < 11:
            return
        x = self.probe_source(self.rng.randint(2, 3), symbolic=False, cur=cur)
        shape = self.shape[x]
        q = self.rng.randint(1, len(shape))
        rows = self.rng.randint(1, 3)
        data = np.array([[self.rng.randrange(shape[i]) for i in range(q)] for _ in range(rows)],
                        dtype=np.int64)
        indices = self.constant([rows, q], data, TensorProto.INT64)
        self.probe(self.node('GatherND', [x, indices], [rows] + shape[q:], elem=self.elem_of[x]))

    def probe_depth_to_space(self, cur):
        block = self.pick([1, 2])
        h, w = self.rng.randint(1, 2), self.rng.randint(1, 2)
        c = block * block * self.rng.randint(1, 2)
        batch = self.pick(['N', 1, 2])
        if self.chance(0.5):
            x = self.graph_input([batch, c, h, w], TensorProto.FLOAT)
            attrs = {'blocksize': block}
            if self.opset >= 11 and self.chance(0.5):
                attrs['mode'] = self.pick(['DCR', 'CRD'])
            out = [batch, c // (block * block), h * block, w * block]
            self.probe(self.node('DepthToSpace', [x], out, attrs, elem=TensorProto.FLOAT))
        else:
            x = self.graph_input([batch, c, h * block, w * block], TensorProto.FLOAT)
            self.probe(self.node('SpaceToDepth', [x], [batch, c * block * block, h, w], {'blocksize': block},
                                 elem=TensorProto.FLOAT))
