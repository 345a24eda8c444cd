#!/usr/bin/env node
// Numerical equivalence of two ONNX models under ONNX Runtime (onnxruntime-node, CPU, graph
// optimizations disabled, one thread). See docs/equivalence.md.
//
//   node compare.mjs ORIGINAL.onnx OPTIMIZED.onnx [--seed N] [--runs K] [--int-range LO,HI]
//       Seeded random inputs made from ORIGINAL's input metadata (symbolic/unknown dims get
//       1, 3, 2, 5 in runs 0, 1, 2, 3), fed to both models by name; outputs compared by name.
//   node compare.mjs MODEL.onnx [OPTIMIZED.onnx] --expected-dir DIR
//       ONNX backend test data: DIR is a test_data_set_N directory or a directory holding
//       test_data_set_*; MODEL's outputs (and OPTIMIZED's) are compared with the stored ones.
//   node compare.mjs --worker
//       Long-lived: reads JSON jobs, one per line, on stdin ({"id", "original", "optimized",
//       "expectedDir", "seed", "runs", "intRange"}), writes {"id","phase"} before each step
//       that could crash inside ORT and {"id","result":{status,message,notes}} per job.
//   node compare.mjs --self-test
//       Runs a one-node model built in memory: is onnxruntime-node installed and working?
//
// Exit status: 0 equal; 1 different (the message names the output, the first mismatching index
// and both values), or ORT cannot load/run the optimized model; 2 ORT cannot load or run the
// ORIGINAL (the reason is printed; the caller decides whether that is a skip); 3 bad command
// line or the harness is not installed.

import readline from 'node:readline';
import { check, loadOrt, ortVersion, DEFAULT_SEED, DEFAULT_RUNS, DEFAULT_INT_RANGE } from './lib/harness.mjs';
import { selfTest } from './lib/selftest.mjs';
import { walkArgs } from './lib/args.mjs';

const USAGE = `usage: node compare.mjs ORIGINAL.onnx OPTIMIZED.onnx [--seed N] [--runs K] [--int-range LO,HI]
       node compare.mjs MODEL.onnx [OPTIMIZED.onnx] --expected-dir DIR
       node compare.mjs --worker
       node compare.mjs --self-test`;

const EXIT = { pass: 0, fail: 1, 'cannot-run': 2 };

function usage(message) {
  process.stderr.write(`compare.mjs: ${message}\n${USAGE}\n`);
  process.exit(3);
}

function parseArgs(argv) {
  const opts = { files: [], seed: DEFAULT_SEED, runs: DEFAULT_RUNS, intRange: DEFAULT_INT_RANGE };
  walkArgs(argv, usage, (arg, takeValue, raw) => {
    switch (arg) {
      case '--seed': opts.seed = Number(takeValue()); if (!Number.isInteger(opts.seed)) usage('--seed takes an integer'); break;
      case '--runs': opts.runs = Number(takeValue()); if (!(opts.runs >= 1)) usage('--runs takes a positive integer'); break;
      case '--int-range': {
        const r = takeValue().split(',').map(Number);
        if (r.length !== 2 || !r.every(Number.isInteger) || r[0] > r[1]) usage('--int-range takes LO,HI');
        opts.intRange = r;
        break;
      }
      case '--expected-dir': opts.expectedDir = takeValue(); break;
      case '--worker': opts.worker = true; break;
      case '--self-test': opts.selfTest = true; break;
      case '-h': case '--help': process.stdout.write(`${USAGE}\n`); process.exit(0); break;
      case '--version': process.stdout.write(`onnxruntime-node ${ortVersion()}\n`); process.exit(0); break;
      default:
        if (arg.startsWith('-')) usage(`unknown option '${raw}'`);
        opts.files.push(arg);
    }
  });
  return opts;
}

async function worker() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const send = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  for await (const line of rl) {
    if (!line.trim()) continue;
    const job = JSON.parse(line);
    let result;
    try {
      result = await check(job, (phase) => send({ id: job.id, phase }));
    } catch (e) {
      result = { status: 'fail', message: `harness error: ${e && e.message ? e.message : e}`, notes: [] };
    }
    send({ id: job.id, result });
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  try {
    loadOrt();
  } catch (e) {
    process.stderr.write(`compare.mjs: ${e.message}\n`);
    process.exit(3);
  }
  if (opts.selfTest) {
    await selfTest();
    process.stdout.write(`onnxruntime-node ${ortVersion()}: CPU backend works (node ${process.version})\n`);
    return;
  }
  if (opts.worker) {
    await worker();
    return;
  }
  if (opts.files.length < 1 || opts.files.length > 2) usage('expected one or two model files');
  if (!opts.expectedDir && opts.files.length !== 2) usage('random-input mode needs ORIGINAL and OPTIMIZED');
  const job = {
    original: opts.files[0],
    optimized: opts.files[1],
    expectedDir: opts.expectedDir,
    seed: opts.seed,
    runs: opts.runs,
    intRange: opts.intRange,
  };
  const result = await check(job);
  const word = { pass: 'PASS', fail: 'FAIL', 'cannot-run': 'ORT-CANNOT-RUN' }[result.status];
  process.stdout.write(`${word}: ${result.message}\n`);
  for (const note of result.notes) process.stdout.write(`  note: ${note}\n`);
  process.exitCode = EXIT[result.status];
}

main().catch((e) => {
  process.stderr.write(`compare.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
