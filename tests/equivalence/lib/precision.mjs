// Whether a model computes in half precision (float16 or bfloat16), read off its bytes with no
// dependency: a tensor type, an initializer or Constant, or a Cast `to` of either type, in any
// graph or function.
//
// Why the harness asks: ONNX Runtime's CPU provider computes a float16 operator it has no
// float16 kernel for in float32, and then drops the rounding to float16 between two such
// operators, and before a Cast to float whose output is not a graph output (its
// InsertCastTransformer and RemoveDuplicateCastTransformer, at every optimization level). Where
// it rounds therefore depends on the graph's shape: removing an Identity between two float16
// Adds, or merging two equal Casts of which one is a graph output, moves a rounding, and the
// outputs move by about one float16 rounding, though the two models are equal under ONNX's
// semantics. So float outputs of such a model are compared at float16's tolerance.

import { Reader } from './tensorproto.mjs';

const HALF_TYPES = { 10: 'float16', 16: 'bfloat16' };
const utf8 = new TextDecoder('utf-8');

// Each (field number, wire type, value) of one message; value is a Number for varints, the
// payload (a subarray) for length-delimited fields, undefined for the rest (skipped).
function* fields(bytes) {
  const r = new Reader(bytes);
  while (!r.done()) {
    const key = r.varint();
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) yield [number, wire, r.varint()];
    else if (wire === 2) yield [number, wire, r.bytes()];
    else {
      r.skip(wire);
      yield [number, wire, undefined];
    }
  }
}

function tensorHalf(tensor) {
  for (const [number, wire, value] of fields(tensor)) {
    if (number === 2 && wire === 0 && HALF_TYPES[value]) return HALF_TYPES[value];
  }
  return null;
}

// TypeProto: tensor_type (1) and sparse_tensor_type (8) have elem_type 1; sequence (4),
// optional (9) nest a TypeProto as field 1, map (5) as field 2.
function typeHalf(type) {
  for (const [number, wire, value] of fields(type)) {
    if (wire !== 2) continue;
    if (number === 1 || number === 8) {
      for (const [n, w, elem] of fields(value)) {
        if (n === 1 && w === 0 && HALF_TYPES[elem]) return HALF_TYPES[elem];
      }
    } else if (number === 4 || number === 9 || number === 5) {
      for (const [n, w, inner] of fields(value)) {
        if (w === 2 && n === (number === 5 ? 2 : 1)) {
          const found = typeHalf(inner);
          if (found) return found;
        }
      }
    }
  }
  return null;
}

function valueInfoHalf(info) {
  for (const [number, wire, value] of fields(info)) {
    if (number === 2 && wire === 2) return typeHalf(value);
  }
  return null;
}

function attributeHalf(attribute, isCast) {
  let name = '';
  let found = null;
  for (const [number, wire, value] of fields(attribute)) {
    if (number === 1 && wire === 2) name = utf8.decode(value);
    else if (number === 3 && wire === 0 && HALF_TYPES[value]) found ??= { to: HALF_TYPES[value] };
    else if (wire === 2 && (number === 5 || number === 10)) found ??= tensorHalf(value);
    else if (wire === 2 && (number === 6 || number === 11)) found ??= graphHalf(value);
    else if (wire === 2 && number === 22) found ??= sparseHalf(value);
  }
  if (found && typeof found === 'object') return isCast && name === 'to' ? found.to : null;
  return found;
}

function sparseHalf(sparse) {
  for (const [number, wire, value] of fields(sparse)) {
    if (number === 1 && wire === 2) return tensorHalf(value);
  }
  return null;
}

function nodeHalf(node) {
  let isCast = false;
  const attributes = [];
  for (const [number, wire, value] of fields(node)) {
    if (number === 4 && wire === 2) isCast = utf8.decode(value) === 'Cast';
    else if (number === 5 && wire === 2) attributes.push(value);
  }
  for (const attribute of attributes) {
    const found = attributeHalf(attribute, isCast);
    if (found) return found;
  }
  return null;
}

// GraphProto: node 1, initializer 5, input 11, output 12, value_info 13, sparse_initializer 15.
function graphHalf(graph) {
  for (const [number, wire, value] of fields(graph)) {
    if (wire !== 2) continue;
    let found = null;
    if (number === 1) found = nodeHalf(value);
    else if (number === 5) found = tensorHalf(value);
    else if (number === 11 || number === 12 || number === 13) found = valueInfoHalf(value);
    else if (number === 15) found = sparseHalf(value);
    if (found) return found;
  }
  return null;
}

// 'float16' or 'bfloat16' when the ModelProto `bytes` computes in that type, else null.
export function halfPrecisionOf(bytes) {
  for (const [number, wire, value] of fields(bytes)) {
    if (wire !== 2) continue;
    if (number === 7) {
      const found = graphHalf(value);
      if (found) return found;
    } else if (number === 25) {  // FunctionProto: node 7
      for (const [n, w, node] of fields(value)) {
        if (n === 7 && w === 2) {
          const found = nodeHalf(node);
          if (found) return found;
        }
      }
    }
  }
  return null;
}
