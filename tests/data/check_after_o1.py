#!/usr/bin/python3
"""Optimizes every committed test model with `onnx-opt -O1` and checks the result's op counts
(main graph and subgraphs) against expected_counts.json, and that ONNX's checker accepts it.

Usage: /usr/bin/python3 tests/data/check_after_o1.py path/to/onnx-opt
Numerical equivalence of the same models is checked by tests/equivalence (ONNX Runtime).
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))


def histogram(graph, counts):
    for node in graph.node:
        counts[node.op_type] += 1
        for attribute in node.attribute:
            if attribute.HasField("g"):
                histogram(attribute.g, counts)
            for subgraph in attribute.graphs:
                histogram(subgraph, counts)
    return counts


def main():
    tool = sys.argv[1]
    expected = json.load(open(os.path.join(HERE, "expected_counts.json")))["models"]
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in sorted(expected):
            out = os.path.join(scratch, "out.onnx")
            run = subprocess.run([tool, os.path.join(HERE, name), "-O1", "--verify-each",
                                  "--require-convergence", "--quiet", "-o", out],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name}: onnx-opt exited {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            model = onnx.load(out)
            got = dict(histogram(model.graph, collections.Counter()))
            want = expected[name]["after_O1"]
            if got != want:
                print(f"FAIL {name}: after -O1 {sorted(got.items())}, expected {sorted(want.items())}")
                failures += 1
                continue
            try:
                onnx.checker.check_model(model)
            except onnx.checker.ValidationError as error:
                print(f"FAIL {name}: the checker rejects the output: {str(error).splitlines()[0]}")
                failures += 1
    print(f"{len(expected) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
