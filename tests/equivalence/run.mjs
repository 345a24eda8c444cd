#!/usr/bin/env node
// Drivers for the numerical-equivalence harness (see docs/equivalence.md).
//
//   node run.mjs --onnx-opt BIN [PIPELINE] [options] MODEL.onnx...
//       Optimizes each model with onnx-opt, then checks ORIGINAL vs OPTIMIZED on seeded random
//       inputs. One line per model: PASS / FAIL: why / ORT-CANNOT-RUN: reason (a skip, or a
//       failure with --strict).
//   node run.mjs --corpus --onnx-opt BIN [PIPELINE] [options]
//       Every DATA/**/model.onnx of ONNX's backend test data (default
//       /usr/share/libonnx-testdata/data), optimized, run on test_data_set_0 and compared with
//       the stored expected outputs (and with the original's ORT outputs, tightly). Models ORT
//       cannot run are listed with the reason; the set must equal ort_cannot_run.txt.
//
// PIPELINE: -O<n>, --passes=... and/or --target=NAME are passed to onnx-opt. Default -O1.
// Options: --jobs J (parallel onnx-opt runs and ORT worker processes, default 2), --seed N,
// --runs K, --strict, --keep-dir DIR (keep the optimized models there), --timeout S (per model
// and step, default 300), --onnx-opt-arg ARG (any other onnx-opt argument, repeatable),
// --ort-level disabled|basic|extended|all (ONNX Runtime's graph optimization level for both
// models, default disabled: its kernels alone; its optimizer may compute some values otherwise);
// corpus only: --data DIR, --expectations FILE, --update-expectations, --filter SUBSTRING.
//
// The last line is always "N passed, M failed, K skipped". Exit 0 when nothing failed, 1 when
// something did, 3 on a bad command line or when the harness is not installed.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { walkArgs } from './lib/args.mjs';
import { Workers } from './lib/workers.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_DATA = '/usr/share/libonnx-testdata/data';
const DEFAULT_EXPECTATIONS = path.join(HERE, 'ort_cannot_run.txt');

function die(message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.exit(3);
}

function parseArgs(argv) {
  const o = {
    onnxOpt: null, pipeline: [], extra: [], models: [], jobs: 2, seed: undefined, runs: undefined,
    strict: false, keepDir: null, timeout: 300, corpus: false, data: DEFAULT_DATA,
    expectations: DEFAULT_EXPECTATIONS, update: false, filter: null, verbose: false,
    ortLevel: 'disabled',
  };
  walkArgs(argv, die, (arg, take, raw, rest) => {
    if (/^-O\d+$/.test(arg)) { o.pipeline.push(arg); return; }
    switch (arg) {
      case '--onnx-opt': o.onnxOpt = take(); break;
      case '--passes': o.pipeline.push(`--passes=${take()}`); break;
      case '--target': o.pipeline.push(`--target=${take()}`); break;
      case '--onnx-opt-arg': o.extra.push(take()); break;
      case '--jobs': case '-j': o.jobs = Math.max(1, Number(take()) || 1); break;
      case '--seed': o.seed = Number(take()); break;
      case '--runs': o.runs = Number(take()); break;
      case '--strict': o.strict = true; break;
      case '--keep-dir': o.keepDir = path.resolve(take()); break;
      case '--timeout': o.timeout = Number(take()); break;
      case '--ort-level': o.ortLevel = take(); break;
      case '--corpus': o.corpus = true; break;
      case '--data': o.data = path.resolve(take()); break;
      case '--expectations': o.expectations = path.resolve(take()); break;
      case '--update-expectations': o.update = true; break;
      case '--filter': o.filter = take(); break;
      case '--verbose': case '-v': o.verbose = true; break;
      case '--': o.models.push(...rest()); break;
      default:
        if (arg.startsWith('-')) die(`unknown option '${raw}'`);
        o.models.push(raw);
    }
  });
  if (!['disabled', 'basic', 'extended', 'all'].includes(o.ortLevel)) {
    die(`--ort-level '${o.ortLevel}': give disabled, basic, extended or all`);
  }
  if (!o.onnxOpt) die('--onnx-opt BIN is required');
  if (!fs.existsSync(o.onnxOpt)) die(`onnx-opt binary not found: ${o.onnxOpt}`);
  o.onnxOpt = path.resolve(o.onnxOpt);
  if (!o.corpus && o.models.length === 0) die('no models given');
  if (o.corpus && o.models.length) die('--corpus takes no model arguments (use --filter)');
  return o;
}

// Runs fn over items with at most `limit` in flight; results in order.
async function pool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(runners);
  return results;
}

function optimize(o, args, input, output) {
  return new Promise((resolve) => {
    fs.mkdirSync(path.dirname(output), { recursive: true });
    const child = spawn(o.onnxOpt, [input, '-o', output, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeout * 1000);
    child.on('error', (e) => { clearTimeout(timer); resolve({ ok: false, message: `cannot start onnx-opt: ${e.message}` }); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && fs.existsSync(output)) { resolve({ ok: true }); return; }
      const lines = stderr.trim().split('\n').filter(Boolean);
      const why = lines.length ? lines.slice(-3).join(' | ') : '(no message)';
      const how = signal ? `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${o.timeout} s?)` : ''}` : `exit ${code}`;
      resolve({ ok: false, message: `onnx-opt failed (${how}): ${why}` });
    });
  });
}

function harnessInstalled() {
  return fs.existsSync(path.join(HERE, 'node_modules', 'onnxruntime-node', 'package.json'));
}

function readExpectations(file) {
  const map = new Map();
  if (!fs.existsSync(file)) return map;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trimEnd();
    if (!line || line.startsWith('#')) continue;
    const tab = line.indexOf('\t');
    const model = (tab < 0 ? line : line.slice(0, tab)).trim();
    map.set(model, tab < 0 ? '' : line.slice(tab + 1).trim());
  }
  return map;
}

function writeExpectations(file, results, ortVer) {
  const header = [
    '# libonnx-testdata models (relative to /usr/share/libonnx-testdata/data) that ONNX Runtime',
    `# (onnxruntime-node ${ortVer}, pinned in package-lock.json) cannot run unoptimized, or whose`,
    '# output for the unoptimized model differs from the stored expected output (the optimized',
    '# model is then still checked against the original). The corpus test fails when a model not',
    '# listed here cannot be run; a listed model that runs is reported, not failed (some entries',
    '# depend on the machine: StringNormalizer needs the en_US.UTF-8 locale).',
    '# One model per line: <model dir> TAB <reason>. Only the first column is compared.',
    '# Regenerate: tests/equivalence/run_corpus.sh ONNX_OPT --update-expectations',
  ];
  const lines = results
    .filter((r) => r.result.status === 'cannot-run')
    .map((r) => `${r.label}\t${r.result.message.replace(/[\t\n]+/g, ' ').slice(0, 400)}`)
    .sort();
  fs.writeFileSync(file, `${[...header, ...lines].join('\n')}\n`);
}

function findCorpus(dataDir, filter) {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.isDirectory()) continue;
      const sub = path.join(dir, e.name);
      if (fs.existsSync(path.join(sub, 'model.onnx'))) {
        const label = path.relative(dataDir, sub);
        if (!filter || label.includes(filter)) found.push({ label, dir: sub });
      } else {
        walk(sub);
      }
    }
  };
  walk(dataDir);
  return found;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!harnessInstalled()) die('onnxruntime-node is not installed: run tests/equivalence/install.sh');
  const ortVer = JSON.parse(fs.readFileSync(path.join(HERE, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8')).version;
  const t0 = Date.now();
  const pipeline = o.pipeline.length ? [...o.pipeline] : ['-O1'];
  const optArgs = [...pipeline, ...o.extra];
  const work = o.keepDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'onnxopt-equivalence-'));
  fs.mkdirSync(work, { recursive: true });

  // 1. The models and where their optimized copies go.
  let items;
  if (o.corpus) {
    if (!fs.existsSync(o.data)) die(`no test data at ${o.data} (Debian package libonnx-testdata)`);
    items = findCorpus(o.data, o.filter).map((m) => ({
      label: m.label,
      original: path.join(m.dir, 'model.onnx'),
      optimized: path.join(work, m.label, 'model.onnx'),
      expectedDir: path.join(m.dir, 'test_data_set_0'),
    }));
    if (items.length === 0) die(`no model.onnx under ${o.data}${o.filter ? ` matching '${o.filter}'` : ''}`);
  } else {
    items = o.models.map((m, i) => ({
      label: m,
      original: path.resolve(m),
      optimized: path.join(work, `${i}_${path.basename(m)}`),
    }));
  }
  process.stdout.write(`onnx-opt ${optArgs.join(' ')} on ${items.length} model${items.length === 1 ? '' : 's'}; ` +
    `onnxruntime-node ${ortVer}; ${o.jobs} job${o.jobs === 1 ? '' : 's'}\n`);

  // 2. Optimize them all first (parallel processes) ...
  const optResults = await pool(items, o.jobs, (it) => optimize(o, optArgs, it.original, it.optimized));
  const tOpt = Date.now();

  // 3. ... then compare in a few long-lived ORT processes.
  const jobs = [];
  const results = new Array(items.length);
  items.forEach((it, i) => {
    if (!optResults[i].ok) {
      results[i] = { label: it.label, result: { status: 'fail', message: optResults[i].message, notes: [] } };
      return;
    }
    jobs.push({
      id: i, original: it.original, optimized: it.optimized, expectedDir: it.expectedDir,
      seed: o.seed, runs: o.runs, ortLevel: o.ortLevel,
    });
  });
  let printed = 0;
  const expectations = o.corpus ? readExpectations(o.expectations) : null;
  const lines = [];
  const verdict = (r) => {
    const res = r.result;
    if (res.status === 'pass') {
      if (expectations && expectations.has(r.label) && !o.update) {
        // Not a failure: some entries depend on the machine (StringNormalizer needs the
        // en_US.UTF-8 locale). The check still ran in full and passed.
        return ['pass', `PASS ${r.label} (listed in ${path.basename(o.expectations)}, but ORT runs it here: ` +
          'if that holds everywhere, remove the line)'];
      }
      return ['pass', `PASS ${r.label}${o.verbose ? `: ${res.message}` : ''}`];
    }
    if (res.status === 'cannot-run') {
      if (expectations && !expectations.has(r.label) && !o.update) {
        return ['fail', `FAIL ${r.label}: ORT cannot run the original, and ${path.basename(o.expectations)} ` +
          `does not list it (a model that ORT used to run stopped working?): ${res.message}`];
      }
      if (o.strict) return ['fail', `FAIL ${r.label}: ORT-CANNOT-RUN: ${res.message}`];
      return ['skip', `ORT-CANNOT-RUN ${r.label}: ${res.message}`];
    }
    return ['fail', `FAIL ${r.label}: ${res.message}`];
  };
  const counts = { pass: 0, fail: 0, skip: 0 };
  const flush = () => {
    while (printed < results.length && results[printed]) {
      const r = results[printed++];
      const [kind, line] = verdict(r);
      counts[kind]++;
      lines.push(line);
      process.stdout.write(`${line}\n`);
      for (const n of r.result.notes || []) process.stdout.write(`  note: ${n}\n`);
    }
  };
  flush();
  await new Workers(o.jobs, o.timeout).runAll(jobs, (job, result) => {
    results[job.id] = { label: items[job.id].label, result };
    flush();
  });
  for (let i = 0; i < results.length; ++i) {
    if (!results[i]) results[i] = { label: items[i].label, result: { status: 'fail', message: 'no result (harness bug)', notes: [] } };
  }
  flush();

  // 4. Corpus: the set of models ORT cannot run must be the committed one.
  if (o.corpus && !o.update && !o.filter) {
    const present = new Set(items.map((it) => it.label));
    for (const model of expectations.keys()) {
      if (!present.has(model)) {
        process.stdout.write(`NOTE ${model}: listed in ${path.basename(o.expectations)} but not in the corpus: remove the line\n`);
      }
    }
  }
  if (o.corpus && o.update) {
    writeExpectations(o.expectations, results, ortVer);
    process.stdout.write(`wrote ${o.expectations}\n`);
  }
  if (!o.keepDir) fs.rmSync(work, { recursive: true, force: true });
  const secs = (ms) => (ms / 1000).toFixed(1);
  process.stdout.write(`time: ${secs(Date.now() - t0)} s (onnx-opt ${secs(tOpt - t0)} s, ORT ${secs(Date.now() - tOpt)} s)\n`);
  process.stdout.write(`${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped\n`);
  process.exitCode = counts.fail ? 1 : 0;
}

main().catch((e) => {
  process.stderr.write(`run.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
