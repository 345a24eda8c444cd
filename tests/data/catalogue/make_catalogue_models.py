#!/usr/bin/python3
"""Writes the small models on which the catalogue passes are checked against ONNX Runtime
(tests/data/CMakeLists.txt): each is one pass's pattern at the opsets where its operators'
versions differ. Deterministic: rerunning writes the same bytes.

Usage: /usr/bin/python3 tests/data/catalogue/make_catalogue_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, nodes, inputs, outputs, opset):
    graph = h.make_graph(nodes, name, inputs, outputs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="onnx-opt tests")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def save_newer(name, nodes, inputs, outputs, opset, initializers=()):
    """save() for what onnx 1.12's checker cannot judge (opsets above 17): checked without
    full_check, at the IR version the opset needs."""
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="onnx-opt tests")
    model.ir_version = 7 if opset <= 12 else 8 if opset <= 18 else 9 if opset <= 20 else 10
    if opset <= 17:
        onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def conv_models():
    """fuse-pad-into-conv, fuse-pad-into-pool, fuse-bn-into-gemm, fuse-concat-into-reshape: each
    rewrite, and the near misses they must leave alone."""
    rng = np.random.RandomState(19)

    dtype = {T.FLOAT: np.float32, T.DOUBLE: np.float64}

    def weight(name, dims, elem=T.FLOAT, low=-1.0):
        return numpy_helper.from_array(rng.uniform(low, 1, dims).astype(dtype[elem]), name)

    def ints(name, values):
        return numpy_helper.from_array(np.array(values, dtype=np.int64), name)

    x4 = [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 5, 6])]

    def pad_model(name, opset, pad, consumer, out_dims, initializers, x=x4):
        save_newer(name, [pad, consumer], x, [h.make_tensor_value_info("y", T.FLOAT, out_dims)], opset,
                   initializers)

    w = lambda: weight("w", [4, 3, 3, 3])
    pad_model("pad_conv_op7", 7, h.make_node("Pad", ["x"], ["p"], pads=[0, 0, 1, 2, 0, 0, 2, 1]),
              h.make_node("Conv", ["p", "w"], ["y"]), [2, 4, 6, 7], [w()])
    pad_model("pad_conv_op11", 11, h.make_node("Pad", ["x", "pads", "zero"], ["p"]),
              h.make_node("Conv", ["p", "w", "b"], ["y"], pads=[1, 0, 0, 1], strides=[2, 1]), [2, 4, 3, 6],
              [w(), weight("b", [4]), ints("pads", [0, 0, 1, 0, 0, 0, 0, 1]),
               numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero")])
    pad_model("pad_conv_op13_group", 13, h.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
              h.make_node("Conv", ["p", "w"], ["y"], group=3, dilations=[2, 1]), [2, 3, 3, 6],
              [weight("w", [3, 1, 3, 3]), ints("pads", [0, 0, 2, 1, 0, 0, 0, 1])])
    pad_model("pad_conv_op18_axes", 18, h.make_node("Pad", ["x", "pads", "", "axes"], ["p"]),
              h.make_node("Conv", ["p", "w"], ["y"]), [2, 4, 3, 7],
              [w(), ints("pads", [3, 2]), ints("axes", [-1])])
    pad_model("pad_conv_op21", 21, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("Conv", ["p", "w"], ["y"], pads=[1, 1, 1, 1]), [2, 4, 6, 7],
              [w(), ints("pads", [0, 0, 0, 1, 0, 0, 1, 0])])
    pad_model("pad_conv_reflect_op13", 13, h.make_node("Pad", ["x", "pads"], ["p"], mode="reflect"),
              h.make_node("Conv", ["p", "w"], ["y"]), [2, 4, 5, 6], [w(), ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])])
    pad_model("pad_conv_value_op13", 13, h.make_node("Pad", ["x", "pads", "one"], ["p"]),
              h.make_node("Conv", ["p", "w"], ["y"]), [2, 4, 5, 6],
              [w(), ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]),
               numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one")])

    pad_model("pad_average_pool_op7", 7, h.make_node("Pad", ["x"], ["p"], pads=[0, 0, 1, 0, 0, 0, 1, 1]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[3, 2], count_include_pad=1), [2, 3, 5, 6], [])
    # ONNX Runtime refuses pool pads as large as the kernel.
    pad_model("pad_average_pool_pad_as_kernel_op7", 7, h.make_node("Pad", ["x"], ["p"], pads=[0, 0, 1, 0, 0, 0, 1, 2]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[3, 2], count_include_pad=1), [2, 3, 5, 7], [])
    pad_model("pad_average_pool_op11", 11, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 0, 1],
                          count_include_pad=1), [2, 3, 3, 3], [ints("pads", [0, 0, 0, 1, 0, 0, 2, 0])])
    pad_model("pad_average_pool_op19_dilations", 19, h.make_node("Pad", ["x", "pads", "", "axes"], ["p"]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], dilations=[2, 2], count_include_pad=1),
              [2, 3, 5, 6], [ints("pads", [1, 1, 1, 1]), ints("axes", [2, 3])])
    # 1-D and 3-D pools (other kernels of ONNX Runtime's than 2-D), padding on both sides.
    pad_model("pad_average_pool_1d_op11", 11, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[3], pads=[1, 0], count_include_pad=1),
              [2, 3, 7], [ints("pads", [0, 0, 1, 0, 0, 1])], x=[h.make_tensor_value_info("x", T.FLOAT, [2, 3, 6])])
    pad_model("pad_average_pool_3d_op19_dilations", 19, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2, 3], dilations=[1, 2, 1],
                          count_include_pad=1), [2, 3, 3, 3, 5],
              [ints("pads", [0, 0, 1, 0, 1, 0, 0, 0, 1, 1])],
              x=[h.make_tensor_value_info("x", T.FLOAT, [2, 3, 3, 4, 5])])
    pad_model("pad_average_pool_exclude_op13", 13, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2]), [2, 3, 6, 7],
              [ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])])
    pad_model("pad_max_pool_op13", 13, h.make_node("Pad", ["x", "pads"], ["p"]),
              h.make_node("MaxPool", ["p"], ["y"], kernel_shape=[2, 2]), [2, 3, 6, 7],
              [ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])])

    def bn_model(name, opset, producer, x_dims, out_dims, m, initializers, elem=T.FLOAT, **bn_attributes):
        stats = [weight("scale", [m], elem), weight("shift", [m], elem), weight("mean", [m], elem),
                 weight("var", [m], elem, low=0.1)]
        bn = h.make_node("BatchNormalization", ["g", "scale", "shift", "mean", "var"], ["y"], **bn_attributes)
        save_newer(name, [producer, bn], [h.make_tensor_value_info("x", elem, x_dims)],
                   [h.make_tensor_value_info("y", elem, out_dims)], opset, list(initializers) + stats)

    bn_model("bn_gemm_op9_trans_b", 9, h.make_node("Gemm", ["x", "w", "c"], ["g"], transB=1), [3, 5], [3, 4], 4,
             [weight("w", [4, 5]), weight("c", [4])])
    bn_model("bn_gemm_op15_alpha_beta", 15, h.make_node("Gemm", ["x", "w", "c"], ["g"], alpha=0.7, beta=0.5),
             [3, 5], [3, 4], 4, [weight("w", [5, 4]), weight("c", [1, 4])], epsilon=1e-3)
    bn_model("bn_gemm_op13_double", 13, h.make_node("Gemm", ["x", "w"], ["g"], transB=1), [3, 5], [3, 4], 4,
             [weight("w", [4, 5], T.DOUBLE)], T.DOUBLE)
    bn_model("bn_matmul_op13", 13, h.make_node("MatMul", ["x", "w"], ["g"]), [3, 5], [3, 4], 4, [weight("w", [5, 4])])
    bn_model("bn_matmul_op7", 7, h.make_node("MatMul", ["x", "w"], ["g"]), [3, 5], [3, 4], 4, [weight("w", [5, 4])])
    # Near miss: BatchNormalization of a 3-D MatMul output normalizes axis 1, not the columns.
    bn_model("bn_matmul_3d_op13", 13, h.make_node("MatMul", ["x", "w"], ["g"]), [2, 3, 5], [2, 3, 4], 3,
             [weight("w", [5, 4])])

    def reshape_model(name, opset, nodes, x_dims, out_dims, initializers):
        save_newer(name, nodes, [h.make_tensor_value_info("x", T.FLOAT, x_dims)],
                   [h.make_tensor_value_info("y", T.FLOAT, out_dims)], opset, initializers)

    unsqueeze = lambda opset, i, o: (h.make_node("Unsqueeze", [i], [o], axes=[0]) if opset < 13
                                     else h.make_node("Unsqueeze", [i, "zero"], [o]))
    for opset in (11, 13):
        reshape_model(f"concat_reshape_op{opset}", opset,
                      [h.make_node("Shape", ["x"], ["s"]), h.make_node("Gather", ["s", "i0"], ["g0"]),
                       unsqueeze(opset, "g0", "u0"), h.make_node("Gather", ["s", "i1"], ["g1"]),
                       unsqueeze(opset, "g1", "u1"), h.make_node("Concat", ["u0", "u1", "k"], ["c"], axis=0),
                       h.make_node("Reshape", ["x", "c"], ["y"])],
                      ["N", 4, 8], ["N", 4, 2, 4], [ints("i0", 0), ints("i1", 1), ints("zero", [0]),
                                                    ints("k", [-1, 4])])
    # Near miss: dim 0 of x at position 1, where 0 would copy dim 1.
    reshape_model("concat_reshape_other_position_op13", 13,
                  [h.make_node("Shape", ["x"], ["s"]), h.make_node("Gather", ["s", "i0"], ["g0"]),
                   unsqueeze(13, "g0", "u0"), h.make_node("Concat", ["k", "u0"], ["c"], axis=0),
                   h.make_node("Reshape", ["x", "c"], ["y"])],
                  ["N", 4, 8], [32, "N"], [ints("i0", 0), ints("zero", [0]), ints("k", [-1])])


def shape_and_gemm_bias_models():
    """eliminate-pre-shape-ops (and the shape comparisons of fuse-concat-into-reshape and
    eliminate-nop-expand it relies on) and fuse-add-bias-into-gemm: each rewrite, and near
    misses."""
    rng = np.random.RandomState(23)
    dtype = {T.FLOAT: np.float32, T.DOUBLE: np.float64}

    def weight(name, dims, elem=T.FLOAT):
        return numpy_helper.from_array(rng.uniform(-1, 1, dims).astype(dtype[elem]), name)

    def ints(name, values):
        return numpy_helper.from_array(np.array(values, dtype=np.int64), name)

    value = h.make_tensor_value_info
    save_newer("pre_shape_cast_relu_op13",
               [h.make_node("Cast", ["x"], ["c"], to=T.DOUBLE), h.make_node("Relu", ["c"], ["r"]),
                h.make_node("Shape", ["r"], ["s"]), h.make_node("Reshape", ["x", "s"], ["y"]),
                h.make_node("Softmax", ["x"], ["m"], axis=1), h.make_node("Size", ["m"], ["z"])],
               [value("x", T.FLOAT, ["N", 4])], [value("y", T.FLOAT, ["N", 4]), value("z", T.INT64, [])], 13)
    save_newer("pre_shape_layer_norm_start_op17",
               [h.make_node("LayerNormalization", ["x", "scale", "bias"], ["l"], axis=-1),
                h.make_node("Shape", ["l"], ["y"], start=1)],
               [value("x", T.FLOAT, ["N", 3, 4])], [value("y", T.INT64, [2])], 17,
               [weight("scale", [4]), weight("bias", [4])])
    # x.view(x.size(0), -1) of Relu(x): the batch dim read from x still becomes 0.
    save_newer("pre_shape_view_of_relu_op13",
               [h.make_node("Relu", ["x"], ["r"]), h.make_node("Shape", ["r"], ["s"]),
                h.make_node("Gather", ["s", "i0"], ["g"]), h.make_node("Unsqueeze", ["g", "zero"], ["u"]),
                h.make_node("Concat", ["u", "k"], ["c"], axis=0), h.make_node("Reshape", ["r", "c"], ["y"])],
               [value("x", T.FLOAT, ["N", 4, 8])], [value("y", T.FLOAT, ["N", 32])], 13,
               [ints("i0", 0), ints("zero", [0]), ints("k", [-1])])
    # Expand(Relu(x), Shape(x)) is Relu(x).
    save_newer("pre_shape_expand_of_relu_op13",
               [h.make_node("Relu", ["x"], ["r"]), h.make_node("Shape", ["x"], ["s"]),
                h.make_node("Expand", ["r", "s"], ["y"])],
               [value("x", T.FLOAT, ["N", 4])], [value("y", T.FLOAT, ["N", 4])], 13)
    # Near miss: the Shape of a Transpose.
    save_newer("pre_shape_transpose_op13",
               [h.make_node("Transpose", ["x"], ["t"]), h.make_node("Shape", ["t"], ["y"])],
               [value("x", T.FLOAT, ["N", 4])], [value("y", T.INT64, [2])], 13)

    def gemm_model(name, opset, gemm, root, bias, elem=T.FLOAT, w_dims=(5, 4)):
        save_newer(name, [gemm, root], [value("x", elem, [3, 5])], [value("y", elem, [3, 4])], opset,
                   [weight("w", list(w_dims), elem), bias])

    gemm_model("gemm_bias_add_op11", 11, h.make_node("Gemm", ["x", "w"], ["g"]),
               h.make_node("Add", ["g", "b"], ["y"]), weight("b", [4]))
    gemm_model("gemm_bias_sum_beta_op13", 13, h.make_node("Gemm", ["x", "w"], ["g"], transB=1, beta=0.5),
               h.make_node("Sum", ["b", "g"], ["y"]), weight("b", [1, 4]), w_dims=(4, 5))
    gemm_model("gemm_bias_add_double_op17", 17, h.make_node("Gemm", ["x", "w"], ["g"]),
               h.make_node("Add", ["b", "g"], ["y"]), weight("b", [3, 4], T.DOUBLE), T.DOUBLE)
    # Near miss: alpha 2 (the fused form may round once where this rounds twice).
    gemm_model("gemm_bias_alpha_op13", 13, h.make_node("Gemm", ["x", "w"], ["g"], alpha=2.0),
               h.make_node("Add", ["g", "b"], ["y"]), weight("b", [4]))


def relu_clip_models():
    """fuse-relu-clip: Clip after Relu and Relu after Clip, Clip 6 and Clip 11 on, a min made +0
    and one kept, float, double and int32; near miss: Relu after a Clip whose max is 0."""
    value = h.make_tensor_value_info

    def scalar(name, v, dtype=np.float32):
        return numpy_helper.from_array(np.array(v, dtype=dtype), name)

    save("relu_clip_attributes_op9",
         [h.make_node("Relu", ["x"], ["r"]), h.make_node("Clip", ["r"], ["y"], min=-1.0, max=6.0),
          h.make_node("Clip", ["x"], ["c"], min=-3.0, max=2.0), h.make_node("Relu", ["c"], ["z"])],
         [value("x", T.FLOAT, [4, 5])], [value("y", T.FLOAT, [4, 5]), value("z", T.FLOAT, [4, 5])], 9)
    save_newer("relu_clip_inputs_op13",
         [h.make_node("Relu", ["x"], ["r"]), h.make_node("Clip", ["r", "lo", "hi"], ["y"]),
          h.make_node("Clip", ["x", "half"], ["c"]), h.make_node("Relu", ["c"], ["z"]),
          h.make_node("Clip", ["x", "lo", "zero"], ["d"]), h.make_node("Relu", ["d"], ["w"])],
         [value("x", T.FLOAT, [4, 5])],
         [value("y", T.FLOAT, [4, 5]), value("z", T.FLOAT, [4, 5]), value("w", T.FLOAT, [4, 5])], 13,
         [scalar("lo", -1.0), scalar("hi", 6.0), scalar("half", 0.5), scalar("zero", 0.0)])
    save_newer("relu_clip_double_no_min_op13",
         [h.make_node("Relu", ["x"], ["r"]), h.make_node("Clip", ["r", "", "hi"], ["y"])],
         [value("x", T.DOUBLE, [4, 5])], [value("y", T.DOUBLE, [4, 5])], 13,
         [scalar("hi", 0.75, np.float64)])
    # What random inputs never hold, and what the rewrite rests on: NaN and infinities pass
    # through both forms alike (relu_clip_special_values/: the outputs numpy computes).
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1.0, 3.0, 8.0, 0.25, -7.5] * 2,
                        dtype=np.float32).reshape(4, 5)
    relu = lambda v: np.where(np.isnan(v), v, np.maximum(v, 0))
    folder = os.path.join(HERE, "relu_clip_special_values", "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    for name, array in [("input_0", specials), ("output_0", np.clip(relu(specials), -1.0, 6.0)),
                        # Clip's absent max is the largest float: infinity becomes it.
                        ("output_1", relu(np.clip(specials, 0.5, np.finfo(np.float32).max))),
                        ("output_2", relu(np.clip(specials, -1.0, 0.0)))]:
        tensor = numpy_helper.from_array(array.astype(np.float32), {"input_0": "x", "output_0": "y",
                                                                   "output_1": "z", "output_2": "w"}[name])
        with open(os.path.join(folder, name + ".pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    save_newer("relu_clip_int32_op14",
         [h.make_node("Relu", ["x"], ["r"]), h.make_node("Clip", ["r", "lo", "hi"], ["y"])],
         [value("x", T.INT32, [4, 5])], [value("y", T.INT32, [4, 5])], 14,
         [scalar("lo", -5, np.int32), scalar("hi", 6, np.int32)])


def clip_clip_models():
    """fuse-consecutive-clips: overlapping intervals whichever Clip is tighter, absent bounds,
    touching intervals, Clip 6 attributes, float, double and int32; near misses: intervals that
    do not overlap (the pair gives the outer bound nearer the inner interval)."""
    value = h.make_tensor_value_info

    def scalar(name, v, dtype=np.float32):
        return numpy_helper.from_array(np.array(v, dtype=dtype), name)

    def pair(inner_inputs, outer_bounds, out, x="x"):
        return [h.make_node("Clip", [x] + inner_inputs, [out + "_inner"]),
                h.make_node("Clip", [out + "_inner"] + outer_bounds, [out])]

    save("clip_clip_attributes_op9",
         [h.make_node("Clip", ["x"], ["i"], min=-0.5, max=0.75), h.make_node("Clip", ["i"], ["y"], min=0.0, max=0.9),
          h.make_node("Clip", ["x"], ["j"], min=0.25), h.make_node("Clip", ["j"], ["z"], max=0.5)],
         [value("x", T.FLOAT, [4, 5])], [value("y", T.FLOAT, [4, 5]), value("z", T.FLOAT, [4, 5])], 9)
    outputs = ["tighter_outer", "tighter_mixed", "absent_min", "absent_mins", "touching", "disjoint_above",
               "disjoint_below"]
    save_newer("clip_clip_inputs_op13",
         pair(["m_half", "p_three_quarters"], ["zero", "p_half"], "tighter_outer")
         + pair(["zero", "p_nine_tenths"], ["m_half", "p_half"], "tighter_mixed")
         + pair(["", "p_half"], ["m_quarter"], "absent_min")
         + pair(["", "p_three_quarters"], ["", "p_half"], "absent_mins")
         + pair(["zero", "p_quarter"], ["p_quarter", "p_half"], "touching")
         + pair(["m_half", "zero"], ["p_quarter", "p_half"], "disjoint_above")
         + pair(["p_quarter", "p_half"], ["m_half", "zero"], "disjoint_below"),
         [value("x", T.FLOAT, [4, 5])], [value(name, T.FLOAT, [4, 5]) for name in outputs], 13,
         [scalar("m_half", -0.5), scalar("m_quarter", -0.25), scalar("zero", 0.0), scalar("p_quarter", 0.25),
          scalar("p_half", 0.5), scalar("p_three_quarters", 0.75), scalar("p_nine_tenths", 0.9)])
    save_newer("clip_clip_double_op13", pair(["lo", "hi"], ["", "hi2"], "y"),
               [value("x", T.DOUBLE, [4, 5])], [value("y", T.DOUBLE, [4, 5])], 13,
               [scalar("lo", -0.6, np.float64), scalar("hi", 0.8, np.float64), scalar("hi2", 0.3, np.float64)])
    save_newer("clip_clip_int32_op12", pair(["lo", "hi"], ["lo2", "hi2"], "y"),
               [value("x", T.INT32, [4, 5])], [value("y", T.INT32, [4, 5])], 12,
               [scalar("lo", -5, np.int32), scalar("hi", 6, np.int32), scalar("lo2", -2, np.int32),
                scalar("hi2", 9, np.int32)])
    # NaN, infinities and zeros through clip_clip_inputs_op13 (clip_clip_special_values/: the
    # outputs numpy computes as ONNX Runtime's Clip does: NaN passes, an absent bound is the
    # lowest or largest float).
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1.0, 0.3, 0.8, 0.25, -0.4] * 2,
                        dtype=np.float32).reshape(4, 5)
    largest = np.finfo(np.float32).max

    def clip(v, lo=-largest, hi=largest):
        return np.where(np.isnan(v), v, np.minimum(np.maximum(v, lo), hi))

    expected = {"tighter_outer": clip(clip(specials, -0.5, 0.75), 0.0, 0.5),
                "tighter_mixed": clip(clip(specials, 0.0, 0.9), -0.5, 0.5),
                "absent_min": clip(clip(specials, hi=0.5), -0.25),
                "absent_mins": clip(clip(specials, hi=0.75), hi=0.5),
                "touching": clip(clip(specials, 0.0, 0.25), 0.25, 0.5),
                "disjoint_above": clip(clip(specials, -0.5, 0.0), 0.25, 0.5),
                "disjoint_below": clip(clip(specials, 0.25, 0.5), -0.5, 0.0)}
    folder = os.path.join(HERE, "clip_clip_special_values", "test_data_set_0")
    os.makedirs(folder, exist_ok=True)
    arrays = [("input_0", "x", specials)] + [(f"output_{i}", name, expected[name]) for i, name in enumerate(outputs)]
    for file_name, tensor_name, array in arrays:
        tensor = numpy_helper.from_array(array.astype(np.float32), tensor_name)
        with open(os.path.join(folder, file_name + ".pb"), "wb") as f:
            f.write(tensor.SerializeToString())


def transpose_elementwise_models():
    """fuse-transposes-across-elementwise: an NHWC bias and activation between the two layout
    Transposes, perms that compose to another perm, Clip bounds, Casts and comparisons, an int32
    chain with a constant to transpose, the opening Transpose read elsewhere, the two NHWC
    branches of a residual Add merged, Softmax and LogSoftmax along a moved axis; near misses: a
    chain value read elsewhere, an operand that is neither constant nor of 1s, a Softmax at opset
    11; Concats of Transposes, merged into one."""
    value = h.make_tensor_value_info

    def const(name, array):
        return numpy_helper.from_array(array, name)

    save_newer("transpose_elementwise_nhwc_op13",
               [h.make_node("Transpose", ["x"], ["a"], perm=[0, 2, 3, 1]), h.make_node("Add", ["a", "b"], ["s"]),
                h.make_node("Relu", ["s"], ["r"]), h.make_node("Mul", ["half", "r"], ["m"]),
                h.make_node("Transpose", ["m"], ["y"], perm=[0, 3, 1, 2])],
               [value("x", T.FLOAT, [2, 3, 4, 5])], [value("y", T.FLOAT, [2, 3, 4, 5])], 13,
               [const("b", np.array([0.5, -0.25, 0.125], dtype=np.float32)),
                const("half", np.array(0.5, dtype=np.float32))])
    save_newer("transpose_elementwise_composed_op17",
               [h.make_node("Transpose", ["x"], ["a"], perm=[1, 2, 0]), h.make_node("Clip", ["a", "lo", "hi"], ["c"]),
                h.make_node("Sigmoid", ["c"], ["g"]), h.make_node("Cast", ["g"], ["k"], to=T.DOUBLE),
                h.make_node("Sub", ["w", "k"], ["d"]), h.make_node("Cast", ["d"], ["f"], to=T.FLOAT),
                h.make_node("Transpose", ["f"], ["y"], perm=[0, 2, 1])],
               [value("x", T.FLOAT, [2, 3, 4])], [value("y", T.FLOAT, [3, 2, 4])], 17,
               [const("lo", np.array(-0.5, dtype=np.float32)), const("hi", np.array(0.75, dtype=np.float32)),
                const("w", np.arange(8, dtype=np.float64).reshape(4, 2) / 8)])
    save_newer("transpose_elementwise_shared_op11",
               [h.make_node("Transpose", ["x"], ["a"]), h.make_node("Greater", ["a", "c"], ["g"]),
                h.make_node("Not", ["g"], ["n"]), h.make_node("Cast", ["n"], ["f"], to=T.FLOAT),
                h.make_node("Transpose", ["f"], ["y"]), h.make_node("Abs", ["a"], ["z"]),
                h.make_node("Transpose", ["x"], ["t"]), h.make_node("Exp", ["t"], ["e"]),
                h.make_node("Transpose", ["e"], ["y2"]), h.make_node("Neg", ["e"], ["z2"]),
                h.make_node("Transpose", ["x"], ["u"]), h.make_node("Add", ["u", "v"], ["s"]),
                h.make_node("Transpose", ["s"], ["y3"])],
               [value("x", T.FLOAT, [3, 4]), value("v", T.FLOAT, [4, 3])],
               [value("y", T.FLOAT, [3, 4]), value("z", T.FLOAT, [4, 3]), value("y2", T.FLOAT, [3, 4]),
                value("z2", T.FLOAT, [4, 3]), value("y3", T.FLOAT, [3, 4])], 11,
               [const("c", np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))])
    save_newer("transpose_elementwise_residual_op13",
               [h.make_node("Transpose", ["a"], ["ta"], perm=[0, 2, 3, 1]),
                h.make_node("Transpose", ["b"], ["tb"], perm=[0, 2, 3, 1]), h.make_node("Add", ["ta", "tb"], ["s"]),
                h.make_node("Relu", ["s"], ["r"]), h.make_node("Mul", ["r", "scale"], ["m"]),
                h.make_node("Transpose", ["m"], ["y"], perm=[0, 3, 1, 2]),
                h.make_node("Transpose", ["a"], ["ua"], perm=[0, 2, 3, 1]),
                h.make_node("Transpose", ["b"], ["ub"], perm=[0, 2, 3, 1]), h.make_node("Max", ["ua", "ub"], ["z"])],
               [value("a", T.FLOAT, [2, 3, 4, 5]), value("b", T.FLOAT, [2, 3, 4, 5])],
               [value("y", T.FLOAT, [2, 3, 4, 5]), value("z", T.FLOAT, [2, 4, 5, 3])], 13,
               [const("scale", np.array([2.0, -1.0, 0.5], dtype=np.float32))])
    save_newer("transpose_elementwise_int32_op14",
               [h.make_node("Transpose", ["x"], ["a"], perm=[2, 0, 1]), h.make_node("Abs", ["a"], ["b"]),
                h.make_node("Mul", ["b", "k"], ["m"]), h.make_node("Neg", ["m"], ["n"]),
                h.make_node("Transpose", ["n"], ["y"], perm=[1, 2, 0])],
               [value("x", T.INT32, [2, 3, 4])], [value("y", T.INT32, [2, 3, 4])], 14,
               [const("k", np.array([1, -2, 3, -4], dtype=np.int32).reshape(4, 1, 1))])
    # Softmax and LogSoftmax in a chain (opset 13: the axis moves with the layout; opset 11, where
    # they flatten at the axis, left alone), of random logits so that rows differ.
    for opset in (11, 13):
        save_newer(f"transpose_elementwise_softmax_op{opset}",
                   [h.make_node("Transpose", ["x"], ["a"], perm=[0, 2, 3, 1]), h.make_node("Softmax", ["a"], ["s"], axis=3),
                    h.make_node("Transpose", ["s"], ["y"], perm=[0, 3, 1, 2]),
                    h.make_node("Transpose", ["z"], ["b"], perm=[2, 0, 1]),
                    h.make_node("LogSoftmax", ["b"], ["l"], axis=0), h.make_node("Relu", ["l"], ["r"]),
                    h.make_node("Transpose", ["r"], ["w"], perm=[2, 1, 0])],
                   [value("x", T.FLOAT, [2, 3, 4, 5]), value("z", T.FLOAT, [2, 3, 4])],
                   [value("y", T.FLOAT, [2, 3, 4, 5]), value("w", T.FLOAT, [3, 2, 4])], opset)
    # Concats of NHWC Transposes: along the channels (then a Relu and the Transpose back), along
    # a negative axis at opset 11, int64 at opset 4; a Concat of different perms left alone.
    for opset, axis, dtype, activation, y_shape in ((13, 3, T.FLOAT, "Relu", [2, 9, 3, 3]),
                                                    (11, -2, T.FLOAT, "Relu", [2, 3, 3, 9]),
                                                    (4, 1, T.INT64, "Identity", [2, 3, 9, 3])):
        save_newer(f"transpose_elementwise_concat_op{opset}",
                   [h.make_node("Transpose", ["a"], ["ta"], perm=[0, 2, 3, 1]),
                    h.make_node("Transpose", ["b"], ["tb"], perm=[0, 2, 3, 1]),
                    h.make_node("Concat", ["ta", "tb", "ta"], ["c"], axis=axis), h.make_node(activation, ["c"], ["r"]),
                    h.make_node("Transpose", ["r"], ["y"], perm=[0, 3, 1, 2]),
                    h.make_node("Transpose", ["a"], ["ua"], perm=[0, 2, 3, 1]),
                    h.make_node("Transpose", ["a"], ["va"], perm=[0, 2, 1, 3]),
                    h.make_node("Concat", ["ua", "va"], ["z"], axis=0)],
                   [value("a", dtype, [2, 3, 3, 3]), value("b", dtype, [2, 3, 3, 3])],
                   [value("y", dtype, y_shape), value("z", dtype, [4, 3, 3, 3])], opset)


def dequantize_quantize_models():
    """eliminate-dequantize-quantize: the middle pair of Q -> DQ -> Q -> DQ with copied
    constants (uint8, int8 at opset 13 per axis), a pair read from a uint8 input at opset 10, a
    requantization to another scale left alone."""
    value = h.make_tensor_value_info

    def const(name, array):
        return numpy_helper.from_array(array, name)

    save_newer("dequantize_quantize_uint8_op13",
               [h.make_node("QuantizeLinear", ["x", "s", "z"], ["a"]),
                h.make_node("DequantizeLinear", ["a", "s", "z"], ["b"]),
                h.make_node("QuantizeLinear", ["b", "s2", "z2"], ["c"]),
                h.make_node("DequantizeLinear", ["c", "s2", "z2"], ["y"]), h.make_node("Relu", ["b"], ["r"]),
                h.make_node("QuantizeLinear", ["b", "t", "z"], ["u"])],
               [value("x", T.FLOAT, [4, 5])],
               [value("y", T.FLOAT, [4, 5]), value("r", T.FLOAT, [4, 5]), value("u", T.UINT8, [4, 5])], 13,
               [const("s", np.array(0.0125, dtype=np.float32)), const("z", np.array(128, dtype=np.uint8)),
                const("s2", np.array(0.0125, dtype=np.float32)), const("z2", np.array(128, dtype=np.uint8)),
                const("t", np.array(0.03, dtype=np.float32))])
    save_newer("dequantize_quantize_per_axis_op13",
               [h.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], axis=1),
                h.make_node("QuantizeLinear", ["d", "s", "z"], ["p"], axis=-1),
                h.make_node("DequantizeLinear", ["p", "s", "z"], ["y"], axis=1)],
               [value("q", T.INT8, [4, 3])], [value("y", T.FLOAT, [4, 3])], 13,
               [const("s", np.array([0.5, 0.03, 7.0], dtype=np.float32)),
                const("z", np.array([0, -5, 3], dtype=np.int8))])
    save_newer("dequantize_quantize_uint8_op10",
               [h.make_node("DequantizeLinear", ["q", "s"], ["d"]), h.make_node("QuantizeLinear", ["d", "s"], ["p"]),
                h.make_node("DequantizeLinear", ["p", "s"], ["y"])],
               [value("q", T.UINT8, [3, 4])], [value("y", T.FLOAT, [3, 4])], 10,
               [const("s", np.array(3.7, dtype=np.float32))])


def constant_output_models():
    """Graph outputs whose values are constant: -O1 makes them initializers of their names, in the
    main graph (a Constant node, a folded Neg and its twin, a folded Shape), in an If branch (a
    folded Neg), in a Loop body (a Constant carried from one iteration to the next and one
    scanned out) and in a Scan body (a Constant scanned out)."""
    value = h.make_tensor_value_info
    weight = numpy_helper.from_array(np.array([1.5, -2.0, 0.25], dtype=np.float32), "w")
    for opset in (9, 13):
        save_newer(f"constant_outputs_op{opset}",
                   [h.make_node("Constant", [], ["c"], value=numpy_helper.from_array(
                       np.array([[1, 2], [3, 4]], dtype=np.int64), "c")),
                    h.make_node("Neg", ["w"], ["n"]), h.make_node("Neg", ["w"], ["twin"]),
                    h.make_node("Mul", ["x", "twin"], ["y"]), h.make_node("Shape", ["x"], ["s"])],
                   [value("x", T.FLOAT, [2, 3])],
                   [value("y", T.FLOAT, [2, 3]), value("c", T.INT64, [2, 2]), value("n", T.FLOAT, [3]),
                    value("s", T.INT64, [2])], opset, [weight])
    then_branch = h.make_graph([h.make_node("Neg", ["w"], ["t"])], "then", [], [value("t", T.FLOAT, [3])])
    else_branch = h.make_graph([h.make_node("Relu", ["x"], ["e"])], "else", [], [value("e", T.FLOAT, [3])])
    save_newer("constant_outputs_if_branch_op13",
               [h.make_node("If", ["b"], ["y"], then_branch=then_branch, else_branch=else_branch)],
               [value("b", T.BOOL, []), value("x", T.FLOAT, [3])], [value("y", T.FLOAT, [3])], 13, [weight])

    def constant(name, values):
        return h.make_node("Constant", [], [name], value=numpy_helper.from_array(
            np.array(values, dtype=np.float32), name + "_value"))

    loop_body = h.make_graph(
        [h.make_node("Identity", ["cond_in"], ["cond_out"]), h.make_node("Add", ["v_in", "x"], ["step"]),
         constant("carried", [3.0, 4.0, 5.0])], "loop_body",
        [value("i", T.INT64, []), value("cond_in", T.BOOL, []), value("v_in", T.FLOAT, [3])],
        [value("cond_out", T.BOOL, []), value("carried", T.FLOAT, [3]), value("step", T.FLOAT, [3])])
    scan_body = h.make_graph(
        [h.make_node("Add", ["state", "row"], ["state_out"]), constant("scanned", [0.5, -0.5, 2.0])],
        "scan_body", [value("state", T.FLOAT, [3]), value("row", T.FLOAT, [3])],
        [value("state_out", T.FLOAT, [3]), value("scanned", T.FLOAT, [3])])
    save_newer("constant_outputs_loop_scan_op13",
               [h.make_node("Loop", ["n", "", "v0"], ["last", "steps"], body=loop_body),
                h.make_node("Scan", ["v0", "rows"], ["sum", "scans"], body=scan_body, num_scan_inputs=1)],
               [value("n", T.INT64, []), value("v0", T.FLOAT, [3]), value("x", T.FLOAT, [3]),
                value("rows", T.FLOAT, [2, 3])],
               [value("last", T.FLOAT, [3]), value("steps", T.FLOAT, ["n", 3]), value("sum", T.FLOAT, [3]),
                value("scans", T.FLOAT, [2, 3])], 13)


def transpose_axis_removal_models():
    """eliminate-transpose-before-axis-removal: the last and first steps of a batch-first
    sequence (Gather of a scalar index, negative too), a channel of an NHWC tensor, a Transpose
    without perm, Squeezes with axes as attribute (negative at opset 11) and as input, in int64,
    float and bool; near misses beside them: indices of rank 1, kept axes out of order. Then a
    Shape of a Transpose read by Gathers of constant indices."""
    value = h.make_tensor_value_info

    def const(name, array):
        return numpy_helper.from_array(array, name)

    for opset in (1, 11, 13):
        index = [const("last", np.array(-1 if opset >= 11 else 4, dtype=np.int64)),
                 const("first", np.array(0, dtype=np.int64)), const("pair", np.array([0, 2], dtype=np.int64))]
        squeeze = (h.make_node("Squeeze", ["h", "axes"], ["s"]) if opset >= 13 else
                   h.make_node("Squeeze", ["h"], ["s"], axes=[-4, -2] if opset >= 11 else [0, 2]))
        if opset >= 13:
            index.append(const("axes", np.array([0, 2], dtype=np.int64)))
        save_newer(f"transpose_axis_removal_op{opset}",
                   [h.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
                    h.make_node("Gather", ["t", "last"], ["y_last"], axis=1),
                    h.make_node("Gather", ["t", "first"], ["y_first"], axis=1),
                    h.make_node("Gather", ["t", "pair"], ["y_pair"], axis=1),
                    h.make_node("Transpose", ["c"], ["n"], perm=[0, 2, 3, 1]),
                    h.make_node("Gather", ["n", "first"], ["y_channel"], axis=3),
                    h.make_node("Transpose", ["m"], ["mt"]),
                    h.make_node("Gather", ["mt", "first"], ["y_column"]),
                    h.make_node("Gather", ["mt", "first"], ["y_row"], axis=1),
                    h.make_node("Transpose", ["g"], ["h"], perm=[3, 0, 1, 2]), squeeze,
                    h.make_node("Transpose", ["g"], ["u"], perm=[0, 2, 1, 3]),
                    h.make_node("Gather", ["u", "first"], ["y_reordered"], axis=0)],
                   [value("x", T.FLOAT, [5, 2, 3]), value("c", T.INT64, [2, 3, 2, 2]), value("m", T.FLOAT, [3, 4]),
                    value("g", T.BOOL, [2, 1, 3, 1])],
                   [value("y_last", T.FLOAT, [2, 3]), value("y_first", T.FLOAT, [2, 3]),
                    value("y_pair", T.FLOAT, [2, 2, 3]), value("y_channel", T.INT64, [2, 2, 2]),
                    value("y_column", T.FLOAT, [3]), value("y_row", T.FLOAT, [4]), value("s", T.BOOL, [2, 3]),
                    value("y_reordered", T.BOOL, [3, 1, 1])],
                   opset, index)
    # Shape of a Transpose read by Gathers of constant indices (scalar int64, negative int32).
    save_newer("transpose_axis_removal_shape_op13",
               [h.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]), h.make_node("Shape", ["t"], ["s"]),
                h.make_node("Gather", ["s", "first"], ["d_first"]),
                h.make_node("Gather", ["s", "pair"], ["d_pair"], axis=0)],
               [value("x", T.FLOAT, ["S", "B", 3])], [value("d_first", T.INT64, []), value("d_pair", T.INT64, [2])],
               13, [const("first", np.array(0, dtype=np.int64)), const("pair", np.array([-1, 1], dtype=np.int32))])


def parallel_matmul_models():
    """fuse-parallel-matmuls: query, key and value projections of a 3-D input with biases
    ([N], [1,N], [1,1,N]) at opsets 13 and 18, two 2-D products at opset 9 (the Split's sizes an
    attribute), int64 products of a 1-D input, Gemm heads of one input at opsets 9, 11 and 13,
    float16 MatMuls and Gemms; a double pair and Gemms of other settings left alone beside them."""
    value = h.make_tensor_value_info
    rng = np.random.RandomState(7)

    def const(name, array):
        return numpy_helper.from_array(array, name)

    for opset in (13, 18):
        nodes, weights, outputs = [], [], []
        for name, width, bias_shape in (("q", 8, [8]), ("k", 8, [1, 8]), ("v", 4, [1, 1, 4])):
            weights += [const(f"w{name}", rng.randn(16, width).astype(np.float32)),
                        const(f"b{name}", rng.randn(*bias_shape).astype(np.float32))]
            nodes += [h.make_node("MatMul", ["x", f"w{name}"], [f"m{name}"]),
                      h.make_node("Add", [f"m{name}", f"b{name}"], [name])]
            outputs.append(value(name, T.FLOAT, [2, 5, width]))
        save_newer(f"parallel_matmuls_qkv_op{opset}", nodes, [value("x", T.FLOAT, [2, 5, 16])], outputs,
                   opset, weights)
    save_newer("parallel_matmuls_2d_op9",
               [h.make_node("MatMul", ["x", "a"], ["p"]), h.make_node("Relu", ["p"], ["y"]),
                h.make_node("MatMul", ["x", "b"], ["z"])],
               [value("x", T.FLOAT, [3, 6])], [value("y", T.FLOAT, [3, 5]), value("z", T.FLOAT, [3, 2])], 9,
               [const("a", rng.randn(6, 5).astype(np.float32)), const("b", rng.randn(6, 2).astype(np.float32))])
    save_newer("parallel_matmuls_int64_op13",
               [h.make_node("MatMul", ["x", "a"], ["y"]), h.make_node("MatMul", ["x", "b"], ["z"]),
                h.make_node("MatMul", ["d", "e"], ["u"]), h.make_node("MatMul", ["d", "f"], ["v"])],
               [value("x", T.INT64, [4]), value("d", T.DOUBLE, [3, 4])],
               [value("y", T.INT64, [3]), value("z", T.INT64, [2]), value("u", T.DOUBLE, [3, 2]),
                value("v", T.DOUBLE, [3, 2])], 13,
               [const("a", rng.randint(-5, 5, (4, 3)).astype(np.int64)),
                const("b", rng.randint(-5, 5, (4, 2)).astype(np.int64)),
                const("e", rng.randn(4, 2)), const("f", rng.randn(4, 2))])
    # Gemm heads of one feature vector: transB with C of [N] and [1, N], alpha and beta, at
    # opsets 9 (C required, split attribute), 11 and 13, where two Gemms without C join too;
    # beside them Gemms of other settings, and one with C of the settings of those without.
    for opset in (9, 11, 13):
        nodes = [h.make_node("Gemm", ["x", "wc", "bc"], ["cls"], transB=1, alpha=0.5, beta=2.0),
                 h.make_node("Gemm", ["x", "wb", "bb"], ["box"], transB=1, alpha=0.5, beta=2.0),
                 h.make_node("Gemm", ["x", "wo", "bo"], ["other"], transB=1)]
        weights = [const("wc", rng.randn(3, 16).astype(np.float32)), const("bc", rng.randn(3).astype(np.float32)),
                   const("wb", rng.randn(12, 16).astype(np.float32)), const("bb", rng.randn(1, 12).astype(np.float32)),
                   const("wo", rng.randn(4, 16).astype(np.float32)), const("bo", rng.randn(4).astype(np.float32))]
        outputs = [value("cls", T.FLOAT, [5, 3]), value("box", T.FLOAT, [5, 12]), value("other", T.FLOAT, [5, 4])]
        if opset >= 11:
            nodes += [h.make_node("Gemm", ["x", "wp"], ["plain"]), h.make_node("Gemm", ["x", "wq"], ["plain2"]),
                      h.make_node("Gemm", ["x", "wr", "br"], ["with_c"])]
            weights += [const("wp", rng.randn(16, 2).astype(np.float32)), const("wq", rng.randn(16, 6).astype(np.float32)),
                        const("wr", rng.randn(16, 3).astype(np.float32)), const("br", rng.randn(3).astype(np.float32))]
            outputs += [value("plain", T.FLOAT, [5, 2]), value("plain2", T.FLOAT, [5, 6]),
                        value("with_c", T.FLOAT, [5, 3])]
        save_newer(f"parallel_matmuls_gemm_heads_op{opset}", nodes, [value("x", T.FLOAT, [5, 16])], outputs,
                   opset, weights)
    # float16 products, MatMul and Gemm (transB, with C).
    save_newer("parallel_matmuls_float16_op13",
               [h.make_node("MatMul", ["x", "a"], ["y"]), h.make_node("MatMul", ["x", "b"], ["z"]),
                h.make_node("Gemm", ["x", "c", "d"], ["u"], transB=1),
                h.make_node("Gemm", ["x", "e", "f"], ["v"], transB=1)],
               [value("x", T.FLOAT16, [5, 16])],
               [value("y", T.FLOAT16, [5, 3]), value("z", T.FLOAT16, [5, 8]), value("u", T.FLOAT16, [5, 2]),
                value("v", T.FLOAT16, [5, 6])], 13,
               [const("a", (rng.randn(16, 3) / 4).astype(np.float16)),
                const("b", (rng.randn(16, 8) / 4).astype(np.float16)),
                const("c", (rng.randn(2, 16) / 4).astype(np.float16)), const("d", rng.randn(2).astype(np.float16)),
                const("e", (rng.randn(6, 16) / 4).astype(np.float16)), const("f", rng.randn(6).astype(np.float16))])


def stale_value_info_models():
    """Declarations (value_info) that an edit of the graph left stale: ONNX Runtime warns that they
    do not merge and runs the model with the real sizes, so no pass may believe them. A declared
    [2, 3] after Relu and Sigmoid of a [1, 3] input makes an Expand to [2, 3] look like a no-op;
    a Relu of a [2, 3] input declared [3, 2] makes a Reshape to [3, 2] look like one; a MatMul
    declared [2, 3] (really [1, 3]) makes a [2, 3] bias look like one Gemm's C; a Relu declared
    [2, 3] (really [1, 3]) makes a Mul by ones of [2, 3] look like a no-op; a TopK (no local
    shape rule: ONNX's inference knows it) declared [3, 2] (really [2, 3]) makes a Reshape to
    [3, 2] look like one."""
    value = h.make_tensor_value_info

    def stale(name, opset, nodes, inputs, outputs, declared, initializers):
        graph = h.make_graph(nodes, name, inputs, outputs, initializer=initializers,
                             value_info=[value(n, T.FLOAT, dims) for n, dims in declared])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="onnx-opt tests")
        model.ir_version = 7
        onnx.checker.check_model(model)  # full_check would reject the stale declarations
        onnx.save(model, os.path.join(HERE, name + ".onnx"))

    target = numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "target")
    reshaped = numpy_helper.from_array(np.array([3, 2], dtype=np.int64), "reshaped")
    weight = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 8, "w")
    bias = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3) - 2, "b")
    ones = numpy_helper.from_array(np.ones((2, 3), dtype=np.float32), "ones")
    two = numpy_helper.from_array(np.array([2], dtype=np.int64), "two")
    for opset in (13, 17):
        stale(f"stale_value_info_op{opset}", opset,
              [h.make_node("Relu", ["x"], ["a"]), h.make_node("Sigmoid", ["a"], ["s"]),
               h.make_node("Expand", ["s", "target"], ["expanded"]),
               h.make_node("Relu", ["z"], ["r"]), h.make_node("Reshape", ["r", "reshaped"], ["reshaped_out"]),
               h.make_node("MatMul", ["m", "w"], ["product"]), h.make_node("Add", ["product", "b"], ["biased"]),
               h.make_node("Relu", ["x"], ["k"]), h.make_node("Mul", ["k", "ones"], ["scaled"]),
               h.make_node("TopK", ["z", "two"], ["top", "top_indices"], axis=0),
               h.make_node("Reshape", ["top", "reshaped"], ["top_out"])],
              [value("x", T.FLOAT, [1, 3]), value("z", T.FLOAT, [2, 3]), value("m", T.FLOAT, [1, 4])],
              [value("expanded", T.FLOAT, [2, 3]), value("reshaped_out", T.FLOAT, [3, 2]),
               value("biased", T.FLOAT, [2, 3]), value("scaled", T.FLOAT, [2, 3]),
               value("top_out", T.FLOAT, [3, 2])],
              [("a", [2, 3]), ("s", [2, 3]), ("r", [3, 2]), ("product", [2, 3]), ("k", [2, 3]),
               ("top", [3, 2])],
              [target, reshaped, weight, bias, ones, two])


def main():
    for opset in (9, 13, 17):
        save(f"where_not_op{opset}",
             [h.make_node("Not", ["c"], ["n"]), h.make_node("Where", ["n", "x", "y"], ["z"])],
             [h.make_tensor_value_info("c", T.BOOL, [2, 1]), h.make_tensor_value_info("x", T.FLOAT, [3]),
              h.make_tensor_value_info("y", T.FLOAT, [2, 3])],
             [h.make_tensor_value_info("z", T.FLOAT, [2, 3])], opset)
    for opset, axis in ((9, 1), (11, -1), (11, 0), (13, 1), (13, -1), (17, 0)):
        save(f"log_softmax_op{opset}_axis{axis}",
             [h.make_node("Softmax", ["x"], ["s"], axis=axis), h.make_node("Log", ["s"], ["y"])],
             [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
             [h.make_tensor_value_info("y", T.FLOAT, [2, 3, 4])], opset)
    conv_models()
    shape_and_gemm_bias_models()
    relu_clip_models()
    clip_clip_models()
    transpose_elementwise_models()
    dequantize_quantize_models()
    constant_output_models()
    parallel_matmul_models()
    transpose_axis_removal_models()
    stale_value_info_models()


if __name__ == "__main__":
    main()
