"""onnx-opt from Python: clean up an exported ONNX model in one call.

    import onnxopt
    model = onnxopt.optimize(model)          # an onnx.ModelProto, bytes, or a path

See docs/python-api.md. The work is done by the native extension onnxopt._onnxopt (the C++
library, with the GIL released); this file converts between onnx.ModelProto and bytes and gives
the calls their Python signatures.
"""

# Imported under private names: the module's namespace is its API (dir(onnxopt)).
import collections as _collections
import os as _os
import sys as _sys
import warnings as _warnings

from . import _onnxopt
from ._onnxopt import OptimizeError, PassRun, PassStatistics, Report

__all__ = ["optimize", "list_passes", "list_pipelines", "list_targets", "OptimizeError",
           "OptimizeWarning", "Report", "PassRun", "PassStatistics", "PassInfo", "PassOption",
           "Pipeline", "Target", "FixedDim", "TensorRtFindings", "DynamicDim", "Int64Value"]
__version__ = _onnxopt.__version__


class OptimizeWarning(UserWarning):
    """What onnx-opt prints as 'onnx-opt: warning: ...' (a rewrite or the fixed-point loop did
    not converge, ...). The run still succeeded."""


PassInfo = _collections.namedtuple("PassInfo", "name summary options group")
PassOption = _collections.namedtuple("PassOption", "name type default description")
Pipeline = _collections.namedtuple("Pipeline", "name passes summary")
FixedDim = _collections.namedtuple("FixedDim", "symbol input index value declarations")
Target = _collections.namedtuple("Target", "name passes summary")
TensorRtFindings = _collections.namedtuple(
    "TensorRtFindings", "dynamic_dims int64_initializers int64_outside_int32 int64_unread "
                        "non_onnx_ops double_tensors")
DynamicDim = _collections.namedtuple("DynamicDim", "input index symbol")
Int64Value = _collections.namedtuple("Int64Value", "name value")


def optimize(model, passes="-O1", *, output=None, base_dir=None, verify_each=False,
             fixed_point=False, max_fixed_point_rounds=64, require_convergence=False,
             debug=False, external_data_file=None, input_shapes=None, dims=None,
             skip=None, check=True, target_opset=None, target=None, return_report=False):
    """Optimizes `model` and returns the result as a new onnx.ModelProto.

    model: an onnx.ModelProto (left unchanged), the serialized model (bytes, bytearray,
        memoryview), or the path of a model file (str or os.PathLike).
    passes: a named pipeline ("-O0", "-O1", "-O2") or pipeline text
        ("fuse-transpose-gemm,eliminate-dead-nodes{max-iterations=3}"), as onnx-opt's -O<n> and
        --passes=.
    output: a path: the result is written there (atomically, its external data next to it, as
        `onnx-opt -o`) instead of being returned; optimize() then returns None.
    base_dir: the folder that the external data of an in-memory model resolves against (a path's
        external data resolves against the path's folder).
    verify_each, require_convergence, debug: onnx-opt's --verify-each, --require-convergence and
        --debug. debug=True prints the lines to sys.stderr as onnx-opt does; a callable gets
        each line instead.
    fixed_point: repeat pipeline text until a round changes nothing, at most
        max_fixed_point_rounds rounds, as a named pipeline always is (onnx-opt's --fixed-point).
    external_data_file: with output=, the file name for weights moved out of a model over 2 GiB
        (default: "<output name>.data").
    input_shapes: {input name: [d0, d1, ...]}: fix those graph inputs' dims before optimizing,
        as onnx-opt's --input-shape (a symbolic dim given a size is fixed everywhere it is named).
    dims: {symbol: size}: fix a symbolic dim in every declaration, as onnx-opt's --dim.
    skip: pass names to leave out of the pipeline (["fuse-bn-into-conv"]), as onnx-opt's --skip;
        a name the pipeline does not run is an error.
    check: check every node against its operator's schema at the model's opset before
        optimizing (attribute kinds, required attributes, input and output counts, Transpose
        perm, axis ranges): a node ONNX Runtime would refuse raises OptimizeError naming it.
        check=False (onnx-opt's --no-check) optimizes such a model anyway, leaving the nodes that
        fail the check as they are.
    target_opset: raise the model's opset to this (at most 17) with ONNX's version converter
        before optimizing, as onnx-opt's --target-opset; below the model's opset, or an op the
        converter cannot convert (the error names the node), raises OptimizeError.
    target: "generic", "ort" or "tensorrt": run that target's pipeline instead of passes=, as
        onnx-opt's --target (list_targets() shows what each runs); passes= must then stay "-O1",
        which every target builds on.
    return_report: return (model or None, Report) instead: the statistics of every pass run, in
        report.fixed_dims the dims input_shapes and dims fixed (FixedDim tuples), and in
        report.tensorrt, with target="tensorrt", what TensorRT is known to reject or emulate in
        the optimized model (a TensorRtFindings, the fields of onnx-opt's --report "tensorrt"
        object: dynamic_dims [DynamicDim(input, index, symbol)], int64_initializers,
        int64_outside_int32 [Int64Value(name, value)], int64_unread, non_onnx_ops {op: nodes},
        double_tensors); None for the other targets and without one.

    Raises OptimizeError (a ValueError) with the message onnx-opt prints after
    'onnx-opt: error: '; emits OptimizeWarning for onnx-opt's warnings.
    """
    input_path = input_bytes = None
    if isinstance(model, (str, _os.PathLike)):
        input_path = _os.fspath(model)
        if base_dir is not None:
            raise TypeError("base_dir= is for in-memory models: the external data of a model "
                            "file resolves against the file's folder")
    elif isinstance(model, (bytes, bytearray, memoryview)):
        input_bytes = model
    elif hasattr(model, "SerializeToString"):
        input_bytes = model.SerializeToString()
    else:
        raise TypeError("model must be an onnx.ModelProto, bytes or a path, not "
                        f"{type(model).__name__}")
    if external_data_file is not None and output is None:
        raise TypeError("external_data_file= needs output=")
    if debug is True:
        debug = _print_debug_line
    elif debug is False:
        debug = None
    elif not callable(debug):
        raise TypeError("debug must be a bool or a callable taking one line")

    input_shapes = [(name, [_dim_size(d) for d in shape])
                    for name, shape in (input_shapes or {}).items()]
    dims = [(symbol, _dim_size(size)) for symbol, size in (dims or {}).items()]
    if target is not None and not isinstance(target, str):
        raise TypeError(f"target must be a str, not {type(target).__name__}")
    result, report, warning_lines, fixed, tensorrt = _onnxopt.optimize(
        input_path=input_path, input_bytes=input_bytes,
        output_path=None if output is None else _os.fspath(output), pipeline=passes,
        base_dir="" if base_dir is None else _os.fspath(base_dir), verify_each=verify_each,
        fixed_point=fixed_point, max_fixed_point_rounds=max_fixed_point_rounds,
        require_convergence=require_convergence, debug=debug,
        external_data_file=external_data_file or "", input_shapes=input_shapes, dims=dims,
        skip=_pass_names(skip), check=bool(check),
        target_opset=None if target_opset is None else _opset_number(target_opset),
        target=target)
    report.fixed_dims = [FixedDim(*dim) for dim in fixed]
    report.tensorrt = None if tensorrt is None else _tensorrt_findings(*tensorrt)
    input_bytes = None  # a ModelProto's serialized copy is not needed any more
    for line in warning_lines:
        _warnings.warn(line, OptimizeWarning, stacklevel=2)
    if result is not None:
        import onnx  # only when a model is returned: bytes and paths work without it
        result = onnx.load_model_from_string(result)
    return (result, report) if return_report else result


def list_passes():
    """Every pass a pipeline can name, sorted by name: PassInfo(name, summary, options, group),
    each option a PassOption(name, type, default, description), group the family
    `onnx-opt --list-passes` lists it under ("elimination", "fusion", "folding",
    "legalization"; "" for none). As `onnx-opt --list-passes`."""
    return [PassInfo(name, summary, tuple(PassOption(*option) for option in options), group)
            for name, summary, options, group in _onnxopt.list_passes()]


def list_pipelines():
    """The named pipelines: Pipeline(name, passes, summary), name as passes= takes it ("-O1")."""
    return [Pipeline(*pipeline) for pipeline in _onnxopt.list_pipelines()]


def list_targets():
    """The targets optimize(target=...) takes: Target(name, passes, summary), the default
    ("generic") first, passes the pipeline text it runs. As `onnx-opt --list-pipelines`."""
    return [Target(*target) for target in _onnxopt.list_targets()]


def _tensorrt_findings(dynamic_dims, int64_initializers, int64_outside_int32, int64_unread,
                       non_onnx_ops, double_tensors):
    return TensorRtFindings([DynamicDim(*dim) for dim in dynamic_dims], int64_initializers,
                            [Int64Value(*value) for value in int64_outside_int32], int64_unread,
                            non_onnx_ops, double_tensors)


def _pass_names(skip):
    if skip is None:
        return []
    if isinstance(skip, str):
        raise TypeError("skip must be a list of pass names, not a str")
    names = list(skip)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"a pass name in skip must be a str, not {type(name).__name__}")
    return names


def _opset_number(opset):
    if isinstance(opset, bool) or not isinstance(opset, int):
        raise TypeError(f"target_opset must be an int, not {type(opset).__name__}")
    return opset


def _dim_size(size):
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(f"a dim size must be an int, not {type(size).__name__}")
    return size


def _print_debug_line(line):
    print(f"onnx-opt: debug: {line}", file=_sys.stderr)
