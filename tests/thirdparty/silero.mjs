// Silero VAD (@ricky0123/vad-web) under ONNX Runtime, original against optimized. The harness's
// random inputs give every dynamic dim one size, and the audio [batch, samples] needs more
// samples than batches (its STFT pads by reflection); here the sizes are given by hand, at
// 16 kHz (512 samples) and 8 kHz (256), batch 1 and 3: the audio `input`, the state (v5/v6:
// `state` [2, batch, 128]; legacy: `h` and `c` [2, batch, 64]) and the rate `sr`. Exit 1 on a
// difference.
//   node silero.mjs ORIGINAL.onnx OPTIMIZED.onnx
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const equivalence = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'equivalence');
const { compareTensors, loadOrt, PAIR_TOLERANCE } = await import(path.join(equivalence, 'lib', 'harness.mjs'));
const ort = loadOrt();
const [original, optimized] = process.argv.slice(2);
const options = { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
const sessions = await Promise.all([original, optimized].map((file) => ort.InferenceSession.create(file, options)));
let seed = 20240521;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
for (const [rate, samples, batch] of [[16000, 512, 1], [8000, 256, 1], [16000, 512, 3]]) {
  const floats = (dims) => new ort.Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b) }, random), dims);
  const byName = {
    input: () => floats([batch, samples]),
    state: () => floats([2, batch, 128]),
    h: () => floats([2, batch, 64]),
    c: () => floats([2, batch, 64]),
    sr: () => new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []),
  };
  const feeds = Object.fromEntries(sessions[0].inputNames.map((name) => [name, byName[name]()]));
  const [expected, actual] = await Promise.all(sessions.map((session) => session.run(feeds)));
  for (const name of sessions[0].outputNames) {
    const diff = compareTensors(actual[name], expected[name], PAIR_TOLERANCE, ['optimized', 'original']);
    if (diff) {
      console.log(`FAIL ${original} (${rate} Hz, batch ${batch}): output '${name}': ${diff}`);
      process.exit(1);
    }
  }
}
console.log(`PASS ${original}`);
