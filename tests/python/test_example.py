"""examples/python/export_and_optimize.py, the script a PyTorch user pastes from, runs and gives
a smaller model that ONNX Runtime computes the same outputs with. It runs in this process:
a second torch import would cost seconds."""

import importlib.util
import os

import onnx

from conftest import SOURCE_DIR, op_types


def test_the_pytorch_example(tmp_path, capsys, ort_compare):
    spec = importlib.util.spec_from_file_location(
        "export_and_optimize", os.path.join(SOURCE_DIR, "examples", "python",
                                            "export_and_optimize.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "model.onnx"
    exported, optimized = example.main(str(out))

    saved = onnx.load(str(out))
    assert saved == optimized
    onnx.checker.check_model(saved, full_check=True)
    assert "Expand" in op_types(exported) and "Expand" not in op_types(saved)
    assert len(saved.graph.node) < len(exported.graph.node)
    assert f"{len(exported.graph.node)} nodes -> {len(saved.graph.node)} nodes" in \
        capsys.readouterr().out
    onnx.save(exported, str(tmp_path / "exported.onnx"))
    ort_compare(tmp_path / "exported.onnx", out)
