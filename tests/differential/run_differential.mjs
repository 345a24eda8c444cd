#!/usr/bin/env node
// Differential test of the passes (tests/differential/README.md): optimizes every model of a
// generated batch with diff_driver (a pipeline, or every pass alone), runs original and optimized
// with ONNX Runtime on the same seeded inputs (symbolic dims bound per run as the manifest says),
// and reports in how many graphs each pass fired and each rewrite pattern fired and declined.
//
//   node run_differential.mjs --driver DIFF_DRIVER --models DIR [--work DIR] [--jobs J]
//                             [--pipeline -O1|-O2|target=NAME | --each-pass]
//                             [--seed N] [--require-fires] [--fix-dims] [--target-opset N]
//
// DIR holds the models and the manifest.json that gen_graphs.py writes. --require-fires fails
// the run naming every pass that ran and fired in no graph, and every pattern (family: the
// per-op variants of one pattern together) that declined somewhere but never fired (a
// generator that misses what the passes rewrite must not pass). --fix-dims fixes each graph's
// symbolic dims (N, B) before optimizing, as `--dim` does, and the dims its inputs declare without
// a name, as `--input-shape` does, to the sizes of one of its runs (graph i: run i % runs), and
// runs both models with those sizes only: shapes that are
// symbolic otherwise become known, and the folds and eliminations that need them fire;
// --require-fires then asks only passes to fire, not every pattern family.
// --target-opset N raises every graph below opset N to N first (`--target-opset`), where ONNX
// 1.12's converter can.
// The last line is "N passed, M failed"; exit 0 when nothing failed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { walkArgs } from '../equivalence/lib/args.mjs';
import { Workers } from '../equivalence/lib/workers.mjs';

const RUNS = 3;
const TIMEOUT_SECONDS = 120;

function die(message) {
  process.stderr.write(`run_differential.mjs: ${message}\n`);
  process.exit(3);
}

function parseArgs(argv) {
  const o = { driver: null, models: null, work: null, jobs: 2, seed: 20240521, requireFires: false, fixDims: false, targetOpset: null, mode: ['--pipeline', '-O1'] };
  walkArgs(argv, die, (arg, take, raw) => {
    switch (arg) {
      case '--driver': o.driver = path.resolve(take()); break;
      case '--models': o.models = path.resolve(take()); break;
      case '--work': o.work = path.resolve(take()); break;
      case '--jobs': o.jobs = Math.max(1, Number(take()) || 1); break;
      case '--seed': o.seed = Number(take()); break;
      case '--pipeline': o.mode = ['--pipeline', take()]; break;
      case '--each-pass': o.mode = ['--each-pass']; break;
      case '--require-fires': o.requireFires = true; break;
      case '--fix-dims': o.fixDims = true; break;
      case '--target-opset': o.targetOpset = take(); break;
      default: die(`unknown argument '${raw}'`);
    }
  });
  if (!o.driver || !o.models) die('--driver and --models are required');
  return o;
}

// Runs diff_driver over `models`, restarting it after a model that crashed it; resolves with
// each model's runs (one per pipeline: {pipeline, ok, out, fired, patterns, declined} or
// {ok: false, error}). `argument(model)` is what the driver is given for it.
function optimizeAll(driver, mode, models, outDir, argument) {
  const runs = new Map(models.map((m) => [m, []]));
  const done = new Set();
  const runFrom = (rest) => new Promise((resolve) => {
    const child = spawn(driver, [...mode, outDir, ...rest.map(argument)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const r = JSON.parse(line);
      if (r.done) done.add(r.model);
      else runs.get(r.model).push(r);
    });
    child.on('close', (code, signal) => {
      const left = rest.filter((m) => !done.has(m));
      if (left.length && (signal || (code !== 0 && code !== 1))) {
        const how = signal ? `signal ${signal}` : `exit ${code}`;
        runs.get(left[0]).push({ model: left[0], pipeline: '(after the last line)', ok: false,
          error: `diff_driver crashed (${how}): ${stderr.trim()}` });
        done.add(left[0]);
        resolve(runFrom(left.slice(1)));
        return;
      }
      for (const m of left) runs.get(m).push({ model: m, ok: false, error: `no result (diff_driver ${code}/${signal})` });
      resolve();
    });
  });
  return runFrom(models).then(() => models.map((m) => runs.get(m)));
}

// A pattern's family: its name up to a per-op suffix ("read-around-expand-Mul",
// "fuse-rms-norm-at-Div" -> "read-around-expand", "fuse-rms-norm-at"), what --require-fires
// asks to fire.
function patternFamily(name) {
  const op = name.search(/-[A-Z]/);
  return op < 0 ? name : name.slice(0, op);
}

function bump(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const manifest = JSON.parse(fs.readFileSync(path.join(o.models, 'manifest.json'), 'utf8'));
  const names = Object.keys(manifest).sort();
  if (names.length === 0) die(`no models in ${o.models}/manifest.json`);
  const work = o.work ?? fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-differential-'));
  fs.mkdirSync(work, { recursive: true });

  // The dims each graph is optimized and run with: per run, as the manifest says, but with
  // --fix-dims one run's sizes in every run, fixed before optimizing: the symbols by --dim, the
  // inputs' unnamed dims ('*', which the generator sizes as N) by --input-shape.
  const fixedDims = new Map();
  const dimSizes = new Map();
  names.forEach((n, i) => {
    const runs = manifest[n].dims;
    const chosen = o.fixDims && runs.length ? runs[i % runs.length] : null;
    fixedDims.set(n, chosen ?? {});
    dimSizes.set(n, chosen ? [chosen] : runs);
  });
  const driverArgument = (model) => {
    const fixed = Object.entries(fixedDims.get(path.basename(model)));
    return fixed.length ? `${model}@${fixed.map(([symbol, size]) => `${symbol}=${size}`).join(',')}` : model;
  };

  // 1. Optimize: the batch split into `jobs` driver processes.
  const chunks = Array.from({ length: o.jobs }, (_, j) => names.filter((_, i) => i % o.jobs === j))
    .filter((c) => c.length);
  const optimized = new Map();
  await Promise.all(chunks.map(async (chunk) => {
    const mode = o.targetOpset ? [...o.mode, '--target-opset', o.targetOpset] : o.mode;
    const results = await optimizeAll(o.driver, mode, chunk.map((n) => path.join(o.models, n)), work, driverArgument);
    chunk.forEach((n, i) => optimized.set(n, results[i]));
  }));
  const tOpt = Date.now();

  // 2. Compare in long-lived ORT workers: every run that wrote a model.
  const failures = [];
  const jobs = [];
  for (const n of names) {
    for (const r of optimized.get(n)) {
      const what = `${n} [${r.pipeline}]`;
      if (!r.ok) {
        failures.push(`FAIL ${what}: onnx-opt failed: ${r.error}`);
        continue;
      }
      if (!r.out) continue;
      jobs.push({
        id: jobs.length, name: what, original: path.join(o.models, n), optimized: r.out,
        seed: o.seed, runs: RUNS, dimSizes: dimSizes.get(n),
        staleDeclarations: ['stale_value_info', 'stale_body_value_info', 'stale_carried_value'].some((m) => manifest[n].motifs.includes(m)),
      });
    }
  }
  let runsCompared = 0;
  // Originals, not jobs: --each-pass compares one original with each pass's result.
  const staleRefused = new Set();
  await new Workers(o.jobs, TIMEOUT_SECONDS).runAll(jobs, (job, result) => {
    if (result.status === 'pass') {
      runsCompared += Number(/^(\d+) run/.exec(result.message)?.[1] ?? 0);
      return;
    }
    // ONNX Runtime tolerates some stale value_info, not all (a stale 'sizes' of a Resize):
    // such an original is not onnx-opt's to run.
    if (result.status === 'cannot-run' && job.staleDeclarations) {
      staleRefused.add(job.original);
      return;
    }
    const what = result.status === 'cannot-run' ? 'ORT cannot run the ORIGINAL (a generator bug)' : 'mismatch';
    failures.push(`FAIL ${job.name}: ${what}: ${result.message}`);
  });

  // 3. What the batch exercised: graphs in which each pass fired, each pattern fired/declined.
  const passFired = {};
  const patternFired = {};
  const patternDeclined = {};
  const motifs = {};
  const opsets = {};
  const elems = {};
  for (const n of names) {
    const info = manifest[n];
    for (const m of info.motifs) bump(motifs, m);
    bump(opsets, info.opset);
    bump(elems, info.elem);
    const seen = { pass: new Set(), fired: new Set(), declined: new Set() };
    for (const r of optimized.get(n)) {
      if (!r.ok) continue;
      for (const [pass, n2] of Object.entries(r.fired)) {
        passFired[pass] ??= 0;
        if (n2 > 0) seen.pass.add(pass);
      }
      for (const p of Object.keys(r.patterns)) seen.fired.add(p);
      for (const p of Object.keys(r.declined)) seen.declined.add(p);
    }
    for (const p of seen.pass) bump(passFired, p);
    for (const p of [...seen.fired, ...seen.declined]) {
      patternFired[p] ??= 0;
      patternDeclined[p] ??= 0;
    }
    for (const p of seen.fired) bump(patternFired, p);
    for (const p of seen.declined) bump(patternDeclined, p);
  }
  const line = (obj) => Object.entries(obj).sort().map(([k, v]) => `${k} ${v}`).join(', ');
  process.stdout.write(`${names.length} graphs from ${o.models} (${o.mode.join(' ')}); ${jobs.length} ` +
    `optimized models, ${runsCompared} runs compared (${RUNS} input sets each, fewer where the original rejects one)\n`);
  process.stdout.write(`opsets: ${line(opsets)}\nelement types: ${line(elems)}\nmotifs (graphs): ${line(motifs)}\n`);
  process.stdout.write('pass / pattern                                               graphs fired  graphs declined\n');
  for (const pass of Object.keys(passFired).sort()) {
    process.stdout.write(`${pass.padEnd(60)} ${String(passFired[pass]).padStart(12)}\n`);
    for (const p of Object.keys(patternFired).filter((k) => k.startsWith(`${pass}/`)).sort()) {
      process.stdout.write(`  ${p.slice(pass.length + 1).padEnd(58)} ${String(patternFired[p]).padStart(12)}  ` +
        `${String(patternDeclined[p]).padStart(15)}\n`);
    }
  }
  if (o.requireFires) {
    for (const [pass, count] of Object.entries(passFired)) {
      if (count === 0) failures.push(`FAIL pass '${pass}' fired in no graph: the generator does not exercise it`);
    }
    const familyFired = {};
    for (const [p, count] of Object.entries(patternFired)) {
      const family = patternFamily(p);
      familyFired[family] = (familyFired[family] ?? 0) + count;
    }
    // With static shapes fold-shapes takes over what some patterns do for symbolic ones (the
    // Shape of a Transpose): there, only passes must fire.
    for (const [family, count] of Object.entries(familyFired)) {
      if (count === 0 && !o.fixDims) failures.push(`FAIL pattern '${family}' declined but fired in no graph: the generator misses it`);
    }
  }
  for (const f of failures) process.stdout.write(`${f}\n`);
  if (!o.work) fs.rmSync(work, { recursive: true, force: true });
  const secs = (ms) => (ms / 1000).toFixed(1);
  process.stdout.write(`time: ${secs(Date.now() - t0)} s (onnx-opt ${secs(tOpt - t0)} s, ORT ${secs(Date.now() - tOpt)} s)\n`);
  if (staleRefused.size) {
    process.stdout.write(`${staleRefused.size} graphs with stale value_info ORT refused to run: not compared\n`);
  }
  const failedModels = new Set(failures.filter((f) => f.includes('.onnx')).map((f) => f.split(' ')[1]));
  process.stdout.write(`${names.length - failedModels.size} passed, ${failures.length} failed\n`);
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`run_differential.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
