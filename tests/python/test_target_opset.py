"""target_opset=: onnx-opt's --target-opset from Python (docs/targets.md). The upgraded model is
the one the command line writes, and refusals raise OptimizeError with its message."""

import os

import onnx
import pytest

import onnxopt
from conftest import SOURCE_DIR, cli_error, run_cli

TORCH = os.path.join(SOURCE_DIR, "tests", "data", "torch")
TRANSFORMER_13 = os.path.join(TORCH, "transformer_op13_dynbatch.onnx")
TRANSFORMER_17 = os.path.join(TORCH, "transformer_op17_dynbatch.onnx")


def default_opset(model):
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def test_target_opset_raises_the_opset_as_the_cli_does(tmp_path):
    model = onnxopt.optimize(TRANSFORMER_13, "-O1", target_opset=17)
    assert default_opset(model) == 17
    assert model.ir_version == 8
    onnx.checker.check_model(model, full_check=True)
    written = tmp_path / "python.onnx"
    assert onnxopt.optimize(TRANSFORMER_13, "-O1", target_opset=17, output=written) is None
    out = tmp_path / "cli.onnx"
    result = run_cli(TRANSFORMER_13, "-O1", "--target-opset=17", "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert written.read_bytes() == out.read_bytes()


def test_without_it_the_opset_stays():
    assert default_opset(onnxopt.optimize(onnx.load(TRANSFORMER_13))) == 13


@pytest.mark.parametrize("model, opset", [(TRANSFORMER_17, 13), (TRANSFORMER_13, 18)])
def test_refusals_raise_the_cli_message(model, opset, tmp_path):
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(model, target_opset=opset)
    cli = cli_error(model, f"--target-opset={opset}", "-o", str(tmp_path / "out.onnx"))
    assert str(info.value) == cli.replace("--target-opset", "target_opset")
    assert info.value.code == "INVALID_ARGUMENT"


def test_target_opset_must_be_an_int():
    with pytest.raises(TypeError):
        onnxopt.optimize(TRANSFORMER_13, target_opset="17")


def test_opset11_dynamic_batch_transformer_upgrades(tmp_path, ort_compare):
    # ONNX 1.12's Softmax 12 -> 13 adapter needs its input's rank, which ONNX's shape inference
    # does not find behind the attention's Slice of computed bounds; onnx-opt's does.
    model = os.path.join(TORCH, "transformer_op11_dynbatch.onnx")
    out = tmp_path / "out.onnx"
    result = run_cli(model, "--target-opset=17", "--target=ort", "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert default_opset(onnx.load(out)) == 17
    ort_compare(model, out)


def test_softmax_of_unknown_rank_is_refused_naming_the_op(tmp_path):
    # Where no analysis knows the rank (an input declared without a shape), the run fails with
    # the adapter's message, and writes nothing.
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Softmax", ["X"], ["Y"])], "g",
        [onnx.helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, None)],
        [onnx.helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, None)])
    model = tmp_path / "unranked.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 11)]), model)
    out = tmp_path / "out.onnx"
    message = cli_error(str(model), "--target-opset=17", "-o", str(out))
    assert "Softmax" in message and "from 11 to 17" in message, message
    assert not out.exists()
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(str(model), target_opset=17)
    assert "Softmax" in str(info.value)
