#!/usr/bin/env node
// Runs an ONNX model on ONNX Runtime's CPU provider: once per input
// argument, printing every output. An argument is one .npy file for a
// model of one input, or a comma-separated list of files, one per model
// input in the model's input order (a path that exists is taken whole,
// commas and all). It is how hwgen's exported int8
// models are checked against the NPU and the float executor against the
// float models (the tests of frontend/export and frontend/onnx run it);
// install its one dependency with scripts/setup.sh or
// `npm ci --ignore-scripts` in this directory.
//
//   node scripts/ort/run.js MODEL.onnx INPUT.npy[,INPUT2.npy...]... [--json]
//                           [--out DIR] [--expect OUTPUT=FILE.npy]...
//   node scripts/ort/run.js --batch JOBS.json
//
// --json     one JSON line per input: {"input", "outputs": {name: {"type", "dims", "data"}}}
// --batch F  run many models in this one process (loading ONNX Runtime once):
//            F is a JSON array of {"model", "inputs": [argument...]}; prints one
//            JSON line per input, {"job", "input", "outputs"}, or {"job", "error"}
//            for a model that fails
// --out DIR  write OUTPUT.npy for every output (one input only)
// --expect   compare an output with a .npy array element for element;
//            exit status 1 when any differs
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// The .npy element types read and written, by ONNX Runtime tensor type:
// the descr written and the ones read (little-endian or byte-sized).
const npyTypes = {
  float32: { descr: '<f4', reads: ['<f4', '=f4'], array: Float32Array },
  float64: { descr: '<f8', reads: ['<f8', '=f8'], array: Float64Array },
  int8: { descr: '|i1', reads: ['|i1', '<i1', '=i1', 'i1'], array: Int8Array },
  uint8: { descr: '|u1', reads: ['|u1', '<u1', '=u1', 'u1'], array: Uint8Array },
  int32: { descr: '<i4', reads: ['<i4', '=i4'], array: Int32Array },
};

function usage(msg) {
  process.stderr.write(`run.js: ${msg}\nusage: node run.js MODEL.onnx INPUT.npy... [--json] [--out DIR] [--expect OUTPUT=FILE.npy]...\n`);
  process.exit(2);
}

// readNpy reads a C-order .npy array (format 1.0 to 3.0).
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not a .npy file`);
  }
  const major = buf[6];
  const lenBytes = major === 1 ? 2 : 4;
  const hlen = lenBytes === 2 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = 8 + lenBytes;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(`${file}: unreadable .npy header ${header.trim()}`);
  if (order[1] === 'True') throw new Error(`${file}: Fortran order; save a C-order array`);
  const type = Object.keys(npyTypes).find((t) => npyTypes[t].reads.includes(descr[1]));
  if (!type) throw new Error(`${file}: dtype ${descr[1]}: want one of ${Object.values(npyTypes).map((t) => t.descr).join(', ')}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const Arr = npyTypes[type].array;
  const n = dims.reduce((a, b) => a * b, 1);
  const body = buf.subarray(start + hlen);
  if (body.length !== n * Arr.BYTES_PER_ELEMENT) throw new Error(`${file}: ${body.length} data bytes for shape [${dims}]`);
  const data = new Arr(n);
  Buffer.from(data.buffer).set(body);
  return { type, dims, data };
}

// writeNpy writes a tensor as a format 1.0 .npy array.
function writeNpy(file, t) {
  const kind = npyTypes[t.type];
  if (!kind) throw new Error(`output type ${t.type} cannot be written as .npy`);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let header = `{'descr': '${kind.descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'; // 10 + len ≡ 0 (mod 64)
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

function show(name, t) {
  return `${name} ${t.type} [${t.dims.join(',')}] [${Array.from(t.data).join(' ')}]`;
}

// outputsOf converts a run's result to plain JSON values.
function outputsOf(session, res) {
  const outputs = {};
  for (const name of session.outputNames) {
    const t = res[name];
    outputs[name] = { type: t.type, dims: t.dims, data: Array.from(t.data) };
  }
  return outputs;
}

// feedsOf reads one input argument: a .npy file per model input. An
// argument naming an existing file is that one file, even with a comma in
// its path.
function feedsOf(session, arg) {
  const parts = fs.existsSync(arg) ? [arg] : arg.split(',');
  if (parts.length !== session.inputNames.length) {
    throw new Error(`${arg}: ${parts.length} arrays for the model's ${session.inputNames.length} inputs (${session.inputNames.join(', ')})`);
  }
  const feeds = {};
  parts.forEach((p, i) => {
    const x = readNpy(p);
    feeds[session.inputNames[i]] = new ort.Tensor(x.type, x.data, x.dims);
  });
  return feeds;
}

// batch runs every job of the list file, one JSON line per input.
async function batch(file) {
  const jobs = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (let j = 0; j < jobs.length; j++) {
    try {
      const session = await ort.InferenceSession.create(jobs[j].model, { executionProviders: ['cpu'] });
      for (const input of jobs[j].inputs) {
        const res = await session.run(feedsOf(session, input));
        process.stdout.write(JSON.stringify({ job: j, input, outputs: outputsOf(session, res) }) + '\n');
      }
    } catch (err) {
      process.stdout.write(JSON.stringify({ job: j, error: err.message }) + '\n');
    }
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--batch') {
    if (args.length !== 2) usage('--batch takes one list file and nothing else');
    return batch(args[1]);
  }
  const files = [];
  const expects = [];
  let json = false;
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') json = true;
    else if (a === '--out') out = args[++i] ?? usage('--out needs a directory');
    else if (a === '--expect') {
      const m = /^([^=]+)=(.+)$/.exec(args[++i] ?? '');
      if (!m) usage('--expect wants OUTPUT=FILE.npy');
      expects.push({ name: m[1], file: m[2] });
    } else if (a.startsWith('--')) usage(`unknown flag ${a}`);
    else files.push(a);
  }
  if (files.length < 2) usage('want a model and at least one input');
  const [model, ...inputs] = files;
  if (out && inputs.length !== 1) usage('--out writes the outputs of one input');

  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'] });
  for (const e of expects) {
    if (!session.outputNames.includes(e.name)) usage(`--expect ${e.name}: the model's outputs are ${session.outputNames.join(', ')}`);
  }
  let differ = false;
  for (const file of inputs) {
    const res = await session.run(feedsOf(session, file));
    if (json) {
      process.stdout.write(JSON.stringify({ input: file, outputs: outputsOf(session, res) }) + '\n');
    } else {
      process.stdout.write(`input ${file}\n`);
      for (const name of session.outputNames) process.stdout.write(show(name, res[name]) + '\n');
    }
    if (out) {
      fs.mkdirSync(out, { recursive: true });
      for (const name of session.outputNames) writeNpy(path.join(out, `${name}.npy`), res[name]);
    }
    for (const e of expects) {
      const want = readNpy(e.file);
      const got = res[e.name];
      const n = Math.max(want.data.length, got.data.length);
      let first = -1;
      for (let i = 0; i < n && first < 0; i++) if (want.data[i] !== got.data[i]) first = i;
      if (first < 0 && want.dims.reduce((a, b) => a * b, 1) === got.data.length) {
        process.stdout.write(`identical ${e.name} and ${e.file}: ${n} elements\n`);
      } else {
        differ = true;
        process.stdout.write(`DIFFER ${e.name} and ${e.file} at element ${first}: ${got.data[first]} vs ${want.data[first]}\n`);
      }
    }
  }
  process.exit(differ ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`run.js: ${err.message}\n`);
  process.exit(1);
});
