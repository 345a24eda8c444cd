// An optimized model whose interface differs from the original's fails the comparison, unless
// ONNX Runtime cannot run the original at all: it reports an output's shape from its own
// inference, which can be wrong exactly where the original's runs fail (an If returning an
// Einsum that broadcasts, seed 3060 graph 4464). Run: node --test tests/equivalence/test/
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';

import { check } from '../lib/harness.mjs';
import { bytes, int, str } from '../lib/protowrite.mjs';

const FLOAT = 1;
const INT64 = 7;
const node = (op, inputs, outputs) =>
  bytes(1, [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(4, op)]);
const valueInfo = (number, name, size) =>
  bytes(number, [...str(1, name), ...bytes(2, bytes(1, [...int(1, FLOAT), ...bytes(2, bytes(1, int(1, size)))]))]);
// int64[1] `name` = {value}
const index = (name, value) =>
  bytes(5, [...int(1, 1), ...int(2, INT64), ...str(8, name), ...bytes(9, [...Buffer.from(new BigInt64Array([BigInt(value)]).buffer)])]);
// y = Gather(x, {at}): x float[2], y declared float[ySize].
const gather = (at, ySize) => Uint8Array.from([
  ...int(1, 8),
  ...bytes(7, [...node('Gather', ['x', 'i'], ['y']), ...str(2, 'g'), ...index('i', at),
    ...valueInfo(11, 'x', 2), ...valueInfo(12, 'y', ySize)]),
  ...bytes(8, [...str(1, ''), ...int(2, 13)]),
]);
// y = Add(x, x), declared float[2].
const add = Uint8Array.from([
  ...int(1, 8),
  ...bytes(7, [...node('Add', ['x', 'x'], ['y']), ...str(2, 'g'), ...valueInfo(11, 'x', 2), ...valueInfo(12, 'y', 2)]),
  ...bytes(8, [...str(1, ''), ...int(2, 13)]),
]);

test('a changed interface fails, unless ONNX Runtime runs the original on no input', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-interface-'));
  try {
    const write = (name, model) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, model);
      return file;
    };
    const optimized = write('add.onnx', add);

    const runs = await check({ original: write('gather_1.onnx', gather(1, 1)), optimized, runs: 1 });
    assert.equal(runs.status, 'fail');
    assert.match(runs.message, /output 'y' changed type/);

    const fails = await check({ original: write('gather_5.onnx', gather(5, 1)), optimized, runs: 1 });
    assert.equal(fails.status, 'cannot-run', fails.message);
    assert.match(fails.message, /ORT cannot run the original/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
