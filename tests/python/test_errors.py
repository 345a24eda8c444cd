"""Errors: onnxopt.OptimizeError carries exactly the message onnx-opt prints after
'onnx-opt: error: ' for the same input (a path is named as onnx-opt names it; an in-memory
model is what onnx-opt reads from stdin, minus the '<stdin>: ' it puts in front)."""

import os
import re

import onnx
import pytest

import onnxopt
from conftest import LEGACY_CLASSIFIER, SOURCE_DIR, cli_error

BAD_MODELS = ["dangling_input.onnx", "cycle.onnx", "duplicate_value_names.onnx",
              "unknown_attribute_type.onnx"]


def raised(*args, **kwargs):
    with pytest.raises(onnxopt.OptimizeError) as info:
        onnxopt.optimize(*args, **kwargs)
    assert isinstance(info.value, ValueError)
    return info.value


@pytest.mark.parametrize("pipeline", ["no-such-pass", "fuse-matmul-add-gemm{allow-reshape=maybe}",
                                      "eliminate-dead-nodes,,"])
def test_bad_pipeline(pipeline, tmp_path):
    error = raised(LEGACY_CLASSIFIER, pipeline)
    assert str(error) == cli_error(LEGACY_CLASSIFIER, f"--passes={pipeline}", "-o",
                                   str(tmp_path / "out.onnx"))
    assert error.code == "INVALID_ARGUMENT"


@pytest.mark.parametrize("name", BAD_MODELS)
def test_bad_model_as_a_path_and_as_bytes(name, tmp_path):
    path = os.path.join(SOURCE_DIR, "tests", "cli", "data", name)
    out = str(tmp_path / "out.onnx")
    assert str(raised(path)) == cli_error(path, "-o", out)
    with open(path, "rb") as f:
        data = f.read()
    assert "<stdin>: " + str(raised(data)) == cli_error("-", "-o", out, stdin=data)
    assert not os.path.exists(out)


def test_truncated_and_missing_files(tmp_path):
    truncated = tmp_path / "truncated.onnx"
    with open(LEGACY_CLASSIFIER, "rb") as f:
        truncated.write_bytes(f.read()[:1000])
    out = str(tmp_path / "out.onnx")
    assert str(raised(str(truncated))) == cli_error(str(truncated), "-o", out)
    missing = str(tmp_path / "missing.onnx")
    error = raised(missing)
    assert str(error) == cli_error(missing, "-o", out)
    assert missing in str(error)
    data = truncated.read_bytes()
    assert "<stdin>: " + str(raised(data)) == cli_error("-", "-o", out, stdin=data)


def test_output_that_cannot_be_written(tmp_path):
    out = str(tmp_path / "no-such-folder" / "out.onnx")
    error = raised(LEGACY_CLASSIFIER, output=out)
    assert str(error) == cli_error(LEGACY_CLASSIFIER, "-o", out)
    assert "no-such-folder" in str(error)


def test_a_failed_run_leaves_an_existing_output_alone(tmp_path):
    out = tmp_path / "out.onnx"
    out.write_bytes(b"old")
    raised(LEGACY_CLASSIFIER, "no-such-pass", output=out)
    raised(os.path.join(SOURCE_DIR, "tests", "cli", "data", "cycle.onnx"), output=out)
    assert out.read_bytes() == b"old"


def test_wrong_argument_types():
    with pytest.raises(TypeError, match="int"):
        onnxopt.optimize(42)
    with pytest.raises(TypeError, match="output="):
        onnxopt.optimize(LEGACY_CLASSIFIER, external_data_file="w.bin")
    with pytest.raises(TypeError, match="debug"):
        onnxopt.optimize(LEGACY_CLASSIFIER, debug="yes")


def quoted_in_guide(message):
    """Whether docs/python-api.md quotes `message` in backticks, '...' standing for any text."""
    with open(os.path.join(SOURCE_DIR, "docs", "python-api.md")) as f:
        guide = re.sub(r"```.*?```", "", f.read(), flags=re.DOTALL)  # code blocks, not quotes
    guide = " ".join(guide.split())  # a quote may be wrapped across lines
    for quote in re.findall(r"`([^`]+)`", guide):
        if re.fullmatch(".*".join(re.escape(part) for part in quote.split("...")), message):
            return True
    return False


def test_the_guide_quotes_the_messages_as_they_are(legacy_head, tmp_path, monkeypatch):
    copy = onnx.ModelProto.FromString(legacy_head.SerializeToString())  # onnx.save changes it
    onnx.save(copy, str(tmp_path / "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    refs_only = onnx.load(str(tmp_path / "model.onnx"), load_external_data=False)
    monkeypatch.chdir(os.path.join(SOURCE_DIR, "tests", "cli", "data"))
    with pytest.raises(TypeError) as misspelt:
        onnxopt.optimize(LEGACY_CLASSIFIER, verify_eachh=True)
    with pytest.warns(onnxopt.OptimizeWarning) as cap:
        onnxopt.optimize(legacy_head, max_fixed_point_rounds=1)
    messages = [str(misspelt.value), str(raised(refs_only)), str(raised("dangling_input.onnx")),
                str(raised(LEGACY_CLASSIFIER, "no-such-pass")), str(raised(LEGACY_CLASSIFIER, "-O7")),
                cli_error(LEGACY_CLASSIFIER, "-O7"), str(cap[0].message)]
    for message in messages:
        assert quoted_in_guide(message), message
