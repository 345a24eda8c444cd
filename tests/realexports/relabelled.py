#!/usr/bin/python3
"""The opset-16 and opset-17 exports relabelled to opsets 18 and 22, where libonnx 1.12 knows
less and onnx-opt's own rules must answer: -O1 must leave no more nodes there than at the
export's own opset.

Usage: /usr/bin/python3 relabelled.py ONNX_OPT MODEL_DIR OUT_DIR [--only SUBSTRING]

Each model of MODEL_DIR whose ONNX opset is 16 or 17 is written to OUT_DIR as
<name>-to18.onnx and <name>-to22.onnx (IR version raised as those opsets need), changed where
its meaning would otherwise change: the reductions' `axes` attribute becomes an input (opset 18;
ReduceSum's already is), a Split without sizes gets `num_outputs` (18), GridSample's modes
`bilinear` and `bicubic` become `linear` and `cubic` (20). Every other operator the exports use
means the same at the newer opset. A model with a RoiAlign goes to 21 instead of 22: ONNX Runtime
(1.30) has no RoiAlign-22 kernel, and the equivalence test runs these models.

Then `onnx-opt -O1` runs on each original and each relabelled model; a relabelled model left
with more nodes than its original fails, beyond the gaps KNOWN_GAPS records (what onnx-opt's
rules do not know yet at the newer opsets; a gap that grows fails, one that shrinks is reported
so that the table can be tightened). Exit 0 when nothing fails, 1 otherwise, 2 on a usage or
environment error.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

try:
    import numpy
    import onnx
    from onnx import helper, numpy_helper
except ImportError as error:
    print(f"relabelled.py: {error}: run scripts/setup.sh (Debian's python3-onnx, for "
          f"{sys.executable})", file=sys.stderr)
    sys.exit(2)

REDUCTIONS_WITH_AXES_INPUT_FROM_18 = {
    "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}
TARGETS = (18, 22)
IR_VERSION_OF_OPSET = {18: 8, 21: 10, 22: 10}
# Relabelled model (without .onnx) -> how many nodes more than its original -O1 leaves today:
# none since the shape oracle's own rules cover what these exports need at opsets 18 to 22.
KNOWN_GAPS = {}


def default_opset(model):
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry
    return None


def relabel_graph(graph, opset, counter):
    for node in graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        if node.op_type in REDUCTIONS_WITH_AXES_INPUT_FROM_18:
            axes = [a for a in node.attribute if a.name == "axes"]
            if axes:
                counter[0] += 1
                name = f"relabelled_axes_{counter[0]}"
                graph.initializer.append(
                    numpy_helper.from_array(numpy.array(axes[0].ints, dtype=numpy.int64), name))
                node.attribute.remove(axes[0])
                node.input.append(name)
        if node.op_type == "Split" and (len(node.input) < 2 or not node.input[1]):
            if not any(a.name == "num_outputs" for a in node.attribute):
                node.attribute.append(helper.make_attribute("num_outputs", len(node.output)))
        if node.op_type == "GridSample" and opset >= 20:
            for a in node.attribute:
                if a.name == "mode" and a.s in (b"bilinear", b"bicubic"):
                    a.s = b"linear" if a.s == b"bilinear" else b"cubic"
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                relabel_graph(a.g, opset, counter)
            for subgraph in a.graphs:
                relabel_graph(subgraph, opset, counter)


def uses(graph, op_type):
    for node in graph.node:
        if node.op_type == op_type:
            return True
        for a in node.attribute:
            subgraphs = ([a.g] if a.type == onnx.AttributeProto.GRAPH else []) + list(a.graphs)
            if any(uses(g, op_type) for g in subgraphs):
                return True
    return False


def relabel(path, out_dir):
    """Writes the relabelled copies of `path`; returns their paths (none for other opsets)."""
    name = os.path.basename(path)[:-len(".onnx")]
    model = onnx.load(path)
    entry = default_opset(model)
    if entry is None or entry.version not in (16, 17):
        return []
    written = []
    for target in TARGETS:
        if target >= 22 and uses(model.graph, "RoiAlign"):
            target = 21
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        default_opset(copy).version = target
        copy.ir_version = max(copy.ir_version, IR_VERSION_OF_OPSET[target])
        relabel_graph(copy.graph, target, [0])
        out = os.path.join(out_dir, f"{name}-to{target}.onnx")
        onnx.save(copy, out)
        written.append(out)
    return written


def nodes_left(onnx_opt, path, scratch):
    run = subprocess.run([onnx_opt, "-O1", path, "-o", scratch], capture_output=True, text=True)
    found = re.search(r": (\d+) -> (\d+) nodes", run.stderr)
    if run.returncode != 0 or not found:
        raise RuntimeError(f"onnx-opt -O1 {path} failed ({run.returncode}): {run.stderr.strip()}")
    return int(found.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx_opt")
    parser.add_argument("model_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    originals = sorted(p for p in glob.glob(os.path.join(args.model_dir, "*.onnx"))
                       if args.only in os.path.basename(p))
    if not originals:
        print(f"FAIL: no models in {args.model_dir} (the realexports.export test writes them)")
        return 1
    os.makedirs(args.out_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(args.out_dir, "*.onnx")):
        os.remove(stale)
    scratch = os.path.join(args.out_dir, "optimized.tmp")
    failures = relabelled_count = 0
    for original in originals:
        copies = relabel(original, args.out_dir)
        if not copies:
            continue
        expected = nodes_left(args.onnx_opt, original, scratch)
        for copy in copies:
            relabelled_count += 1
            name = os.path.basename(copy)[:-len(".onnx")]
            left = nodes_left(args.onnx_opt, copy, scratch)
            gap, known = left - expected, KNOWN_GAPS.get(name, 0)
            verdict = "ok"
            if gap > known:
                verdict = f"FAIL: {gap} more nodes than at the export's opset (known gap {known})"
                failures += 1
            elif gap < known:
                verdict = f"ok, gap {gap} below the known {known}: tighten KNOWN_GAPS"
            print(f"{name}: {left} nodes left, {expected} at the export's opset: {verdict}")
    if os.path.exists(scratch):
        os.remove(scratch)
    print(f"{relabelled_count} relabelled models, {failures} failed")
    return 1 if failures or relabelled_count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
