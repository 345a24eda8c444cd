"""input_shapes= and dims=: onnx-opt's --input-shape and --dim from Python. Dims fixed before
the pipeline let fold-shapes turn a dynamic-batch export's shape chains into constants, and ONNX
Runtime gives the same outputs at that batch."""

import os

import onnx
import pytest

import onnxopt
from conftest import SOURCE_DIR, cli_error

TRANSFORMER = os.path.join(SOURCE_DIR, "tests", "data", "torch", "transformer_op17_dynbatch.onnx")


def dims_of(value_info):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param
            for d in value_info.type.tensor_type.shape.dim]


def test_input_shapes_fix_the_batch_in_inputs_and_outputs():
    model, report = onnxopt.optimize(TRANSFORMER, "-O0", input_shapes={"input": [2, 7, 16]},
                                     return_report=True)
    assert dims_of(model.graph.input[0]) == [2, 7, 16]
    assert dims_of(model.graph.output[0]) == [2, 7, 16]
    assert report.fixed_dims == [onnxopt.FixedDim("N", "input", 0, 2, 2)]


def test_dims_fix_a_symbol():
    model, report = onnxopt.optimize(TRANSFORMER, "-O0", dims={"N": 3}, return_report=True)
    assert dims_of(model.graph.input[0]) == [3, 7, 16]
    assert report.fixed_dims == [onnxopt.FixedDim("N", "", 0, 3, 2)]


def test_without_them_nothing_is_fixed():
    _, report = onnxopt.optimize(TRANSFORMER, "-O0", return_report=True)
    assert report.fixed_dims == []


@pytest.mark.parametrize("kwargs, flags", [
    ({"input_shapes": {"x": [1, 7, 16]}}, ["--input-shape=x=1,7,16"]),
    ({"input_shapes": {"input": [1, 7]}}, ["--input-shape=input=1,7"]),
    ({"input_shapes": {"input": [1, 8, 16]}}, ["--input-shape=input=1,8,16"]),
    ({"dims": {"M": 2}}, ["--dim=M=2"]),
])
def test_shapes_the_model_does_not_fit_fail_as_the_cli_does(kwargs, flags, tmp_path):
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(TRANSFORMER, **kwargs)
    cli = cli_error(TRANSFORMER, *flags, "-o", str(tmp_path / "out.onnx"))
    assert str(info.value) == cli.replace("--input-shape", "input_shapes").replace("--dim", "dims")
    assert info.value.code == "INVALID_ARGUMENT"


def test_sizes_must_be_positive_ints():
    with pytest.raises(onnxopt.OptimizeError, match="input_shapes: input 'input' dim 0 must be "
                                                    "positive, not 0"):
        onnxopt.optimize(TRANSFORMER, input_shapes={"input": [0, 7, 16]})
    with pytest.raises(TypeError):
        onnxopt.optimize(TRANSFORMER, dims={"N": 2.0})


def test_fixed_batch_folds_shapes_and_ort_agrees_at_that_batch(tmp_path, ort_compare):
    fixed = onnxopt.optimize(TRANSFORMER, "-O0", input_shapes={"input": [2, 7, 16]})
    # fold-shapes, then fold-constants for the Gather/Unsqueeze/Concat chains, to a fixed point.
    folded = onnxopt.optimize(TRANSFORMER, "-O1", input_shapes={"input": [2, 7, 16]})
    shapes_before = sum(n.op_type == "Shape" for n in fixed.graph.node)
    shapes_after = sum(n.op_type == "Shape" for n in folded.graph.node)
    # The Shapes of the attention's Slices stay: their ends come through a Mul chain no fold
    # reaches yet.
    assert shapes_before == 7 and shapes_after <= 2
    onnx.checker.check_model(folded, full_check=True)
    # The reference is the model with only its declarations fixed: ORT feeds both batch 2.
    onnx.save(fixed, tmp_path / "fixed.onnx")
    onnx.save(folded, tmp_path / "folded.onnx")
    ort_compare(tmp_path / "fixed.onnx", tmp_path / "folded.onnx")
