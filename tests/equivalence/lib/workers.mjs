// A pool of long-lived `compare.mjs --worker` processes, shared by run.mjs and
// tests/differential/run_differential.mjs.

import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const COMPARE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'compare.mjs');

// A pool of long-lived `compare.mjs --worker` processes. A worker that dies (ORT crashed) or
// times out is replaced; the job it was on is judged by the phase it had reached.
export class Workers {
  constructor(count, timeoutSeconds) {
    this.count = count;
    this.timeout = timeoutSeconds * 1000;
  }

  runAll(jobs, onResult) {
    let next = 0;
    const startWorker = () => new Promise((resolveWorker) => {
      const child = spawn(process.execPath, [COMPARE, '--worker'],
        { stdio: ['pipe', 'pipe', 'pipe'] });
      let current = null;
      let phase = null;
      let timer = null;
      let stderr = '';
      child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      const feed = () => {
        if (next >= jobs.length) {
          current = null;
          child.stdin.end();
          return;
        }
        current = jobs[next++];
        phase = 'start';
        stderr = '';
        timer = setTimeout(() => { current.timedOut = true; child.kill('SIGKILL'); }, this.timeout);
        child.stdin.write(`${JSON.stringify(current)}\n`);
      };
      const rl = readline.createInterface({ input: child.stdout });
      rl.on('line', (line) => {
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          return;  // not ours (a native library printing to stdout)
        }
        if (!current || msg.id !== current.id) return;
        if (msg.phase) { phase = msg.phase; return; }
        if (msg.result) {
          clearTimeout(timer);
          onResult(current, msg.result);
          feed();
        }
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (current) {
          const job = current;
          current = null;
          const onOriginal = phase.startsWith('original');  // 'start': the harness itself broke
          const what = job.timedOut
            ? `timed out after ${this.timeout / 1000} s`
            : `ORT process died (${signal ? `signal ${signal}` : `exit ${code}`})`;
          const tail = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
          const where = {
            start: 'the harness, before the job started',
            'original-load': 'ORT loading the original',
            'original-run': 'ORT running the original',
            'optimized-load': 'ORT loading the optimized model',
            'optimized-run': 'ORT running the optimized model',
          }[phase] ?? phase;
          const message = `${what} in ${where}${tail ? `: ${tail}` : ''}`;
          onResult(job, { status: onOriginal ? 'cannot-run' : 'fail', message, notes: [] });
          resolveWorker(next < jobs.length ? startWorker() : undefined);
          return;
        }
        resolveWorker();
      });
      feed();
    });
    const n = Math.min(this.count, jobs.length);
    const chains = [];
    for (let k = 0; k < n; ++k) {
      chains.push((async () => {
        let p = startWorker();
        // A replaced worker resolves with the promise of its successor.
        while (p) p = await p;
      })());
    }
    return Promise.all(chains);
  }
}
