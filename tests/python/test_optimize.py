"""onnxopt.optimize: torch-exported and legacy models cleaned in memory, checked with the ONNX
checker and against ONNX Runtime; every input form; output=; external data; statistics."""

import io
import os
import pathlib
import sys
import threading
import time

import onnx
import pytest

import onnxopt
from conftest import LEGACY_CLASSIFIER, export, op_types, run_cli


def check_against_ort(original, optimized, tmp_path, ort_compare):
    onnx.checker.check_model(optimized, full_check=True)
    onnx.save(original, tmp_path / "original.onnx")
    onnx.save(optimized, tmp_path / "optimized.onnx")
    ort_compare(tmp_path / "original.onnx", tmp_path / "optimized.onnx")


def test_linear_3d_export_becomes_a_gemm_only_when_growth_is_allowed(linear_3d, tmp_path,
                                                                       ort_compare):
    # -O2 fuses a 3-D MatMul+Add only where the graph gets no bigger: a Flatten and a Reshape
    # around the Gemm of a graph input and output would make three nodes of two.
    optimized = onnxopt.optimize(linear_3d, "-O2")
    assert isinstance(optimized, onnx.ModelProto)
    assert op_types(optimized) == ["MatMul", "Add"]
    grown = onnxopt.optimize(
        linear_3d, "lift-constants,fuse-matmul-add-gemm{allow-reshape=true,allow-growth=true},"
        "fuse-transpose-gemm,fold-constants,eliminate-dead-nodes")
    assert "MatMul" not in op_types(grown) and "Transpose" not in op_types(grown)
    assert "Gemm" in op_types(grown)
    check_against_ort(linear_3d, grown, tmp_path, ort_compare)


def test_view_sandwich_becomes_one_gemm_at_O2(tmp_path, ort_compare):
    """x.view(2, 5, 4) -> nn.Linear -> .reshape(-1, 3): the Gemm reads the 2-D input and gives
    the 2-D result, so -O2 fuses the 3-D MatMul+Add without a Flatten or a Reshape back."""
    import torch

    class ViewLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.linear(x.view(2, 5, 4)).reshape(-1, 3)

    torch.manual_seed(3)
    buffer = io.BytesIO()
    torch.onnx.export(ViewLinear().eval(), (torch.randn(10, 4),), buffer, opset_version=13,
                      input_names=["x"], output_names=["y"])
    model = onnx.load_model_from_string(buffer.getvalue())
    assert [op for op in op_types(model) if op != "Constant"] == ["Reshape", "MatMul", "Add",
                                                                  "Reshape"]
    optimized = onnxopt.optimize(model, "-O2")
    assert op_types(optimized) == ["Gemm"]
    assert op_types(onnxopt.optimize(model, "-O1")) == ["Reshape", "MatMul", "Add", "Reshape"]
    check_against_ort(model, optimized, tmp_path, ort_compare)


def test_dynamic_view_sandwich_fuses_with_a_flatten_at_O2(tmp_path, ort_compare):
    """x [batch, 20] viewed as [batch, 5, 4] -> nn.Linear -> .reshape(-1, 3): the view's source
    is not [P, 4], so the Gemm needs a Flatten, which the reader taking the 2-D result pays
    for (two nodes for two); ONNX Runtime agrees at batch 1 and 3."""
    import torch

    class ViewLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            return self.linear(x.view(x.shape[0], 5, 4)).reshape(-1, 3)

    torch.manual_seed(4)
    model = export(ViewLinear(), torch.randn(2, 20), opset_version=13)
    before = [op for op in op_types(model) if op == "MatMul" or op == "Add"]
    assert before == ["MatMul", "Add"]
    optimized = onnxopt.optimize(model, "-O2")
    assert "MatMul" not in op_types(optimized) and "Gemm" in op_types(optimized)
    assert len(optimized.graph.node) <= len(onnxopt.optimize(model, "-O1").graph.node)
    check_against_ort(model, optimized, tmp_path, ort_compare)


def test_legacy_head_in_one_call(legacy_head, tmp_path, ort_compare):
    optimized = onnxopt.optimize(legacy_head)
    assert op_types(optimized) == ["Gemm", "Relu", "Gemm", "Relu", "Gemm"]
    gemm = optimized.graph.node[0]
    assert [(a.name, a.i) for a in gemm.attribute if a.name == "transB"] == [("transB", 1)]
    check_against_ort(legacy_head, optimized, tmp_path, ort_compare)


def test_the_input_model_is_left_unchanged(legacy_head):
    before = legacy_head.SerializeToString()
    onnxopt.optimize(legacy_head)
    assert legacy_head.SerializeToString() == before


def test_every_input_form_gives_what_the_cli_writes(tmp_path):
    cli_out = tmp_path / "cli.onnx"
    assert run_cli(LEGACY_CLASSIFIER, "-o", str(cli_out), "-q").returncode == 0
    expected = cli_out.read_bytes()
    with open(LEGACY_CLASSIFIER, "rb") as f:
        data = f.read()
    inputs = {"path str": LEGACY_CLASSIFIER, "PathLike": pathlib.Path(LEGACY_CLASSIFIER),
              "bytes": data, "bytearray": bytearray(data), "memoryview": memoryview(data),
              "ModelProto": onnx.load_model_from_string(data)}
    for form, model in inputs.items():
        assert onnxopt.optimize(model).SerializeToString() == expected, form


def test_output_writes_the_file_the_cli_writes(tmp_path):
    cli_out, py_out = tmp_path / "cli.onnx", tmp_path / "py.onnx"
    assert run_cli(LEGACY_CLASSIFIER, "-o", str(cli_out), "-q", "-O2").returncode == 0
    assert onnxopt.optimize(LEGACY_CLASSIFIER, "-O2", output=py_out) is None
    assert py_out.read_bytes() == cli_out.read_bytes()
    # An in-memory model too; the output may be the input file.
    onnxopt.optimize(py_out.read_bytes(), "-O0", output=py_out)
    assert py_out.read_bytes() == cli_out.read_bytes()


def save_with_external_data(model, folder):
    folder.mkdir()
    path = folder / "model.onnx"
    model = onnx.ModelProto.FromString(model.SerializeToString())  # onnx.save changes the model
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    return path


def test_external_data_of_a_path_resolves_against_its_folder(legacy_head, tmp_path):
    path = save_with_external_data(legacy_head, tmp_path / "in")
    optimized = onnxopt.optimize(path)
    # The returned model holds its weights: nothing in it refers to a file.
    assert all(t.data_location != onnx.TensorProto.EXTERNAL for t in optimized.graph.initializer)
    assert optimized.SerializeToString() == onnxopt.optimize(legacy_head).SerializeToString()


def test_output_gets_its_external_data_next_to_it_as_the_cli_does(legacy_head, tmp_path):
    path = save_with_external_data(legacy_head, tmp_path / "in")
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    cli_out, py_out = tmp_path / "cli" / "out.onnx", tmp_path / "py" / "out.onnx"
    assert run_cli(str(path), "-o", str(cli_out), "-q").returncode == 0
    onnxopt.optimize(path, output=py_out)
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(tmp_path / "cli"))
    assert sorted(os.listdir(tmp_path / "py")) == ["out.onnx", "out.onnx.data"]
    for name in os.listdir(tmp_path / "cli"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    loaded = onnx.load(str(py_out))  # onnx reads the data back from next to the output
    assert op_types(loaded) == op_types(onnxopt.optimize(legacy_head))


def test_in_memory_external_data_needs_base_dir(legacy_head, tmp_path):
    path = save_with_external_data(legacy_head, tmp_path / "in")
    refs_only = onnx.load(path, load_external_data=False)
    with pytest.raises(onnxopt.OptimizeError, match="no external data folder was given"):
        onnxopt.optimize(refs_only)
    optimized = onnxopt.optimize(refs_only, base_dir=tmp_path / "in")
    assert optimized.SerializeToString() == onnxopt.optimize(legacy_head).SerializeToString()
    with pytest.raises(TypeError, match="base_dir"):
        onnxopt.optimize(path, base_dir=tmp_path)


def test_report_has_the_statistics_of_every_pass(legacy_head):
    optimized, report = onnxopt.optimize(legacy_head, return_report=True)
    assert isinstance(report, onnxopt.Report)
    passes = {run.pass_text for run in report.runs}
    assert passes == {p for p in onnxopt.list_pipelines()[1].passes.split(",")}
    assert report.changed and report.reached_fixed_point and report.rounds == 2
    removed = sum(run.statistics.nodes_removed for run in report.runs)
    assert removed == len(legacy_head.graph.node) - len(optimized.graph.node)
    rewritten = {run.pass_text: run.statistics.nodes_rewritten for run in report.runs
                 if run.round == 1}
    assert rewritten["fuse-transpose-gemm"] == 3 and rewritten["eliminate-nop-expand"] == 3
    assert "fuse-transpose-gemm" in report.format_statistics()
    assert "fuse-transpose-gemm" in report.format_timings()


def test_statistics_table_is_the_clis(tmp_path):
    """format_statistics() prints what --pass-statistics does, up to the time column."""
    _, report = onnxopt.optimize(LEGACY_CLASSIFIER, return_report=True)
    cli = run_cli(LEGACY_CLASSIFIER, "-o", str(tmp_path / "out.onnx"), "-q", "--pass-statistics")

    def counts(table):  # every line without its last column (seconds)
        return [line.rsplit(None, 1)[0] for line in table.splitlines() if line.strip()]

    assert counts(report.format_statistics()) == counts(cli.stderr.decode())


def test_named_pipelines_run_to_a_fixed_point_and_text_once_unless_asked(legacy_head):
    _, named = onnxopt.optimize(legacy_head, "-O1", return_report=True)
    text = onnxopt.list_pipelines()[1].passes
    _, once = onnxopt.optimize(legacy_head, text, return_report=True)
    _, repeated = onnxopt.optimize(legacy_head, text, fixed_point=True, return_report=True)
    assert (named.rounds, once.rounds, repeated.rounds) == (2, 1, 2)


def test_hitting_the_round_cap_warns_and_fails_with_require_convergence(legacy_head):
    """The messages name the keyword argument that sets the cap, not onnx-opt's flag."""
    cap = r"still changed the model after 1 rounds \(the max_fixed_point_rounds cap\)$"
    with pytest.warns(onnxopt.OptimizeWarning, match=cap):
        onnxopt.optimize(legacy_head, max_fixed_point_rounds=1)
    with pytest.raises(onnxopt.OptimizeError, match=cap):
        onnxopt.optimize(legacy_head, max_fixed_point_rounds=1, require_convergence=True)


def test_the_namespace_is_the_api():
    assert {name for name in dir(onnxopt) if not name.startswith("_")} == set(onnxopt.__all__)


def test_verify_each_runs(legacy_head):
    assert op_types(onnxopt.optimize(legacy_head, verify_each=True)) == \
        op_types(onnxopt.optimize(legacy_head))


def test_debug_lines_are_the_clis(tmp_path, capfd):
    lines = []
    onnxopt.optimize(LEGACY_CLASSIFIER, debug=lines.append)
    cli = run_cli(LEGACY_CLASSIFIER, "-o", str(tmp_path / "out.onnx"), "-q", "--debug")
    prefix = "onnx-opt: debug: "
    cli_lines = [l[len(prefix):] for l in cli.stderr.decode().splitlines() if l.startswith(prefix)]
    assert lines and lines == cli_lines
    onnxopt.optimize(LEGACY_CLASSIFIER, debug=True)
    assert capfd.readouterr().err.splitlines() == [prefix + line for line in lines]


def test_an_exception_in_the_debug_callback_is_raised():
    def fail(line):
        raise KeyError(line)

    with pytest.raises(KeyError):
        onnxopt.optimize(LEGACY_CLASSIFIER, debug=fail)


def test_unknown_keyword_is_a_type_error_naming_it(legacy_head):
    with pytest.raises(TypeError, match="verify_eachh"):
        onnxopt.optimize(legacy_head, verify_eachh=True)


def test_list_passes_is_the_clis():
    cli = run_cli("--list-passes").stdout.decode()
    passes = onnxopt.list_passes()
    assert [p.name for p in passes] == sorted(p.name for p in passes)
    for p in passes:
        assert f"  {p.name}\n      {p.summary}\n" in cli
        for o in p.options:
            assert (f"      option {o.name} ({o.type}, default {o.default}): {o.description}\n"
                    in cli)
    options = {p.name: {o.name: o for o in p.options} for p in passes}
    assert options["fuse-matmul-add-gemm"]["allow-reshape"].default == "false"
    assert options["fuse-matmul-add-gemm"]["allow-growth"].default == "false"
    assert [p.name for p in onnxopt.list_pipelines()] == ["-O0", "-O1", "-O2"]


def test_the_gil_is_released_while_optimizing(legacy_head):
    """Another thread runs while optimize() is inside the C++ code, between two debug lines.
    With a switch interval longer than the test, a thread holding the GIL never hands it over:
    the other thread can only run when the GIL is released, and it notes whether optimize() was
    then in C++ (not in the debug callback)."""
    data = legacy_head.SerializeToString()
    state = {"in_native": False, "in_callback": False, "seen_in_native": 0, "stop": False}

    def spin():
        while not state["stop"]:
            if state["in_native"] and not state["in_callback"]:
                state["seen_in_native"] += 1
            time.sleep(0)  # releases the GIL, so that optimize() can take it back

    def callback(line):
        state["in_callback"] = True
        state["in_callback"] = False

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    thread = threading.Thread(target=spin)
    thread.start()
    try:
        for _ in range(50):
            state["in_native"] = True
            onnxopt.optimize(data, debug=callback)
            state["in_native"] = False
            if state["seen_in_native"]:
                break
    finally:
        state["stop"] = True
        sys.setswitchinterval(old_interval)
        thread.join()
    assert state["seen_in_native"] > 0
