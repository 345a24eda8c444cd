// Protobuf wire-format writers, enough to build small ONNX models in memory (field numbers
// from onnx/onnx.proto): each returns the encoded bytes as an array of numbers.

export function varint(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
const key = (number, wire) => varint(number * 8 + wire);
// A varint field.
export const int = (number, v) => [...key(number, 0), ...varint(v)];
// A length-delimited field holding `content` (bytes of a message).
export const bytes = (number, content) => [...key(number, 2), ...varint(content.length), ...content];
// A string field.
export const str = (number, s) => bytes(number, [...Buffer.from(s, 'utf8')]);
