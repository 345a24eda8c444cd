// The checking half of the kernel-vs-ONNX-Runtime test: runs every case eval_kernel_cases wrote
// on ONNX Runtime (CPU, no graph optimizations, one thread) and compares ORT's outputs with the
// evaluator's: bit for bit ("exact") or within 4 ulp ("ulp4"). A case that ORT_NO_KERNEL lists
// (tests/eval/ort_no_kernel.txt) must be refused by ORT; a listed case that ORT runs is a
// failure too, so the list stays true.
//
// usage: node check_kernels.mjs CASES_DIR ORT_NO_KERNEL_FILE [--verbose]
// Prints one line per failure and a summary; exit status 1 when anything failed.

import fs from 'node:fs';
import path from 'node:path';
import { loadOrt } from '../equivalence/lib/harness.mjs';
import { decodeTensorProto } from '../equivalence/lib/tensorproto.mjs';

const SESSION_OPTIONS = {
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  executionProviders: ['cpu'],
  logSeverityLevel: 4,
};

function globToRegExp(glob) {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

function readNoKernelList(file) {
  const entries = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [pattern, reason] = line.split('\t');
    if (!reason) throw new Error(`${file}: '${line}': expected <case glob> TAB <reason>`);
    entries.push({ pattern, regexp: globToRegExp(pattern), reason, used: false });
  }
  return entries;
}

// The bits of a floating element as an integer that orders like the value (for ulp distances).
function orderedBits(type, data, i) {
  if (type === 'float64') {
    const bits = new BigInt64Array(data.buffer, data.byteOffset, data.length)[i];
    return bits < 0n ? -(bits & 0x7fffffffffffffffn) : bits;
  }
  if (type === 'float32') {
    const bits = new Int32Array(data.buffer, data.byteOffset, data.length)[i];
    return BigInt(bits < 0 ? -(bits & 0x7fffffff) : bits);
  }
  const bits = data[i];  // float16: the bit pattern
  return BigInt(bits & 0x8000 ? -(bits & 0x7fff) : bits);
}

function isNaNElement(type, data, i) {
  if (type === 'float16') return (data[i] & 0x7c00) === 0x7c00 && (data[i] & 0x3ff) !== 0;
  return Number.isNaN(data[i]);
}

function sameElement(type, a, b, i, match) {
  if (type === 'string' || type === 'int64' || type === 'uint64' || !['float32', 'float64', 'float16'].includes(type)) {
    return a[i] === b[i];
  }
  if (isNaNElement(type, a, i) || isNaNElement(type, b, i)) {
    return isNaNElement(type, a, i) && isNaNElement(type, b, i);
  }
  const distance = orderedBits(type, a, i) - orderedBits(type, b, i);
  const limit = match === 'ulp4' ? 4n : 0n;
  return distance <= limit && -distance <= limit;
}

function show(type, data, i) {
  if (type === 'float16') return `0x${data[i].toString(16)} (float16 bits)`;
  return typeof data[i] === 'string' ? JSON.stringify(data[i]) : String(data[i]);
}

function compare(actual, expected, match) {
  if (actual.type !== expected.type) return `type ${actual.type}, expected ${expected.type}`;
  if (actual.dims.join(',') !== expected.dims.join(',')) return `dims [${actual.dims}], expected [${expected.dims}]`;
  for (let i = 0; i < expected.data.length; ++i) {
    if (!sameElement(expected.type, actual.data, expected.data, i, match)) {
      return `element ${i}: ORT ${show(actual.type, actual.data, i)}, evaluator ${show(expected.type, expected.data, i)}`;
    }
  }
  return null;
}

function readTensor(file) {
  return decodeTensorProto(new Uint8Array(fs.readFileSync(file)));
}

async function runCase(ort, dir) {
  const data = path.join(dir, 'test_data_set_0');
  const files = fs.readdirSync(data);
  const count = (prefix) => files.filter((f) => f.startsWith(prefix)).length;
  const feeds = {};
  for (let i = 0; i < count('input_'); ++i) {
    const t = readTensor(path.join(data, `input_${i}.pb`));
    feeds[t.name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), SESSION_OPTIONS);
  try {
    const results = await session.run(feeds);
    const outputs = session.outputNames.map((name) => results[name]);
    return outputs.map((t) => ({ type: t.type, dims: Array.from(t.dims), data: t.data }));
  } finally {
    await session.release?.();
  }
}

async function main() {
  const [casesDir, noKernelFile, ...rest] = process.argv.slice(2);
  const verbose = rest.includes('--verbose');
  if (!casesDir || !noKernelFile) {
    console.error('usage: node check_kernels.mjs CASES_DIR ORT_NO_KERNEL_FILE [--verbose]');
    process.exit(3);
  }
  const ort = loadOrt();
  const noKernel = readNoKernelList(noKernelFile);
  const cases = fs.readFileSync(path.join(casesDir, 'cases.tsv'), 'utf8').split('\n').filter(Boolean)
    .map((line) => line.split('\t'));
  let passed = 0;
  let failed = 0;
  let refused = 0;
  for (const [name, match] of cases) {
    const listed = noKernel.find((e) => e.regexp.test(name));
    if (listed) listed.used = true;
    const dir = path.join(casesDir, name);
    let outputs;
    try {
      outputs = await runCase(ort, dir);
    } catch (e) {
      const why = String(e.message ?? e).replace(/\s+/g, ' ').trim();
      if (listed) {
        ++refused;
        if (verbose) console.log(`ORT-NO-KERNEL ${name}: ${listed.reason} (ORT: ${why})`);
      } else {
        ++failed;
        console.log(`FAIL ${name}: ORT cannot run it (${why}); if ORT has no kernel for it, list it in ort_no_kernel.txt`);
      }
      continue;
    }
    if (listed) {
      ++failed;
      console.log(`FAIL ${name}: listed as ORT has no kernel ('${listed.pattern}'), but ORT runs it`);
      continue;
    }
    const outputFiles = fs.readdirSync(path.join(dir, 'test_data_set_0')).filter((f) => f.startsWith('output_'));
    let diff = outputFiles.length === outputs.length ? null : `${outputs.length} outputs, expected ${outputFiles.length}`;
    for (let j = 0; !diff && j < outputs.length; ++j) {
      const d = compare(outputs[j], readTensor(path.join(dir, 'test_data_set_0', `output_${j}.pb`)), match);
      if (d) diff = `output ${j}: ${d}`;
    }
    if (diff) {
      ++failed;
      console.log(`FAIL ${name} (${match}): ${diff}`);
    } else {
      ++passed;
      if (verbose) console.log(`PASS ${name}`);
    }
  }
  for (const e of noKernel) {
    if (!e.used) {
      ++failed;
      console.log(`FAIL ort_no_kernel.txt: '${e.pattern}' matches no case`);
    }
  }
  console.log(`${passed} passed, ${failed} failed, ${refused} ORT-has-no-kernel (listed)`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(e.code === 'NO_ORT' ? 77 : 1);
});
