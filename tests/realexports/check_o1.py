#!/usr/bin/python3
"""Runs `onnx-opt -O1` on each exported model and checks, with onnx's Python package, that the
result has none of the leftovers issues 18 (folding) and 19 (catalogue) say -O1 removes.

Usage: /usr/bin/python3 check_o1.py ONNX_OPT MODEL_DIR [--keep-dir DIR] [--only SUBSTRING]

Checked on the main graph of each optimized model (not inside If and Loop bodies):
  constant-node    a Constant node (lift-constants turns every one into an initializer).
  all-constant     a node whose inputs are all constant: initializers that are not graph inputs,
                   Constant outputs, and outputs of nodes that are themselves all-constant.
                   Exempt: random ops, QuantizeLinear/DequantizeLinear, ops with subgraphs,
                   non-default domains. The size guard may keep a node whose outputs are larger
                   than its constant inputs together and at least 1 MiB: reported, not a failure.
  known-shape      a Shape whose input has a fully known shape after onnx shape inference.
  identity         an Identity, unless its output is a graph output whose name no producer can
                   take (its input is a graph input, an initializer or another graph output).
  dropout          a Dropout whose output is its input: opset 7-11, opset < 7 with is_test,
                   opset 12+ with no training_mode, a constant false one, or a constant ratio
                   of 0; not when its mask is read and the input's shape is unknown (the pass
                   cannot build the all-true mask).
  nop-cast         a Cast to the type its input already has (same exception as identity).
  bn-after-conv    an inference BatchNormalization (one output; training_mode 0 at opset 14+)
                   whose input is a Conv/ConvTranspose output read by nothing else and not a
                   graph output, with constant Conv weight (read by nothing else, or the pass
                   would have to copy it), Conv bias and BatchNormalization parameters.
  reduce-unsqueeze an Unsqueeze that puts back exactly the axes a Reduce*/ArgMax/ArgMin with
                   keepdims=0 removed, the reduction read by nothing else.
Each model gets one line of what remains (op counts) and one line per leftover.
Then `onnx-opt -O2` on each model must leave it no bigger than -O1 does (issue 19: -O2 fuses a
MatMul+Add of N-D activations only where the Flatten/Reshape around the Gemm do not add nodes),
and so no bigger than the export: a larger count fails the model ("o2-growth").
Exit 0 when no model has a failing leftover, 1 otherwise, 2 on a usage or environment error.
"""

import argparse
import collections
import glob
import os
import subprocess
import sys
import tempfile

try:
    import numpy
    import onnx
    from onnx import numpy_helper, shape_inference
except ImportError as error:
    print(f"check_o1.py: {error}: run scripts/setup.sh (Debian's python3-onnx, for "
          f"{sys.executable})", file=sys.stderr)
    sys.exit(2)

SIZE_GUARD_BYTES = 1 << 20
NEVER_FOLDED = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                "Multinomial", "Bernoulli", "QuantizeLinear", "DequantizeLinear"}
CONV_OPS = {"Conv", "ConvTranspose"}


def default_opset(model):
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry.version
    return 1


def has_subgraph(node):
    return any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
               for a in node.attribute)


def attribute(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def tensor_bytes(elem_type, dims):
    """Bytes of a tensor of that type and shape, or None when either is unknown."""
    np_type = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.get(elem_type)
    if np_type is None or np_type == numpy.dtype(object) or dims is None:
        return None
    return int(numpy.prod(dims, dtype=numpy.int64)) * numpy.dtype(np_type).itemsize


class Graph:
    """The facts about one optimized main graph that the checks ask for."""

    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.opset = default_opset(model)
        inferred = shape_inference.infer_shapes(model, strict_mode=False)
        self.types = {}
        for info in (list(inferred.graph.value_info) + list(inferred.graph.input) +
                     list(inferred.graph.output)):
            if info.type.HasField("tensor_type"):
                self.types[info.name] = info.type.tensor_type
        self.graph_inputs = {i.name for i in self.graph.input}
        self.graph_outputs = {o.name for o in self.graph.output}
        self.initializers = {t.name: t for t in self.graph.initializer
                             if t.name not in self.graph_inputs}
        self.producer = {}
        self.readers = collections.defaultdict(list)
        for node in self.graph.node:
            for name in node.output:
                if name:
                    self.producer[name] = node
            for name in node.input:
                if name:
                    self.readers[name].append(node)

    def elem_type(self, name):
        if name in self.initializers:
            return self.initializers[name].data_type
        tensor = self.types.get(name)
        return tensor.elem_type if tensor is not None and tensor.elem_type else None

    def dims(self, name):
        """The static dims of a value, or None when any is unknown."""
        if name in self.initializers:
            return list(self.initializers[name].dims)
        tensor = self.types.get(name)
        if tensor is None or not tensor.HasField("shape"):
            return None
        if not all(d.HasField("dim_value") for d in tensor.shape.dim):
            return None
        return [d.dim_value for d in tensor.shape.dim]

    def rank(self, name):
        """The rank of a value, or None when unknown."""
        tensor = self.types.get(name)
        return len(tensor.shape.dim) if tensor is not None and tensor.HasField("shape") else None

    def size(self, name):
        return tensor_bytes(self.elem_type(name), self.dims(name))

    def constant_value(self, name):
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        node = self.producer.get(name)
        if node is not None and node.op_type == "Constant" and attribute(node, "value"):
            return numpy_helper.to_array(attribute(node, "value"))
        return None

    def is_read(self, name):
        return bool(name) and (bool(self.readers.get(name)) or name in self.graph_outputs)

    def forwarding_allowed(self, node):
        """Whether a pass may replace the node by its first input: an output that must keep
        its name needs a producer that can take the name."""
        source, result = node.input[0], node.output[0]
        if result not in self.graph_outputs:
            return True
        return not (source in self.graph_inputs or source in self.initializers or
                    source in self.graph_outputs or source not in self.producer)


def check_constant_nodes(g):
    return [("constant-node", n, "a Constant node") for n in g.graph.node
            if n.op_type == "Constant"]


def check_all_constant(g):
    """Nodes whose inputs are all constant; the graph is in topological order."""
    constant = set(g.initializers)
    leftovers = []
    for node in g.graph.node:
        inputs = [name for name in node.input if name]
        if node.op_type == "Constant":
            constant.update(node.output)
            continue
        if not all(name in constant for name in inputs):
            continue
        if (node.op_type in NEVER_FOLDED or has_subgraph(node) or
                node.domain not in ("", "ai.onnx")):
            continue
        constant.update(name for name in node.output if name)
        outputs = [g.size(name) for name in node.output if name]
        if any(size is None for size in outputs):
            leftovers.append(("all-constant", node, "inputs all constant (output size unknown)"))
            continue
        out_bytes = sum(outputs)
        in_bytes = sum(g.size(name) or 0 for name in set(inputs))
        if out_bytes > in_bytes and out_bytes >= SIZE_GUARD_BYTES:
            leftovers.append(("size-guard", node,
                              f"kept by the size guard: {out_bytes / 2**20:.1f} MiB of output "
                              f"from {in_bytes / 2**20:.1f} MiB of constant inputs"))
        else:
            leftovers.append(("all-constant", node,
                              f"inputs all constant ({out_bytes} bytes of output)"))
    return leftovers


def check_known_shapes(g):
    leftovers = []
    for node in g.graph.node:
        if node.op_type == "Shape" and g.dims(node.input[0]) is not None:
            leftovers.append(("known-shape", node,
                              f"Shape of a fully known shape {g.dims(node.input[0])}"))
    return leftovers


def check_identities(g):
    return [("identity", n, "an Identity a pass could remove") for n in g.graph.node
            if n.op_type == "Identity" and g.forwarding_allowed(n)]


def dropout_is_identity(g, node):
    if g.opset < 7:
        return bool(attribute(node, "is_test", 0))
    if g.opset < 12:
        return True
    if len(node.input) < 3 or not node.input[2]:
        return True
    if len(node.input) > 1 and node.input[1]:
        ratio = g.constant_value(node.input[1])
        if ratio is not None and ratio.size == 1 and float(ratio.reshape(-1)[0]) == 0.0:
            return True
    training = g.constant_value(node.input[2])
    return training is not None and not bool(training)


def check_dropouts(g):
    leftovers = []
    for node in g.graph.node:
        if node.op_type != "Dropout" or not dropout_is_identity(g, node):
            continue
        mask_read = len(node.output) > 1 and g.is_read(node.output[1])
        if mask_read and g.dims(node.input[0]) is None:
            continue
        if not g.forwarding_allowed(node):
            continue
        leftovers.append(("dropout", node, "a Dropout whose output is its input"))
    return leftovers


def check_nop_casts(g):
    leftovers = []
    for node in g.graph.node:
        if node.op_type != "Cast":
            continue
        source_type = g.elem_type(node.input[0])
        if source_type is not None and source_type == attribute(node, "to") and \
                g.forwarding_allowed(node):
            leftovers.append(("nop-cast", node, "a Cast to the type its input has"))
    return leftovers


def batchnorm_is_inference(g, node):
    read_outputs = [name for name in node.output[1:] if g.is_read(name)]
    if read_outputs:
        return False
    return g.opset < 14 or not attribute(node, "training_mode", 0)


def check_bn_after_conv(g):
    leftovers = []
    for node in g.graph.node:
        if node.op_type != "BatchNormalization" or not batchnorm_is_inference(g, node):
            continue
        conv = g.producer.get(node.input[0])
        if conv is None or conv.op_type not in CONV_OPS or conv.domain not in ("", "ai.onnx"):
            continue
        if len(g.readers[conv.output[0]]) != 1 or conv.output[0] in g.graph_outputs:
            continue
        weight = conv.input[1]
        if weight not in g.initializers or len(g.readers[weight]) != 1:
            continue
        parameters = [name for name in list(conv.input[2:]) + list(node.input[1:]) if name]
        if not all(name in g.initializers for name in parameters):
            continue
        leftovers.append(("bn-after-conv", node,
                          f"a BatchNormalization after {conv.op_type} '{conv.name}'"))
    return leftovers


REDUCTIONS = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
              "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}


def axes_of(g, node):
    """A node's axes: the attribute, or the constant input 1; None when not constant."""
    if len(node.input) > 1 and node.input[1]:
        value = g.constant_value(node.input[1])
        return None if value is None else [int(a) for a in value.flatten()]
    return attribute(node, "axes")


def check_reduce_unsqueezes(g):
    leftovers = []
    for node in g.graph.node:
        reduction = g.producer.get(node.input[0]) if node.op_type == "Unsqueeze" else None
        if reduction is None or attribute(reduction, "keepdims", 1) != 0:
            continue
        if reduction.op_type in ("ArgMax", "ArgMin"):
            reduced = [attribute(reduction, "axis", 0)]
        elif reduction.op_type in REDUCTIONS:
            reduced = axes_of(g, reduction)
        else:
            continue
        restored, rank = axes_of(g, node), g.rank(node.output[0])
        if not reduced or restored is None or rank is None or \
                len(g.readers[reduction.output[0]]) != 1 or reduction.output[0] in g.graph_outputs:
            continue
        if sorted(a % rank for a in reduced) == sorted(a % rank for a in restored):
            leftovers.append(("reduce-unsqueeze", node,
                              f"an Unsqueeze of {reduction.op_type} '{reduction.name}' "
                              "(keepdims=0) putting back its axes"))
    return leftovers


CHECKS = (check_constant_nodes, check_all_constant, check_known_shapes, check_identities,
          check_dropouts, check_nop_casts, check_bn_after_conv, check_reduce_unsqueezes)


def describe(node):
    return f"{node.op_type} '{node.name}' -> {', '.join(node.output)}"


def optimize(onnx_opt, source, target, level="-O1"):
    result = subprocess.run([onnx_opt, level, "-q", source, "-o", target],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return result.stderr.strip() or f"exit status {result.returncode}"
    return None


def check_model(onnx_opt, source, target):
    """Prints the model's lines; returns whether it passed."""
    name = os.path.basename(source)
    error = optimize(onnx_opt, source, target)
    if error is not None:
        print(f"FAIL {name}: onnx-opt -O1 failed: {error}")
        return False
    before = onnx.load(source, load_external_data=False)
    after = onnx.load(target, load_external_data=False)
    try:
        g = Graph(after)
    except onnx.onnx_cpp2py_export.shape_inference.InferenceError as error:
        print(f"FAIL {name}: onnx shape inference failed on the optimized model: {error}")
        return False
    leftovers = [leftover for check in CHECKS for leftover in check(g)]
    o2_target = target[:-len(".onnx")] + ".O2.onnx"
    error = optimize(onnx_opt, source, o2_target, "-O2")
    if error is not None:
        print(f"FAIL {name}: onnx-opt -O2 failed: {error}")
        return False
    o2_nodes = len(onnx.load(o2_target, load_external_data=False).graph.node)
    if o2_nodes > len(after.graph.node):
        leftovers.append(("o2-growth", None, f"-O2 leaves {o2_nodes} nodes, -O1 "
                          f"{len(after.graph.node)} (the export has {len(before.graph.node)})"))
    failing = [item for item in leftovers if item[0] != "size-guard"]
    counts = collections.Counter(n.op_type for n in after.graph.node)
    remains = ", ".join(f"{op} {count}" for op, count in sorted(counts.items()))
    verdict = "FAIL" if failing else "PASS"
    print(f"{verdict} {name}: {len(before.graph.node)} -> {len(after.graph.node)} nodes "
          f"({remains}); -O2: {o2_nodes} nodes")
    by_kind = collections.Counter(kind for kind, _, _ in leftovers)
    if by_kind:
        print("  leftovers: " + ", ".join(f"{kind} {count}" for kind, count in sorted(by_kind.items())))
    for kind, node, why in leftovers:
        print(f"  {kind}: {describe(node) + ': ' if node is not None else ''}{why}")
    return not failing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx_opt")
    parser.add_argument("model_dir")
    parser.add_argument("--keep-dir", help="write the optimized models here (NAME.onnx at -O1, "
                        "NAME.O2.onnx at -O2; default: a temporary directory, removed at the end)")
    parser.add_argument("--only", help="check only the models whose file name contains this")
    options = parser.parse_args()
    if not os.access(options.onnx_opt, os.X_OK):
        print(f"check_o1.py: onnx-opt binary not found: {options.onnx_opt}", file=sys.stderr)
        return 2
    models = sorted(path for path in glob.glob(os.path.join(options.model_dir, "*.onnx"))
                    if not options.only or options.only in os.path.basename(path))
    if not models:
        print(f"check_o1.py: no models in {options.model_dir} (run export.py first)",
              file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="check_o1.") as scratch:
        out_dir = options.keep_dir or scratch
        os.makedirs(out_dir, exist_ok=True)
        results = [check_model(options.onnx_opt, path,
                               os.path.join(out_dir, os.path.basename(path)))
                   for path in models]
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
