#!/usr/bin/env node
// Differential test of the -O1 passes (tests/differential/README.md): optimizes every model of a
// generated batch with diff_driver, runs original and optimized with ONNX Runtime on the same
// seeded inputs (symbolic dims bound per run as the manifest says), and reports how many graphs
// each pass changed and each pattern fired in and declined in.
//
//   node run_differential.mjs --driver DIFF_DRIVER --models DIR [--work DIR] [--jobs J]
//                             [--seed N] [--require-fires] [--keep]
//
// DIR holds the models and the manifest.json that gen_graphs.py writes. --require-fires fails
// the run when a pass of -O1 changed no graph, or one of its patterns fired or declined in none
// (a generator that misses the patterns must not pass). The last line is "N passed, M failed"; exit 0 when nothing failed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { walkArgs } from '../equivalence/lib/args.mjs';
import { Workers } from '../equivalence/lib/workers.mjs';

// Every rewrite pattern of -O1: each must fire in some graph of a batch.
const PATTERNS = [
  'fold-transpose-into-gemm-operand',
  'fold-gemm-output-transpose',
  'remove-nop-expand',
  'read-around-expand',
  'fuse-matmul-add',
];
// The passes of -O1: each must change some graph of a batch.
const PASSES = ['eliminate-nop-expand', 'fuse-matmul-add-gemm', 'fuse-transpose-gemm', 'eliminate-dead-nodes'];
const RUNS = 3;
const TIMEOUT_SECONDS = 120;

function die(message) {
  process.stderr.write(`run_differential.mjs: ${message}\n`);
  process.exit(3);
}

function parseArgs(argv) {
  const o = { driver: null, models: null, work: null, jobs: 2, seed: 20240521, requireFires: false, keep: false };
  walkArgs(argv, die, (arg, take, raw) => {
    switch (arg) {
      case '--driver': o.driver = path.resolve(take()); break;
      case '--models': o.models = path.resolve(take()); break;
      case '--work': o.work = path.resolve(take()); break;
      case '--jobs': o.jobs = Math.max(1, Number(take()) || 1); break;
      case '--seed': o.seed = Number(take()); break;
      case '--require-fires': o.requireFires = true; break;
      case '--keep': o.keep = true; break;
      default: die(`unknown argument '${raw}'`);
    }
  });
  if (!o.driver || !o.models) die('--driver and --models are required');
  return o;
}

// The read-around pattern is named per consumer (read-around-expand-add, -gemm, ...).
function patternFamily(name) {
  return name.startsWith('read-around-expand') ? 'read-around-expand' : name;
}

// Runs diff_driver over `models`, restarting it after a model that crashed it; resolves with
// one result per model ({ok, fired, declined} or {ok: false, error}).
function optimizeAll(driver, models, outDir) {
  const results = new Map();
  const runFrom = (rest) => new Promise((resolve) => {
    const child = spawn(driver, [outDir, ...rest], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const r = JSON.parse(line);
      results.set(r.model, r);
    });
    child.on('close', (code, signal) => {
      const left = rest.filter((m) => !results.has(m));
      if (left.length && (signal || (code !== 0 && code !== 1))) {
        const how = signal ? `signal ${signal}` : `exit ${code}`;
        results.set(left[0], { model: left[0], ok: false, error: `diff_driver crashed (${how}): ${stderr.trim()}` });
        resolve(runFrom(left.slice(1)));
        return;
      }
      for (const m of left) results.set(m, { model: m, ok: false, error: `no result (diff_driver ${code}/${signal})` });
      resolve();
    });
  });
  return runFrom(models).then(() => models.map((m) => results.get(m)));
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const manifest = JSON.parse(fs.readFileSync(path.join(o.models, 'manifest.json'), 'utf8'));
  const names = Object.keys(manifest).sort();
  if (names.length === 0) die(`no models in ${o.models}/manifest.json`);
  const work = o.work ?? fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-differential-'));
  fs.mkdirSync(work, { recursive: true });

  // 1. Optimize: the batch split into `jobs` driver processes.
  const chunks = Array.from({ length: o.jobs }, (_, j) => names.filter((_, i) => i % o.jobs === j))
    .filter((c) => c.length);
  const optimized = new Map();
  await Promise.all(chunks.map(async (chunk) => {
    const results = await optimizeAll(o.driver, chunk.map((n) => path.join(o.models, n)), work);
    chunk.forEach((n, i) => optimized.set(n, results[i]));
  }));
  const tOpt = Date.now();

  // 2. Compare in long-lived ORT workers.
  const failures = [];
  const jobs = [];
  names.forEach((n, id) => {
    const r = optimized.get(n);
    if (!r.ok) {
      failures.push(`FAIL ${n}: onnx-opt failed: ${r.error}`);
      return;
    }
    jobs.push({
      id, name: n, original: path.join(o.models, n), optimized: path.join(work, n),
      seed: o.seed, runs: RUNS, dimSizes: manifest[n].dims,
    });
  });
  let runsCompared = 0;
  await new Workers(o.jobs, TIMEOUT_SECONDS).runAll(jobs, (job, result) => {
    if (result.status === 'pass') {
      runsCompared += Number(/^(\d+) run/.exec(result.message)?.[1] ?? 0);
      return;
    }
    const what = result.status === 'cannot-run' ? 'ORT cannot run the ORIGINAL (a generator bug)' : 'mismatch';
    failures.push(`FAIL ${job.name}: ${what}: ${result.message}`);
  });

  // 3. What the batch exercised.
  const changed = Object.fromEntries(PASSES.map((p) => [p, 0]));
  const fired = Object.fromEntries(PATTERNS.map((p) => [p, 0]));
  const declined = Object.fromEntries(PATTERNS.map((p) => [p, 0]));
  const motifs = {};
  const opsets = {};
  const elems = {};
  for (const n of names) {
    const r = optimized.get(n);
    const info = manifest[n];
    for (const m of info.motifs) motifs[m] = (motifs[m] ?? 0) + 1;
    opsets[info.opset] = (opsets[info.opset] ?? 0) + 1;
    elems[info.elem] = (elems[info.elem] ?? 0) + 1;
    if (!r.ok) continue;
    for (const [pass, rounds] of Object.entries(r.changed)) {
      if (pass in changed && rounds > 0) changed[pass]++;
    }
    for (const [counts, total] of [[r.fired, fired], [r.declined, declined]]) {
      for (const p of new Set(Object.keys(counts).map(patternFamily))) {
        if (p in total) total[p]++;
      }
    }
  }
  const line = (obj) => Object.entries(obj).map(([k, v]) => `${k} ${v}`).join(', ');
  process.stdout.write(`${names.length} graphs from ${o.models}; ${runsCompared} runs compared ` +
    `(${RUNS} input sets per graph, fewer where the original rejects one)\n`);
  process.stdout.write(`opsets: ${line(opsets)}\nelement types: ${line(elems)}\nmotifs (graphs): ${line(motifs)}\n`);
  process.stdout.write(`graphs changed by each pass: ${line(changed)}\n`);
  process.stdout.write('pattern                            graphs fired  graphs declined\n');
  for (const p of PATTERNS) {
    process.stdout.write(`${p.padEnd(36)} ${String(fired[p]).padStart(11)}  ${String(declined[p]).padStart(15)}\n`);
  }
  if (o.requireFires) {
    for (const p of PASSES) {
      if (changed[p] === 0) failures.push(`FAIL pass '${p}' changed no graph: the generator no longer exercises it`);
    }
    for (const p of PATTERNS) {
      if (fired[p] === 0) failures.push(`FAIL pattern '${p}' fired in no graph: the generator no longer exercises it`);
      if (declined[p] === 0) failures.push(`FAIL pattern '${p}' declined in no graph: the generator no longer tests its guards`);
    }
  }
  for (const f of failures) process.stdout.write(`${f}\n`);
  if (!o.work && !o.keep) fs.rmSync(work, { recursive: true, force: true });
  const secs = (ms) => (ms / 1000).toFixed(1);
  process.stdout.write(`time: ${secs(Date.now() - t0)} s (onnx-opt ${secs(tOpt - t0)} s, ORT ${secs(Date.now() - tOpt)} s)\n`);
  const failedModels = new Set(failures.map((f) => f.split(':')[0]));
  process.stdout.write(`${names.length - [...failedModels].filter((f) => f.endsWith('.onnx')).length} passed, ${failures.length} failed\n`);
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`run_differential.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
