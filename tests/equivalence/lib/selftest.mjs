// A self-contained smoke test of the installed onnxruntime-node: builds a one-node ONNX model
// (y = Add(x, x), float[2], opset 13) in memory and runs it on the CPU backend. install.sh runs
// it after `npm ci`; `node compare.mjs --self-test` runs it by hand.

import { loadOrt } from './harness.mjs';
import { bytes, int, str } from './protowrite.mjs';

function tinyModel() {
  const tensorType = bytes(1, [...int(1, 1), ...bytes(2, bytes(1, int(1, 2)))]);  // float[2]
  const valueInfo = (name) => [...str(1, name), ...bytes(2, tensorType)];
  const node = [...str(1, 'x'), ...str(1, 'x'), ...str(2, 'y'), ...str(4, 'Add')];
  const graph = [...bytes(1, node), ...str(2, 'g'), ...bytes(11, valueInfo('x')), ...bytes(12, valueInfo('y'))];
  return Uint8Array.from([...int(1, 7), ...bytes(7, graph), ...bytes(8, [...str(1, ''), ...int(2, 13)])]);
}

export async function selfTest() {
  const ort = loadOrt();
  const session = await ort.InferenceSession.create(tinyModel(), {
    graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, executionProviders: ['cpu'],
  });
  const out = await session.run({ x: new ort.Tensor('float32', Float32Array.from([1.5, -2]), [2]) });
  await session.release();
  const y = Array.from(out.y.data);
  if (y.length !== 2 || y[0] !== 3 || y[1] !== -4) throw new Error(`self-test: Add(x, x) gave [${y}]`);
}
