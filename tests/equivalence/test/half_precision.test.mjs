// The harness compares the float outputs of a model that computes in float16 at float16's
// tolerance (lib/precision.mjs): a rewrite that moves one of ONNX Runtime's float16 roundings
// passes, a wrong rewrite still fails. Run: node --test tests/equivalence/test/
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';

import { check } from '../lib/harness.mjs';
import { halfPrecisionOf } from '../lib/precision.mjs';
import { bytes, int, str } from '../lib/protowrite.mjs';

const FLOAT = 1;
const FLOAT16 = 10;
const BFLOAT16 = 16;
const intAttribute = (name, v) => bytes(5, [...str(1, name), ...int(3, v), ...int(20, 2)]);
const node = (op, inputs, outputs, attributes = []) =>
  bytes(1, [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(4, op),
    ...attributes.flat()]);
const tensorType = (elem) => bytes(1, [...int(1, elem), ...bytes(2, [...bytes(1, int(1, 1)), ...bytes(1, int(1, 64))])]);
const valueInfo = (number, name, elem) => bytes(number, [...str(1, name), ...bytes(2, tensorType(elem))]);
const model = (nodes, extra = []) => Uint8Array.from([
  ...int(1, 8),
  ...bytes(7, [...nodes.flat(), ...str(2, 'g'), ...valueInfo(11, 'x', FLOAT), ...valueInfo(12, 'z', FLOAT), ...extra]),
  ...bytes(8, [...str(1, ''), ...int(2, 13)]),
]);

// z = float(op(half(x), half(x))) * x, the float16 result read through an Identity or not.
function castSandwich(op, { identity }) {
  const read = identity ? 'i' : 'b';
  return model([
    node('Cast', ['x'], ['a'], [intAttribute('to', FLOAT16)]),
    node(op, ['a', 'a'], ['b']),
    ...(identity ? [node('Identity', ['b'], ['i'])] : []),
    node('Cast', [read], ['y'], [intAttribute('to', FLOAT)]),
    node('Mul', ['y', 'x'], ['z']),
  ]);
}

test('a model is half precision by a Cast to, an initializer or a type, in any graph', () => {
  const floatOnly = model([node('Relu', ['x'], ['y']), node('Mul', ['y', 'x'], ['z'])]);
  assert.equal(halfPrecisionOf(floatOnly), null);
  assert.equal(halfPrecisionOf(castSandwich('Add', { identity: false })), 'float16');
  const halfInitializer = bytes(5, [...int(1, 64), ...int(2, FLOAT16), ...str(8, 'w')]);
  assert.equal(halfPrecisionOf(model([node('Relu', ['x'], ['z'])], halfInitializer)), 'float16');
  const branch = bytes(6, [...node('Cast', ['x'], ['t'], [intAttribute('to', BFLOAT16)]), ...str(2, 'then')]);
  const ifNode = node('If', ['c'], ['z'], [bytes(5, [...str(1, 'then_branch'), ...branch, ...int(20, 5)])]);
  assert.equal(halfPrecisionOf(model([ifNode])), 'bfloat16');
  // An integer attribute of 10 that is not a Cast's `to` says nothing about types.
  assert.equal(halfPrecisionOf(model([node('Flatten', ['x'], ['z'], [intAttribute('axis', FLOAT16)])])), null);
  assert.equal(halfPrecisionOf(model([], valueInfo(13, 'v', FLOAT16))), 'float16');
});

test('a moved float16 rounding passes at float16 tolerance, a wrong rewrite fails', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-half-'));
  try {
    const write = (name, bytesOfModel) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, bytesOfModel);
      return file;
    };
    const original = write('original.onnx', castSandwich('Add', { identity: true }));
    const withoutIdentity = write('without_identity.onnx', castSandwich('Add', { identity: false }));
    const wrong = write('wrong.onnx', castSandwich('Sub', { identity: false }));

    const moved = await check({ original, optimized: withoutIdentity, runs: 1 });
    assert.equal(moved.status, 'pass', moved.message);
    assert.match(moved.notes.join('\n'), /compared at float16 tolerance: the model computes in float16/);

    const broken = await check({ original, optimized: wrong, runs: 1 });
    assert.equal(broken.status, 'fail');
    assert.match(broken.message, /output 'z'/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
