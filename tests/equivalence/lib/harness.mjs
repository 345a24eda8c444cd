// The numerical-equivalence checks, shared by compare.mjs (one pair, or a worker that checks
// many pairs in one long-lived process) and run.mjs (the drivers).
//
// check(job, onPhase) -> { status: 'pass' | 'fail' | 'cannot-run', message, notes: [] }
//   job = { original, optimized?, expectedDir?, seed, runs, intRange, dimSizes?, staleDeclarations? }
//   dimSizes: one object per run giving the size of each symbolic dim by name ('*' for the
//   others); without it every dynamic dim of run r gets DYNAMIC_DIM_SIZES[r].
//   staleDeclarations: the original's value_info may be stale (checkInterface).
//   'cannot-run': ONNX Runtime cannot load or run the ORIGINAL model (or, in expected-output
//   mode, its output for the original is not the stored expected output): not onnx-opt's fault,
//   the caller decides whether that is a skip.
//   'fail': the optimized model differs from the original (interface, a shape, a value), or ORT
//   cannot load/run it although it runs the original, or (without an optimized model) the
//   model's outputs differ from the stored expected ones.
//   onPhase(name) is called before each step that could crash the process inside ORT, so a
//   supervising process can tell whether the original or the optimized model killed it.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { decodeTensorProto, looksLikeTensorProto, typedArrayFor } from './tensorproto.mjs';
import { halfPrecisionOf } from './precision.mjs';

const require = createRequire(import.meta.url);
let ortModule = null;

export function loadOrt() {
  if (ortModule) return ortModule;
  try {
    ortModule = require('onnxruntime-node');
  } catch (e) {
    const err = new Error(
      `cannot load onnxruntime-node (${e.message.split('\n')[0]}); ` +
      `run tests/equivalence/install.sh first`);
    err.code = 'NO_ORT';
    throw err;
  }
  return ortModule;
}

export function ortVersion() {
  try {
    return require('onnxruntime-node/package.json').version;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// Tolerances. |actual - reference| <= atol + rtol * |reference|, element by element; NaN must be
// NaN in both, +-Inf must be the same infinity in both. Integer, bool and string outputs must be
// identical.
//
// ORIGINAL vs OPTIMIZED, same runtime, same inputs: the only legitimate differences come from a
// rewrite changing the order or grouping of floating-point operations (Gemm's fused
// alpha*AB + beta*C vs MatMul then Add, a transposed operand read in another order, ...): a few
// rounding steps, i.e. a few ulps of the intermediate magnitudes.
export const PAIR_TOLERANCE = {
  float32: { rtol: 1e-4, atol: 1e-5 },
  float16: { rtol: 1e-2, atol: 1e-2 },
  float64: { rtol: 1e-10, atol: 1e-12 },
};
// Model vs the EXPECTED outputs stored in ONNX's backend test data: those were computed by a
// different implementation (numpy reference code, PyTorch), so ORT legitimately differs more.
// These are the ONNX backend test runner's defaults (onnx/backend/test/runner: rtol=1e-3,
// atol=1e-7), with atol raised where float32 arithmetic on values of order 1 needs it.
export const EXPECTED_TOLERANCE = {
  float32: { rtol: 1e-3, atol: 1e-5 },
  float16: { rtol: 1e-2, atol: 1e-3 },
  float64: { rtol: 1e-3, atol: 1e-7 },
};

// Sizes given to symbolic / unknown dims, run by run: run 0 uses 1, run 1 uses 3, ...
// (1 and a size > 1 exercise dynamic-batch rewrites; 3 differs from the usual static dims 2/4.)
export const DYNAMIC_DIM_SIZES = [1, 3, 2, 5];
export const DEFAULT_SEED = 20240521;
export const DEFAULT_RUNS = 2;
export const DEFAULT_INT_RANGE = [0, 2];  // inclusive; small: inputs are often indices

const SESSION_OPTIONS = {
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  executionProviders: ['cpu'],
  logSeverityLevel: 4,  // fatal only: errors reach us as exceptions, no stderr noise
};

const RUN_OPTIONS = { logSeverityLevel: 4 };

class Outcome extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}
const cannotRun = (message) => new Outcome('cannot-run', message);
const failure = (message) => new Outcome('fail', message);

function errText(e) {
  const text = (e && e.message) ? e.message : String(e);
  // ORT messages repeat the file path and carry a trailing newline; one line is enough.
  return text.replace(/Load model from \S+ failed:\s*/, '').replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// float16 <-> float32

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

export function floatToHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half += 1;  // may carry into the exponent: fine
  return sign | half;
}

// ---------------------------------------------------------------------------------------------
// Seeded pseudo-random inputs.

function mulberry32(a) {
  return function next() {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mixSeed(...parts) {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p & 0xffff), 0x01000193);
    h = Math.imul(h ^ ((p >>> 16) & 0xffff), 0x01000193);
  }
  return h >>> 0;
}

function isDynamic(d) {
  return typeof d !== 'number' || d < 0;
}

export function hasDynamicDims(metadata) {
  return metadata.some((m) => m.isTensor && Array.isArray(m.shape) && m.shape.some(isDynamic));
}

// `dynSize`: the size of every dynamic dim, or an object giving a size per symbol (dim_param),
// with '*' for the dims it does not name.
function dynamicDimSize(dim, dynSize) {
  if (typeof dynSize === 'number') return dynSize;
  return dynSize[dim] ?? dynSize['*'] ?? DYNAMIC_DIM_SIZES[0];
}

function randomTensor(ort, meta, rand, dynSize, intRange) {
  if (!Array.isArray(meta.shape)) {
    throw cannotRun(`input '${meta.name}' has no shape (unknown rank): cannot make up an input`);
  }
  const dims = meta.shape.map((d) => (isDynamic(d) ? dynamicDimSize(d, dynSize) : d));
  const n = dims.reduce((a, b) => a * b, 1);
  const [lo, hi] = intRange;
  const int = () => lo + Math.floor(rand() * (hi - lo + 1));
  const real = () => rand() * 2 - 1;  // uniform in [-1, 1)
  let data;
  switch (meta.type) {
    case 'float32': data = new Float32Array(n); for (let i = 0; i < n; ++i) data[i] = real(); break;
    case 'float64': data = new Float64Array(n); for (let i = 0; i < n; ++i) data[i] = real(); break;
    case 'float16': data = new Uint16Array(n); for (let i = 0; i < n; ++i) data[i] = floatToHalf(real()); break;
    case 'bool': data = new Uint8Array(n); for (let i = 0; i < n; ++i) data[i] = rand() < 0.5 ? 1 : 0; break;
    case 'int64': data = new BigInt64Array(n); for (let i = 0; i < n; ++i) data[i] = BigInt(int()); break;
    case 'uint64': data = new BigUint64Array(n); for (let i = 0; i < n; ++i) data[i] = BigInt(Math.max(0, int())); break;
    case 'int32': case 'int16': case 'int8':
    case 'uint32': case 'uint16': case 'uint8': {
      const Ctor = typedArrayFor(meta.type);
      data = new Ctor(n);
      const unsigned = meta.type.startsWith('u');
      for (let i = 0; i < n; ++i) data[i] = unsigned ? Math.max(0, int()) : int();
      break;
    }
    case 'string': data = Array.from({ length: n }, () => `s${int()}`); break;
    default:
      throw cannotRun(`input '${meta.name}' has element type ${meta.type}, which this harness cannot generate`);
  }
  return new ort.Tensor(meta.type, data, dims);
}

export function makeRandomFeeds(ort, inputMetadata, seed, run, dynSize, intRange) {
  const feeds = {};
  inputMetadata.forEach((meta, i) => {
    if (!meta.isTensor) {
      throw cannotRun(`input '${meta.name}' is not a tensor (sequence/map/optional): onnxruntime-node feeds tensors only`);
    }
    feeds[meta.name] = randomTensor(ort, meta, mulberry32(mixSeed(seed, run, i)), dynSize, intRange);
  });
  return feeds;
}

// ---------------------------------------------------------------------------------------------
// Comparison.

function flatToIndex(flat, dims) {
  const idx = new Array(dims.length).fill(0);
  for (let k = dims.length - 1; k >= 0; --k) {
    const d = dims[k];
    if (d > 0) {
      idx[k] = flat % d;
      flat = Math.floor(flat / d);
    }
  }
  return idx;
}

function fmt(v, type) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v)) {
    return v.toPrecision(type === 'float64' ? 17 : 9);
  }
  return String(v);
}

const FLOAT_TYPES = new Set(['float32', 'float16', 'float64']);

// Compares `actual` against `reference` ({type, dims, data} each). Returns null when equal
// within `tolerances`, else a one-line description of the first difference.
export function compareTensors(actual, reference, tolerances, labels = ['actual', 'reference']) {
  const [la, lr] = labels;
  if (actual.type !== reference.type) {
    return `element type ${la} ${actual.type}, ${lr} ${reference.type}`;
  }
  const da = Array.from(actual.dims, Number);
  const dr = Array.from(reference.dims, Number);
  if (da.length !== dr.length || da.some((d, i) => d !== dr[i])) {
    return `shape ${la} [${da.join(', ')}], ${lr} [${dr.join(', ')}]`;
  }
  const a = actual.data;
  const r = reference.data;
  if (a.length !== r.length) return `${la} has ${a.length} elements, ${lr} ${r.length}`;
  const type = actual.type;
  let bad = 0;
  let first = -1;
  let firstWhy = '';
  let maxAbs = 0;
  if (FLOAT_TYPES.has(type)) {
    const tol = tolerances[type];
    const half = type === 'float16';
    for (let i = 0; i < a.length; ++i) {
      const x = half ? halfToFloat(a[i]) : a[i];
      const y = half ? halfToFloat(r[i]) : r[i];
      let ok;
      let why = '';
      if (Number.isNaN(x) || Number.isNaN(y)) {
        ok = Number.isNaN(x) && Number.isNaN(y);
        why = 'NaN in one only';
      } else if (!Number.isFinite(x) || !Number.isFinite(y)) {
        ok = x === y;
        why = 'infinity in one only';
      } else {
        const diff = Math.abs(x - y);
        const allowed = tol.atol + tol.rtol * Math.abs(y);
        ok = diff <= allowed;
        if (diff > maxAbs) maxAbs = diff;
        why = `|diff| ${diff.toExponential(3)} > ${allowed.toExponential(3)} = atol ${tol.atol} + rtol ${tol.rtol} * |${lr}|`;
      }
      if (!ok) {
        if (first < 0) {
          first = i;
          firstWhy = why;
        }
        ++bad;
      }
    }
    if (bad === 0) return null;
    const x = half ? halfToFloat(a[first]) : a[first];
    const y = half ? halfToFloat(r[first]) : r[first];
    return `${bad} of ${a.length} elements differ; first at [${flatToIndex(first, da).join(', ')}] ` +
      `(flat ${first}): ${la} ${fmt(x, type)}, ${lr} ${fmt(y, type)} (${firstWhy}); ` +
      `max |diff| ${maxAbs.toExponential(3)}`;
  }
  for (let i = 0; i < a.length; ++i) {
    if (a[i] !== r[i]) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad === 0) return null;
  return `${bad} of ${a.length} elements differ (${type}, must be exact); first at ` +
    `[${flatToIndex(first, da).join(', ')}] (flat ${first}): ${la} ${fmt(a[first], type)}, ${lr} ${fmt(r[first], type)}`;
}

// ---------------------------------------------------------------------------------------------
// Sessions.

// `level`: ONNX Runtime's graph optimization level, 'disabled' unless the job says.
async function createSession(ort, file, level = 'disabled') {
  return ort.InferenceSession.create(file, { ...SESSION_OPTIONS, graphOptimizationLevel: level });
}

function describeSignature(metadata) {
  return metadata.map((m) => {
    if (!m.isTensor) return `${m.name}: non-tensor`;
    const shape = Array.isArray(m.shape) ? `[${m.shape.map((d) => (d === '' ? '?' : d)).join(',')}]` : '(unknown rank)';
    return `${m.name}: ${m.type}${shape}`;
  }).join('; ');
}

function sameDim(a, b) {
  if (typeof a === 'number' && a >= 0 && typeof b === 'number' && b >= 0) return a === b;
  return true;  // a symbolic or unknown dim on either side: no claim to check
}

// The optimized model must have the original's interface: same input and output names in the
// same order, same element types and, unless `staleDeclarations`, same ranks and no conflicting
// static dims (ONNX Runtime derives an output's shape from the value_info it merges, so a stale
// declaration of the original can show in its outputs' shapes; the runs compare real shapes).
function checkInterface(orig, opt, staleDeclarations) {
  for (const [what, o, p] of [['inputs', orig.inputMetadata, opt.inputMetadata],
                              ['outputs', orig.outputMetadata, opt.outputMetadata]]) {
    const on = o.map((m) => m.name);
    const pn = p.map((m) => m.name);
    if (on.length !== pn.length || on.some((n, i) => n !== pn[i])) {
      throw failure(`the optimized model's ${what} are [${pn.join(', ')}], the original's [${on.join(', ')}]`);
    }
    for (let i = 0; i < o.length; ++i) {
      const a = o[i];
      const b = p[i];
      let same = a.isTensor === b.isTensor && a.type === b.type;
      if (same && a.isTensor && Array.isArray(a.shape) && Array.isArray(b.shape)) {
        same = staleDeclarations ||
          (a.shape.length === b.shape.length && a.shape.every((d, k) => sameDim(d, b.shape[k])));
      }
      if (!same) {
        throw failure(`${what.slice(0, -1)} '${a.name}' changed type: original ${describeSignature([a])}, ` +
          `optimized ${describeSignature([b])}`);
      }
    }
  }
}

function fromOrt(t) {
  return { type: t.type, dims: t.dims, data: t.data };
}

// ---------------------------------------------------------------------------------------------
// Random-input mode: ORIGINAL vs OPTIMIZED on seeded inputs.

async function checkRandom(ort, orig, opt, job, onPhase, notes, pairTolerance) {
  const dynamic = hasDynamicDims(orig.inputMetadata);
  const runs = Math.max(1, job.runs ?? DEFAULT_RUNS);
  const seed = job.seed ?? DEFAULT_SEED;
  const intRange = job.intRange ?? DEFAULT_INT_RANGE;
  let compared = 0;
  const originalErrors = [];
  for (let run = 0; run < runs; ++run) {
    const dynSize = job.dimSizes?.[run % job.dimSizes.length] ?? DYNAMIC_DIM_SIZES[run % DYNAMIC_DIM_SIZES.length];
    const dims = typeof dynSize === 'number' ? dynSize : JSON.stringify(dynSize);
    const where = `run ${run} (seed ${seed}${dynamic ? `, dynamic dims = ${dims}` : ''})`;
    const feeds = makeRandomFeeds(ort, orig.inputMetadata, seed, run, dynSize, intRange);
    onPhase('original-run');
    let ref;
    try {
      ref = await orig.run(feeds, RUN_OPTIONS);
    } catch (e) {
      originalErrors.push(`${where}: ${errText(e)}`);
      continue;
    }
    if (opt) {
      onPhase('optimized-run');
      let out;
      try {
        out = await opt.run(feeds, RUN_OPTIONS);
      } catch (e) {
        throw failure(`${where}: ORT runs the original but not the optimized model: ${errText(e)}`);
      }
      for (const name of orig.outputNames) {
        const diff = compareTensors(fromOrt(out[name]), fromOrt(ref[name]), pairTolerance, ['optimized', 'original']);
        if (diff) throw failure(`${where}: output '${name}': ${diff}`);
      }
    }
    ++compared;
  }
  if (compared === 0) throw cannotRun(`ORT cannot run the original on random inputs: ${originalErrors[0]}`);
  for (const e of originalErrors) notes.push(`original rejects the inputs of ${e} (run skipped)`);
  return compared;
}

// ---------------------------------------------------------------------------------------------
// Expected-output mode: ONNX backend test data (test_data_set_*/input_*.pb, output_*.pb).

function listPb(dir, prefix) {
  return fs.readdirSync(dir)
    .map((f) => /^(input|output)_(\d+)\.pb$/.exec(f))
    .filter((m) => m && m[1] === prefix)
    .sort((a, b) => Number(a[2]) - Number(b[2]))
    .map((m) => path.join(dir, m[0]));
}

export function findDataSets(dir) {
  const sets = fs.readdirSync(dir)
    .filter((f) => /^test_data_set_\d+$/.test(f) && fs.statSync(path.join(dir, f)).isDirectory())
    .sort((a, b) => Number(a.slice(14)) - Number(b.slice(14)))
    .map((f) => path.join(dir, f));
  return sets.length ? sets : [dir];
}

function readStored(file, what, ort) {
  const bytes = fs.readFileSync(file);
  let t;
  try {
    t = decodeTensorProto(bytes);
  } catch (e) {
    const kind = looksLikeTensorProto(bytes) ? 'an undecodable TensorProto' : 'not a TensorProto (a sequence/map/optional?)';
    throw cannotRun(`${what} ${path.basename(file)} is ${kind}: ${errText(e)}`);
  }
  if (t.type === null) {
    throw cannotRun(`${what} ${path.basename(file)} is ${t.onnxType}, which onnxruntime-node cannot pass to or from JS`);
  }
  return t;
}

async function checkExpected(ort, orig, opt, job, onPhase, notes, pairTolerance) {
  for (const m of orig.inputMetadata) {
    if (!m.isTensor) throw cannotRun(`input '${m.name}' is not a tensor (sequence/map/optional): onnxruntime-node feeds tensors only`);
  }
  for (const m of orig.outputMetadata) {
    if (!m.isTensor) throw cannotRun(`output '${m.name}' is not a tensor (sequence/map/optional): onnxruntime-node returns tensors only`);
  }
  const sets = findDataSets(job.expectedDir);
  let compared = 0;
  for (const set of sets) {
    const label = sets.length > 1 || set !== job.expectedDir ? `${path.basename(set)}: ` : '';
    const inputFiles = listPb(set, 'input');
    const outputFiles = listPb(set, 'output');
    if (outputFiles.length === 0) throw cannotRun(`${label}no output_*.pb in ${set}`);
    const inputs = inputFiles.map((f) => readStored(f, 'input', ort));
    const expected = outputFiles.map((f) => readStored(f, 'expected output', ort));
    if (inputs.length > orig.inputNames.length) {
      throw cannotRun(`${label}${inputs.length} stored inputs, but ORT reports ${orig.inputNames.length} model inputs`);
    }
    if (expected.length > orig.outputNames.length) {
      throw cannotRun(`${label}${expected.length} stored outputs, but the model has ${orig.outputNames.length}`);
    }
    // Inputs go by name when every stored tensor is named after a model input, else by position
    // (what ONNX's backend runner does).
    const names = new Set(orig.inputNames);
    const byName = inputs.every((t) => t.name && names.has(t.name)) &&
      new Set(inputs.map((t) => t.name)).size === inputs.length;
    const feeds = {};
    inputs.forEach((t, i) => {
      feeds[byName ? t.name : orig.inputNames[i]] = new ort.Tensor(t.type, t.data, t.dims);
    });
    onPhase('original-run');
    let ref;
    try {
      ref = await orig.run(feeds, RUN_OPTIONS);
    } catch (e) {
      throw cannotRun(`${label}ORT cannot run the original on the stored inputs: ${errText(e)}`);
    }
    let out = null;
    if (opt) {
      onPhase('optimized-run');
      try {
        out = await opt.run(feeds, RUN_OPTIONS);
      } catch (e) {
        throw failure(`${label}ORT runs the original but not the optimized model: ${errText(e)}`);
      }
      for (const name of orig.outputNames) {
        const diff = compareTensors(fromOrt(out[name]), fromOrt(ref[name]), pairTolerance, ['optimized', 'original']);
        if (diff) throw failure(`${label}output '${name}': ${diff}`);
      }
    }
    for (let i = 0; i < expected.length; ++i) {
      const name = orig.outputNames[i];
      const diff = compareTensors(fromOrt(ref[name]), expected[i], EXPECTED_TOLERANCE, ['ORT', 'expected']);
      if (diff) {
        const msg = `${label}ORT's output '${name}' for the original differs from the stored expected output: ${diff}`;
        if (!opt) throw failure(msg);
        // The optimized model computes what the original does (checked above); the runtime and the
        // reference disagree, which is not onnx-opt's to fix.
        throw cannotRun(`${msg} (the optimized model matches the original)`);
      }
      if (out) {
        const d2 = compareTensors(fromOrt(out[name]), expected[i], EXPECTED_TOLERANCE, ['optimized', 'expected']);
        if (d2) throw failure(`${label}output '${name}' of the optimized model vs expected: ${d2}`);
      }
    }
    ++compared;
  }
  return compared;
}

// PAIR_TOLERANCE, or float16's for every float output of a model that computes in float16 or
// bfloat16: where ONNX Runtime rounds such a model's values depends on the graph's shape
// (lib/precision.mjs), so a rewrite can move a rounding.
function pairToleranceFor(file, notes) {
  const half = halfPrecisionOf(fs.readFileSync(file));
  if (!half) return PAIR_TOLERANCE;
  notes.push(`float outputs compared at float16 tolerance: the model computes in ${half}`);
  const tolerance = PAIR_TOLERANCE.float16;
  return { float32: tolerance, float16: tolerance, float64: tolerance };
}

// ---------------------------------------------------------------------------------------------

export async function check(job, onPhase = () => {}) {
  const ort = loadOrt();
  const notes = [];
  let orig = null;
  let opt = null;
  try {
    onPhase('original-load');
    try {
      orig = await createSession(ort, job.original, job.ortLevel);
    } catch (e) {
      throw cannotRun(`ORT cannot load the original: ${errText(e)}`);
    }
    const pairTolerance = pairToleranceFor(job.original, notes);
    if (job.optimized) {
      onPhase('optimized-load');
      try {
        opt = await createSession(ort, job.optimized, job.ortLevel);
      } catch (e) {
        throw failure(`ORT loads the original but not the optimized model: ${errText(e)}`);
      }
      try {
        checkInterface(orig, opt, job.staleDeclarations);
      } catch (e) {
        // ORT reports an output's shape from its own inference, which can be wrong exactly
        // where it fails the original's runs (an If returning an Einsum that broadcasts): an
        // original it runs on no input is not compared, whatever the interfaces say.
        if (e instanceof Outcome && !job.expectedDir) {
          await checkRandom(ort, orig, null, job, onPhase, [], pairTolerance);
        }
        throw e;
      }
    }
    const compared = job.expectedDir
      ? await checkExpected(ort, orig, opt, job, onPhase, notes, pairTolerance)
      : await checkRandom(ort, orig, opt, job, onPhase, notes, pairTolerance);
    const what = job.expectedDir ? 'data set' : 'run';
    return { status: 'pass', message: `${compared} ${what}${compared === 1 ? '' : 's'} compared`, notes };
  } catch (e) {
    if (e instanceof Outcome) return { status: e.status, message: e.message, notes };
    if (e && e.code === 'NO_ORT') throw e;
    return { status: 'fail', message: `harness error: ${e && e.stack ? e.stack : e}`, notes };
  } finally {
    for (const s of [orig, opt]) {
      if (s) {
        try {
          await s.release();
        } catch {
          // nothing to do
        }
      }
    }
  }
}
