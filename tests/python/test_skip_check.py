"""skip= and check= (onnx-opt's --skip and --no-check), and the groups of list_passes()."""

import onnx
import onnx.parser
import pytest

import onnxopt
from conftest import cli_error, op_types, run_cli

TRANSPOSE_GEMM = """
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] A, float[3, 3] B, float[3] C, float[2, 2] X) => (float[2, 3] Y) {
  Bt = Transpose<perm = [1, 0]>(B)
  Y = Gemm(A, Bt, C)
}
"""

# A Transpose whose perm is no permutation of its input's axes, and a Gemm whose transB is a
# float, which -O1's fuse-transpose-gemm reads, and fails on unless it is left alone.
MALFORMED = """
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] A, float[3, 3] B, float[3] C, float[2, 2] X) => (float[2, 3] Y, float[2, 2] o) {
  i = Transpose<perm = [0, 0]>(X)
  o = Transpose<perm = [1, 0]>(i)
  Bt = Transpose<perm = [1, 0]>(B)
  Y = Gemm<transB = 1.0>(A, Bt, C)
}
"""


def test_skip_leaves_a_pass_out(tmp_path):
    model = onnx.parser.parse_model(TRANSPOSE_GEMM)
    assert op_types(onnxopt.optimize(model)) == ["Gemm"]
    kept = onnxopt.optimize(model, skip=["fuse-transpose-gemm"])
    assert op_types(kept) == ["Transpose", "Gemm"]
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    onnxopt.optimize(path, skip=["fuse-transpose-gemm"], output=tmp_path / "py.onnx")
    assert run_cli(str(path), "--skip=fuse-transpose-gemm", "-q", "-o",
                   str(tmp_path / "cli.onnx")).returncode == 0
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()


@pytest.mark.parametrize("skip", [["no-such-pass"], ["fuse-gelu"]])
def test_skip_errors_are_the_clis(skip, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(onnx.parser.parse_model(TRANSPOSE_GEMM), path)
    with pytest.raises(onnxopt.OptimizeError) as error:
        onnxopt.optimize(path, skip=skip)
    assert error.value.code == "INVALID_ARGUMENT"
    expected = cli_error(str(path), "--skip=" + skip[0], "-o", str(tmp_path / "out.onnx"))
    assert expected.startswith("--skip: ")
    assert str(error.value) == "skip: " + expected[len("--skip: "):]
    assert f"'{skip[0]}'" in str(error.value)


def test_skip_takes_a_list_not_a_str():
    with pytest.raises(TypeError, match="list of pass names"):
        onnxopt.optimize(onnx.parser.parse_model(TRANSPOSE_GEMM), skip="fuse-transpose-gemm")


def test_a_malformed_node_is_an_error_unless_check_is_off(tmp_path):
    model = onnx.parser.parse_model(MALFORMED)
    path = tmp_path / "bad.onnx"
    onnx.save(model, path)
    with pytest.raises(onnxopt.OptimizeError) as error:
        onnxopt.optimize(path, output=tmp_path / "out.onnx")
    assert str(error.value) == cli_error(str(path), "-o", str(tmp_path / "out.onnx"))
    assert "node with output 'i' (Transpose): perm [0,0] is not a permutation" in str(error.value)
    assert error.value.code == "INVALID_ARGUMENT"
    assert not (tmp_path / "out.onnx").exists()
    with pytest.raises(onnxopt.OptimizeError, match="perm"):
        onnxopt.optimize(model)

    optimized = onnxopt.optimize(model, check=False, require_convergence=True)
    assert [onnx.helper.printable_node(n) for n in optimized.graph.node] == \
        [onnx.helper.printable_node(n) for n in model.graph.node]
    onnxopt.optimize(path, check=False, output=tmp_path / "py.onnx")
    assert run_cli(str(path), "--no-check", "-q", "-o", str(tmp_path / "cli.onnx")).returncode == 0
    assert (tmp_path / "py.onnx").read_bytes() == (tmp_path / "cli.onnx").read_bytes()


def test_list_passes_gives_each_pass_its_group():
    groups = {p.name: p.group for p in onnxopt.list_passes()}
    assert groups["eliminate-dead-nodes"] == "elimination"
    assert groups["fuse-transpose-gemm"] == "fusion"
    assert groups["fold-constants"] == "folding"
    assert groups["lift-constants"] == "folding"
    assert groups["legalize-subgraph-outputs"] == "legalization"
    assert all(groups.values()), [name for name, group in groups.items() if not group]
