"""target=: onnx-opt's --target from Python (docs/targets.md): the same pipelines, the same
models written, the TensorRT findings of the --report file on the report, the same errors."""

import json
import os

import onnx
import pytest

import onnxopt
from conftest import SOURCE_DIR, cli_error, run_cli

TORCH = os.path.join(SOURCE_DIR, "tests", "data", "torch")
TRANSFORMER_13 = os.path.join(TORCH, "transformer_op13_dynbatch.onnx")
TARGETS = ["generic", "ort", "tensorrt"]


def count(model, op_type):
    return sum(node.op_type == op_type for node in model.graph.node)


def test_list_targets_gives_the_pipelines_the_cli_runs():
    targets = onnxopt.list_targets()
    assert [t.name for t in targets] == TARGETS
    for target in targets:
        result = run_cli(f"--target={target.name}", "--print-pipeline")
        assert result.returncode == 0, result.stderr
        assert target.passes == result.stdout.decode().strip()
        assert target.summary


@pytest.mark.parametrize("target", TARGETS)
def test_target_writes_what_the_cli_writes(target, tmp_path):
    written = tmp_path / "python.onnx"
    assert onnxopt.optimize(TRANSFORMER_13, target=target, output=written) is None
    out = tmp_path / "cli.onnx"
    result = run_cli(TRANSFORMER_13, f"--target={target}", "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert written.read_bytes() == out.read_bytes()


def test_ort_target_after_target_opset_fuses_every_layer_norm():
    model = onnxopt.optimize(TRANSFORMER_13, target_opset=17, target="ort")
    assert count(model, "LayerNormalization") == 2
    assert count(model, "ReduceMean") == 0
    generic = onnxopt.optimize(TRANSFORMER_13, target_opset=17, target="generic")
    assert count(generic, "LayerNormalization") == 0


def test_tensorrt_findings_are_the_report_files(tmp_path):
    _, report = onnxopt.optimize(TRANSFORMER_13, target="tensorrt", return_report=True)
    findings = report.tensorrt
    assert isinstance(findings, onnxopt.TensorRtFindings)
    assert findings.dynamic_dims, "the export has a dynamic batch"
    report_file = tmp_path / "report.json"
    result = run_cli(TRANSFORMER_13, "--target=tensorrt", "-o", str(tmp_path / "out.onnx"),
                     "-q", "--report", str(report_file))
    assert result.returncode == 0, result.stderr
    expected = json.loads(report_file.read_text())["tensorrt"]
    assert [dim._asdict() for dim in findings.dynamic_dims] == expected["dynamic_dims"]
    assert findings.int64_initializers == expected["int64_initializers"]
    assert ([value._asdict() for value in findings.int64_outside_int32]
            == expected["int64_outside_int32"])
    assert findings.int64_unread == expected["int64_unread"]
    assert findings.non_onnx_ops == expected["non_onnx_ops"]
    assert findings.double_tensors == expected["double_tensors"]


def test_tensorrt_findings_follow_the_fixed_dims():
    _, report = onnxopt.optimize(TRANSFORMER_13, target="tensorrt", return_report=True)
    dynamic = {dim.input for dim in report.tensorrt.dynamic_dims}
    assert dynamic
    shapes = {}
    for value in onnx.load(TRANSFORMER_13).graph.input:
        dims = value.type.tensor_type.shape.dim
        shapes[value.name] = [d.dim_value if d.HasField("dim_value") else 2 for d in dims]
    _, fixed = onnxopt.optimize(TRANSFORMER_13, target="tensorrt", input_shapes=shapes,
                                return_report=True)
    assert fixed.tensorrt.dynamic_dims == []


@pytest.mark.parametrize("target", [None, "generic", "ort"])
def test_only_the_tensorrt_target_reports_findings(target):
    _, report = onnxopt.optimize(TRANSFORMER_13, target=target, return_report=True)
    assert report.tensorrt is None


def test_unknown_target_raises_the_cli_message(tmp_path):
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(TRANSFORMER_13, target="tpu")
    assert str(info.value) == cli_error(TRANSFORMER_13, "--target=tpu",
                                        "-o", str(tmp_path / "out.onnx"))
    assert info.value.code == "INVALID_ARGUMENT"


def test_target_with_another_pipeline_is_refused():
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(TRANSFORMER_13, "-O2", target="ort")
    assert "the target 'ort' is a pipeline of its own" in str(info.value)
    assert "'-O2'" in str(info.value)
    assert info.value.code == "INVALID_ARGUMENT"


def test_target_must_be_a_str():
    with pytest.raises(TypeError):
        onnxopt.optimize(TRANSFORMER_13, target=1)


# ---- torch exports made here (issue 20's done-when): one LayerNormalization per norm layer,
# no ReduceMean left, and ONNX Runtime gives the export's outputs (rtol 1e-4, atol 1e-5:
# tests/equivalence/lib/harness.mjs).

def torch_encoder():
    import torch

    torch.manual_seed(11)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    randomize_layer_norms(model)
    return model, torch.randn(5, 2, 16), {0: "seq", 1: "batch"}


class GptBlock:
    """A pre-norm GPT block: nn.LayerNorm, MultiheadAttention, an MLP with nn.GELU."""

    @staticmethod
    def make(approximate):
        import torch
        from torch import nn

        class Block(nn.Module):
            def __init__(self, h=16, heads=2):
                super().__init__()
                self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
                self.attn = nn.MultiheadAttention(h, heads, batch_first=True)
                self.mlp = nn.Sequential(nn.Linear(h, 4 * h), nn.GELU(approximate=approximate),
                                         nn.Linear(4 * h, h))

            def forward(self, x):
                a = self.ln1(x)
                x = x + self.attn(a, a, a, need_weights=False)[0]
                return x + self.mlp(self.ln2(x))

        torch.manual_seed(12)
        model = Block()
        randomize_layer_norms(model)
        return model, torch.randn(2, 5, 16), {0: "batch", 1: "seq"}


def randomize_layer_norms(model):
    """Fresh LayerNorms have scale 1 and bias 0, which would hide a scale/bias mix-up."""
    import torch

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)


def export_to(path, make, opset):
    import warnings

    import torch

    model, example, dynamic = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model.eval(), (example,), str(path), opset_version=opset,
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": dynamic, "y": dynamic})
    return path


# name -> (builder, export opset, norm layers)
TORCH_CASES = {
    "encoder_opset17": (torch_encoder, 17, 4),
    "encoder_opset13": (torch_encoder, 13, 4),
    "gpt_block_gelu_none_opset17": (lambda: GptBlock.make("none"), 17, 2),
    "gpt_block_gelu_tanh_opset17": (lambda: GptBlock.make("tanh"), 17, 2),
}


@pytest.mark.parametrize("name", TORCH_CASES)
def test_ort_target_on_torch_exports(name, tmp_path, ort_compare):
    make, opset, norms = TORCH_CASES[name]
    source = export_to(tmp_path / f"{name}.onnx", make, opset)
    target_opset = 17 if opset < 17 else None
    if opset < 17:
        assert count(onnx.load(source), "ReduceMean") == 2 * norms, "torch decomposes it before 17"
    optimized = tmp_path / f"{name}.ort.onnx"
    args = ["--target=ort", "-o", str(optimized), "-q"]
    if target_opset:
        args.append(f"--target-opset={target_opset}")
    result = run_cli(str(source), *args)
    assert result.returncode == 0, result.stderr
    model = onnx.load(optimized)
    assert count(model, "LayerNormalization") == norms
    assert count(model, "ReduceMean") == 0
    # Python writes what the command line writes.
    written = tmp_path / f"{name}.python.onnx"
    onnxopt.optimize(str(source), target="ort", target_opset=target_opset, output=written)
    assert written.read_bytes() == optimized.read_bytes()
    ort_compare(source, optimized)
