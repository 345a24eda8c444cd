// A minimal decoder for onnx.TensorProto (onnx/onnx.proto), enough for the backend test data
// files test_data_set_*/{input,output}_*.pb: dims, data_type, name, raw_data and the typed
// repeated fields (packed or not). No dependency: the protobuf wire format is small.
//
// decodeTensorProto(bytes) -> { name, dataType, type, dims: number[], data }
//   type is onnxruntime-node's type string ('float32', 'int64', 'bool', ...) or null when
//   onnxruntime-node has no such type (bfloat16, complex); data is the typed array ORT expects
//   (BigInt64Array for int64, Uint16Array with the bit patterns for float16, Uint8Array for bool,
//   string[] for string).
// isTensorProtoFile(bytes) tells a TensorProto from a SequenceProto/MapProto/OptionalProto file
// as well as the wire format allows (see the function).

// onnx.TensorProto.DataType -> [ORT type string or null, ONNX name, bytes per element]
export const ONNX_DATA_TYPES = {
  1: ['float32', 'float', 4],
  2: ['uint8', 'uint8', 1],
  3: ['int8', 'int8', 1],
  4: ['uint16', 'uint16', 2],
  5: ['int16', 'int16', 2],
  6: ['int32', 'int32', 4],
  7: ['int64', 'int64', 8],
  8: ['string', 'string', 0],
  9: ['bool', 'bool', 1],
  10: ['float16', 'float16', 2],
  11: ['float64', 'double', 8],
  12: ['uint32', 'uint32', 4],
  13: ['uint64', 'uint64', 8],
  14: [null, 'complex64', 8],
  15: [null, 'complex128', 16],
  16: [null, 'bfloat16', 2],
  17: [null, 'float8e4m3fn', 1],
  18: [null, 'float8e4m3fnuz', 1],
  19: [null, 'float8e5m2', 1],
  20: [null, 'float8e5m2fnuz', 1],
  21: [null, 'uint4', 0],
  22: [null, 'int4', 0],
};

const TYPED_ARRAY = {
  float32: Float32Array,
  uint8: Uint8Array,
  int8: Int8Array,
  uint16: Uint16Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array,
  float16: Uint16Array,
  float64: Float64Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
};

export function typedArrayFor(type) {
  return TYPED_ARRAY[type];
}

export class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.buf = bytes;
    this.pos = pos;
    this.end = end;
  }
  done() {
    return this.pos >= this.end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error('truncated protobuf message');
    return this.buf[this.pos++];
  }
  // Varint as a Number: exact up to 2^53 (tags, lengths, enums, dims of real tensors).
  varint() {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; ++i) {
      const b = this.byte();
      result += (b & 0x7f) * mul;
      if (!(b & 0x80)) return result;
      mul *= 128;
    }
    throw new Error('malformed varint');
  }
  // Varint as an unsigned 64-bit BigInt.
  varintBig() {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; ++i) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    throw new Error('malformed varint');
  }
  bytes() {
    const n = this.varint();
    if (this.pos + n > this.end) throw new Error('truncated length-delimited field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wireType) {
    switch (wireType) {
      case 0: this.varintBig(); break;
      case 1: this.pos += 8; break;
      case 2: this.bytes(); break;
      case 5: this.pos += 4; break;
      default: throw new Error(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new Error('truncated protobuf message');
  }
}

// Reads a repeated scalar field that may be packed (wire type 2) or not, appending to `out`.
// kind: 'varint' (BigInt, unsigned 64), 'f32', 'f64'.
function readRepeated(r, wireType, kind, out) {
  const readOne = (rr) => {
    if (kind === 'varint') return rr.varintBig();
    const view = new DataView(rr.buf.buffer, rr.buf.byteOffset + rr.pos, kind === 'f32' ? 4 : 8);
    rr.pos += kind === 'f32' ? 4 : 8;
    if (rr.pos > rr.end) throw new Error('truncated fixed-width field');
    return kind === 'f32' ? view.getFloat32(0, true) : view.getFloat64(0, true);
  };
  if (wireType === 2) {
    const payload = r.bytes();
    const sub = new Reader(payload);
    while (!sub.done()) out.push(readOne(sub));
  } else {
    out.push(readOne(r));
  }
}

const utf8 = new TextDecoder('utf-8');

export function decodeTensorProto(bytes) {
  const r = new Reader(bytes);
  const t = {
    name: '',
    dataType: 0,
    dims: [],
    raw: null,
    floatData: [],
    int32Data: [],
    stringData: [],
    int64Data: [],
    doubleData: [],
    uint64Data: [],
    dataLocation: 0,
    hasSegment: false,
  };
  while (!r.done()) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    switch (field) {
      case 1: {  // dims: repeated int64
        const tmp = [];
        readRepeated(r, wire, 'varint', tmp);
        for (const d of tmp) t.dims.push(Number(BigInt.asIntN(64, d)));
        break;
      }
      case 2: t.dataType = Number(BigInt.asIntN(32, r.varintBig())); break;
      case 3: t.hasSegment = true; r.skip(wire); break;
      case 4: readRepeated(r, wire, 'f32', t.floatData); break;
      case 5: readRepeated(r, wire, 'varint', t.int32Data); break;
      case 6: t.stringData.push(r.bytes()); break;
      case 7: readRepeated(r, wire, 'varint', t.int64Data); break;
      case 8: t.name = utf8.decode(r.bytes()); break;
      case 9: t.raw = r.bytes(); break;
      case 10: readRepeated(r, wire, 'f64', t.doubleData); break;
      case 11: readRepeated(r, wire, 'varint', t.uint64Data); break;
      case 14: t.dataLocation = r.varint(); break;
      default: r.skip(wire);
    }
  }
  const info = ONNX_DATA_TYPES[t.dataType];
  if (!info) throw new Error(`tensor '${t.name}': unknown data_type ${t.dataType}`);
  const [type, onnxName, elemSize] = info;
  const result = { name: t.name, dataType: t.dataType, onnxType: onnxName, type, dims: t.dims, data: null };
  if (t.dataLocation === 1) throw new Error(`tensor '${t.name}': external data is not supported`);
  if (t.hasSegment) throw new Error(`tensor '${t.name}': segmented tensors are not supported`);
  if (type === null) return result;  // decoded enough to say why ORT cannot take it

  const count = t.dims.reduce((a, b) => a * b, 1);
  if (type === 'string') {
    if (t.stringData.length !== count) {
      throw new Error(`tensor '${t.name}': ${t.stringData.length} strings for ${count} elements`);
    }
    result.data = t.stringData.map((b) => utf8.decode(b));
    return result;
  }
  const Ctor = TYPED_ARRAY[type];
  let data;
  if (t.raw !== null) {
    if (t.raw.length !== count * elemSize) {
      throw new Error(`tensor '${t.name}': raw_data has ${t.raw.length} bytes, expected ${count * elemSize}`);
    }
    // Copy into a fresh, aligned buffer (raw_data is little-endian, as is x86/ARM).
    const copy = new Uint8Array(t.raw.length);
    copy.set(t.raw);
    data = new Ctor(copy.buffer, 0, count);
  } else {
    let src;
    switch (type) {
      case 'float32': src = t.floatData; break;
      case 'float64': src = t.doubleData; break;
      case 'int64': src = t.int64Data.map((v) => BigInt.asIntN(64, v)); break;
      case 'uint64': src = t.uint64Data; break;
      case 'uint32': src = t.uint64Data.map((v) => Number(BigInt.asUintN(32, v))); break;
      case 'int32': case 'int16': case 'int8':
        src = t.int32Data.map((v) => Number(BigInt.asIntN(32, v)));
        break;
      case 'uint16': case 'uint8': case 'bool': case 'float16':  // float16: the bit pattern
        src = t.int32Data.map((v) => Number(BigInt.asUintN(32, v)));
        break;
      default: throw new Error(`tensor '${t.name}': unhandled type ${type}`);
    }
    if (src.length !== count) {
      throw new Error(`tensor '${t.name}': ${src.length} values for ${count} elements (dims [${t.dims}])`);
    }
    data = Ctor.from(src);
  }
  result.data = data;
  return result;
}

// The backend test data stores SequenceProto / MapProto / OptionalProto files next to
// TensorProto ones, with nothing in the file to say which it is; the model's input/output type
// says so. This check is a heuristic for messages only: a TensorProto has no field numbers
// above 14 and field 2 (data_type) is a varint.
export function looksLikeTensorProto(bytes) {
  try {
    const r = new Reader(bytes);
    while (!r.done()) {
      const tag = r.varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (field < 1 || field > 16) return false;
      if (field === 2 && wire !== 0) return false;
      r.skip(wire);
    }
    return true;
  } catch {
    return false;
  }
}
