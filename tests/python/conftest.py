"""Shared pieces of the Python module's tests: the onnx-opt binary to compare with, small models
exported with torch.onnx.export (once per session: importing torch takes seconds), and ONNX
Runtime through the equivalence harness (tests/equivalence/compare.mjs; there is no
onnxruntime Python package here).

CTest sets ONNXOPT_CLI, ONNXOPT_BUILD_DIR, ONNXOPT_SOURCE_DIR and PYTHONPATH (the build tree's
package); see tests/python/CMakeLists.txt.
"""

import importlib.util
import io
import os
import shutil
import subprocess

import onnx
import pytest

SOURCE_DIR = os.environ.get("ONNXOPT_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(
                                os.path.abspath(__file__)))))
CLI = os.environ.get("ONNXOPT_CLI", "")
BUILD_DIR = os.environ.get("ONNXOPT_BUILD_DIR", "")
EQUIVALENCE_DIR = os.path.join(SOURCE_DIR, "tests", "equivalence")
LEGACY_CLASSIFIER = os.path.join(SOURCE_DIR, "examples", "legacy_classifier.onnx")


def run_cli(*args, stdin=None):
    """Runs onnx-opt; returns the CompletedProcess (stdout and stderr as bytes)."""
    if not CLI:
        pytest.fail("ONNXOPT_CLI is not set: run the tests through ctest")
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, check=False)


def cli_error(*args, stdin=None):
    """The message of onnx-opt's 'onnx-opt: error: <message>' line for this command line."""
    result = run_cli(*args, stdin=stdin)
    assert result.returncode != 0, f"onnx-opt {args} succeeded"
    first = result.stderr.decode().splitlines()[0]
    prefix = "onnx-opt: error: "
    assert first.startswith(prefix), first
    return first[len(prefix):]


def op_types(model):
    return [node.op_type for node in model.graph.node]


def export(module, example, path=None, **kwargs):
    """torch.onnx.export of `module` (eval mode) with a dynamic batch; returns the ModelProto."""
    import torch

    buffer = io.BytesIO()
    torch.onnx.export(module.eval(), example, buffer, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, **kwargs)
    return onnx.load_model_from_string(buffer.getvalue())


@pytest.fixture(scope="session")
def linear_3d():
    """nn.Linear on a 3-D input without constant folding: Transpose(weight) -> MatMul -> Add."""
    import torch

    torch.manual_seed(7)
    model = export(torch.nn.Linear(8, 4), torch.randn(2, 5, 8), opset_version=13,
                   do_constant_folding=False)
    assert op_types(model) == ["Transpose", "MatMul", "Add"]
    return model


@pytest.fixture(scope="session")
def legacy_head():
    """The legacy exporter form of a classifier head, built by hand (torch 1.13 no longer
    exports it): Transpose(W) -> Gemm, Expand(b) -> Gemm's C, per layer; see examples/."""
    spec = importlib.util.spec_from_file_location(
        "make_legacy_classifier", os.path.join(SOURCE_DIR, "examples", "make_legacy_classifier.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.build_model()
    assert op_types(model).count("Transpose") == 3 and op_types(model).count("Expand") == 3
    return model


@pytest.fixture(scope="session")
def ort_compare():
    """compare(original_path, optimized_path): the two models give the same outputs under ONNX
    Runtime on seeded random inputs (tests/equivalence/compare.mjs)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (tests/equivalence/install.sh installs it)")
    subprocess.run(["bash", os.path.join(EQUIVALENCE_DIR, "install.sh"), "--no-system"],
                   check=True, capture_output=True)

    def compare(original, optimized):
        result = subprocess.run(["node", os.path.join(EQUIVALENCE_DIR, "compare.mjs"),
                                 os.fspath(original), os.fspath(optimized)],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.startswith("PASS"), result.stdout

    return compare
