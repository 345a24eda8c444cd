"""The rules of check_o1.py, each on a small model: what it reports next to the near miss it
must accept. Run with Debian's interpreter: /usr/bin/python3 -m pytest tests/realexports."""

import os
import sys

import numpy
import onnx.parser
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_o1  # noqa: E402


def graph(text, opset=13, extra_initializers=()):
    model = onnx.parser.parse_model(
        f'<ir_version: 8, opset_import: ["" : {opset}, "com.example" : 1]>\n' + text)
    for name, array in extra_initializers:
        model.graph.initializer.append(numpy_helper.from_array(array, name))
    return check_o1.Graph(model)


def reported(check, g):
    return [(kind, node.output[0]) for kind, node, _ in check(g)]


def test_constant_node_is_reported():
    g = graph("""c (float[2] X) => (float[2] Y) {
      C = Constant<value = float[2] {1, 2}>()
      Y = Add(X, C)
    }""")
    assert reported(check_o1.check_constant_nodes, g) == [("constant-node", "C")]


def test_all_constant_follows_chains_but_not_graph_input_initializers():
    g = graph("""c (float[2] X, float[2] fed) => (float[2] Y, float[2] Z) <float[2] w = {1, 2},
        float[2] fed = {3, 4}> {
      C = Constant<value = float[2] {1, 2}>()
      A = Add(w, C)
      B = Neg(A)
      Y = Add(X, B)
      Z = Add(w, fed)
    }""")
    assert reported(check_o1.check_all_constant, g) == [("all-constant", "A"),
                                                        ("all-constant", "B")]


def test_all_constant_exempts_random_quantize_and_custom_domain_ops():
    g = graph("""c (float[2] X) => (float[2] R, uint8[2] Q, float[2] M) <float[2] w = {1, 2},
        float s = {1}, uint8 z = {0}> {
      R = RandomNormalLike(w)
      Q = QuantizeLinear(w, s, z)
      M = com.example.Mine(w)
    }""")
    assert reported(check_o1.check_all_constant, g) == []


def test_size_guard_keeps_only_outputs_that_grow_past_one_mib():
    big = numpy.zeros((512, 1024), numpy.float32)  # 2 MiB
    g = graph("""c (float[4] X) => (float[1024,1024] G, float[2,2] E, float[1024,512] T)
        <int64[2] shape = {1024, 1024}, int64[2] small = {2, 2}, float one = {1}> {
      G = ConstantOfShape(shape)
      E = Expand(one, small)
      T = Transpose(big)
    }""", extra_initializers=[("big", big)])
    kinds = dict((name, kind) for kind, name in reported(check_o1.check_all_constant, g))
    # 4 MiB from 16 bytes: the guard keeps it. 16 bytes of output: under the threshold.
    # A Transpose of a 2 MiB weight does not grow: it must fold whatever its size.
    assert kinds == {"G": "size-guard", "E": "all-constant", "T": "all-constant"}


def test_shape_of_a_fully_known_shape_only():
    g = graph("""c (float[2,3] X, float[N,3] D) => (int64[2] S, int64[2] T) {
      S = Shape(X)
      T = Shape(D)
    }""")
    assert reported(check_o1.check_known_shapes, g) == [("known-shape", "S")]


def test_identity_kept_only_where_an_output_name_needs_it():
    g = graph("""c (float[2] X) => (float[2] Y, float[2] Z, float[2] W) <float[2] w = {1, 2}> {
      R = Relu(X)
      Y = Identity(R)
      Z = Identity(X)
      W = Identity(w)
      V = Identity(X)
    }""")
    # V is read by nothing; W's and Z's names need a producer that can take them.
    assert reported(check_o1.check_identities, g) == [("identity", "Y"), ("identity", "V")]


def test_identity_between_two_graph_outputs_stays():
    g = graph("""c (float[2] X) => (float[2] R, float[2] Y) {
      R = Relu(X)
      Y = Identity(R)
    }""")
    assert reported(check_o1.check_identities, g) == []


def test_dropout_inference_rules_per_opset():
    text = """c (float[2] X) => (float[2] Y) {
      A = Relu(X)
      Y = Dropout(A)
    }"""
    assert reported(check_o1.check_dropouts, graph(text, opset=10)) == [("dropout", "Y")]
    assert reported(check_o1.check_dropouts, graph(text, opset=13)) == [("dropout", "Y")]
    test_mode = """c (float[2] X) => (float[2] Y) {
      A = Relu(X)
      Y = Dropout<is_test = 1>(A)
    }"""
    assert reported(check_o1.check_dropouts, graph(test_mode, opset=6)) == [("dropout", "Y")]
    assert reported(check_o1.check_dropouts, graph(text, opset=6)) == []


def test_dropout_training_mode_input():
    text = """c (float[2] X) => (float[2] Y) <float r = {0.5}, bool t = {%d}> {
      A = Relu(X)
      Y = Dropout(A, r, t)
    }"""
    assert reported(check_o1.check_dropouts, graph(text % 0)) == [("dropout", "Y")]
    assert reported(check_o1.check_dropouts, graph(text % 1)) == []
    fed = """c (float[2] X, bool t) => (float[2] Y) <float r = {0.5}> {
      A = Relu(X)
      Y = Dropout(A, r, t)
    }"""
    assert reported(check_o1.check_dropouts, graph(fed)) == []


def test_dropout_feeding_an_output_from_an_input_stays():
    g = graph("""c (float[2] X) => (float[2] Y) {
      Y = Dropout(X)
    }""")
    assert reported(check_o1.check_dropouts, g) == []


def test_dropout_whose_mask_is_read_needs_a_known_shape():
    text = """c (float[%s] X) => (float[%s] Y, bool[%s] M) {
      A = Relu(X)
      Y, M = Dropout(A)
    }"""
    assert reported(check_o1.check_dropouts, graph(text % (("2",) * 3))) == [("dropout", "Y")]
    assert reported(check_o1.check_dropouts, graph(text % (("N",) * 3))) == []


def test_cast_to_the_same_type_only():
    g = graph("""c (float[2] X) => (float[2] Y, int32[2] Z) {
      A = Relu(X)
      B = Cast<to = 1>(A)
      Y = Relu(B)
      Z = Cast<to = 6>(A)
    }""")
    assert reported(check_o1.check_nop_casts, g) == [("nop-cast", "B")]


BN_AFTER_CONV = """c (float[1,2,4,4] X) => (float[1,2,4,4] Y%(extra_output)s)
    <float[2,2,1,1] w = {1, 2, 3, 4}, float[2] s = {1, 2}, float[2] b = {0, 1},
     float[2] m = {0, 1}, float[2] v = {1, 2}> {
  C = Conv(X, w)
  Y = BatchNormalization%(attributes)s(C, s, b, m, v)
  %(more)s
}"""


def bn_graph(extra_output="", attributes="", more="", opset=15):
    return graph(BN_AFTER_CONV % dict(extra_output=extra_output, attributes=attributes,
                                      more=more), opset=opset)


def test_bn_after_conv_is_reported():
    assert reported(check_o1.check_bn_after_conv, bn_graph()) == [("bn-after-conv", "Y")]
    assert reported(check_o1.check_bn_after_conv, bn_graph(opset=9)) == [("bn-after-conv", "Y")]


def test_bn_after_conv_near_misses():
    training = bn_graph(attributes="<training_mode = 1>")
    conv_read_twice = bn_graph(extra_output=", float[1,2,4,4] Z", more="Z = Relu(C)")
    weight_shared = bn_graph(extra_output=", float[1,2,4,4] Z", more="Z = Conv(X, w)")
    for g in (training, conv_read_twice, weight_shared):
        assert reported(check_o1.check_bn_after_conv, g) == []


def test_reduce_unsqueeze_putting_back_the_reduced_axes_is_reported():
    g = graph("""c (float[N,3,4] X) => (float[N,1,4] Y, int64[N,3,1] A, float[1,N,4] O,
        float[N,1,1,4] K, float[N,1,4] S, float[N,4] shared)
        <int64[1] zero = {0}, int64[1] one = {1}, int64[1] two = {2}> {
      r = ReduceSum<keepdims = 0>(X, one)
      Y = Unsqueeze(r, one)
      a = ArgMax<axis = -1, keepdims = 0>(X)
      A = Unsqueeze(a, two)
      m = ReduceMean<axes = [1], keepdims = 0>(X)
      O = Unsqueeze(m, zero)
      k = ReduceMax<axes = [1]>(X)
      K = Unsqueeze(k, one)
      shared = ReduceMin<axes = [1], keepdims = 0>(X)
      S = Unsqueeze(shared, one)
    }""", opset=13)
    assert reported(check_o1.check_reduce_unsqueezes, g) == [("reduce-unsqueeze", "Y"),
                                                             ("reduce-unsqueeze", "A")]
