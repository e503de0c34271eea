#!/usr/bin/env node
// ONNX Runtime (onnxruntime-node) side of bench/run.py: the same command line
// and the same JSON keys as `webnn-run --bench K --json`, so the two are
// measured the same way.
//
//   node ort_bench.js model.onnx --input NAME=FILE.npy ... [--bench K | --paced]
//        [--warmup W] [--threads T] [--output-dir DIR] [--no-spin] [--opt-level all]
//
// Prints one JSON object: latency_ms {median,min,mean,max,p90} over K
// steady-state runs, load_ms (InferenceSession.create: read + optimize + plan),
// first_run_ms (the first run after creation, before warm-up), threads,
// ort_version; session_ms is 0 (webnn-run's session creation happens inside
// ORT's create()). With --output-dir, writes each output as DIR/NAME.npy.
//
// --paced: webnn-run --paced's protocol (docs/CLI.md). After the first run
// and the warm-ups, one JSON line (the object above without latency_ms);
// then per stdin line N (a run count, 1 to 1000000) N timed runs and one
// line {"runs": [ms, ...]}; at EOF the --output-dir files, exit 0. Any
// other line: one error line on stderr, exit 1.
'use strict';

const fs = require('fs');
const path = require('path');

function usage(msg) {
  process.stderr.write(`ort_bench: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {model: null, inputs: [], bench: 10, warmup: 2, threads: 1, outputDir: null, spin: true, optLevel: 'all',
    paced: false, benchGiven: false};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--input') {
      const v = next();
      const eq = v.indexOf('=');
      if (eq <= 0) usage(`--input expects NAME=FILE.npy, got '${v}'`);
      opts.inputs.push([v.slice(0, eq), v.slice(eq + 1)]);
    } else if (a === '--bench') { opts.bench = parseInt(next(), 10); opts.benchGiven = true; }
    else if (a === '--paced') opts.paced = true;
    else if (a === '--warmup') opts.warmup = parseInt(next(), 10);
    else if (a === '--threads') opts.threads = parseInt(next(), 10);
    else if (a === '--output-dir') opts.outputDir = next();
    else if (a === '--no-spin') opts.spin = false;
    else if (a === '--opt-level') opts.optLevel = next();  // disabled|basic|extended|all
    else if (a === '--json') { /* always JSON */ }
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (opts.model === null) opts.model = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!opts.model) usage('no model given');
  if (opts.paced && opts.benchGiven) usage('--paced takes its run counts from stdin: not with --bench');
  if (!(opts.bench >= 1) || !(opts.warmup >= 0) || !(opts.threads >= 1)) usage('bad --bench/--warmup/--threads');
  return opts;
}

// NumPy .npy (format 1.0-3.0), little-endian, C order: the only layout
// run.py writes.
const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '<u8': ['uint64', BigUint64Array], '<u4': ['uint32', Uint32Array],
  '<u2': ['uint16', Uint16Array], '|u1': ['uint8', Uint8Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw new Error(`${file}: bad .npy header`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran order not supported`);
  const type = NPY_TYPES[descr[1]];
  if (!type) throw new Error(`${file}: dtype ${descr[1]} not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const dataStart = headerStart + headerLen;
  // Copy into a fresh, aligned ArrayBuffer (the file buffer's offset may not
  // be a multiple of the element size).
  const bytes = new Uint8Array(count * type[1].BYTES_PER_ELEMENT);
  bytes.set(buf.subarray(dataStart, dataStart + bytes.length));
  let data = new type[1](bytes.buffer);
  if (type[0] === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  return {type: type[0], data, dims};
}

const NPY_DESCR = {
  float32: '<f4', float16: '<f2', float64: '<f8', int64: '<i8', int32: '<i4', int16: '<i2', int8: '|i1',
  uint64: '<u8', uint32: '<u4', uint16: '<u2', uint8: '|u1', bool: '|b1',
};

function writeNpy(file, tensor) {
  const descr = NPY_DESCR[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} cannot be written as .npy`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // The header (with magic, version and length) is padded to 64 bytes and ends in '\n'.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

function stats(samples) {
  const s = samples.slice().sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p90 = s[Math.min(n - 1, Math.ceil(0.9 * n) - 1)];
  return {median, min: s[0], mean: s.reduce((a, b) => a + b, 0) / n, max: s[n - 1], p90};
}

const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`ort_bench: cannot load onnxruntime-node (run bench/install-bench-deps.sh): ${e.message}\n`);
    process.exit(1);
  }
  const feeds = {};
  for (const [name, file] of opts.inputs) {
    const t = readNpy(file);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const sessionOptions = {
    graphOptimizationLevel: opts.optLevel,
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    executionProviders: ['cpu'],
  };
  // --no-spin: intra-op worker threads sleep instead of spinning between
  // parallel sections (ORT's session.intra_op.allow_spinning), the analogue
  // of OMP_WAIT_POLICY=passive for webnn-run on a machine shared with others.
  if (!opts.spin) sessionOptions.extra = {session: {intra_op: {allow_spinning: '0'}}};
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(opts.model, sessionOptions);
  const loadMs = msSince(t0);

  t0 = process.hrtime.bigint();
  let outputs = await session.run(feeds);
  const firstRunMs = msSince(t0);

  for (let i = 0; i < opts.warmup; i++) await session.run(feeds);
  const version = (() => {
    try { return require('onnxruntime-node/package.json').version; } catch (e) { return null; }
  })();
  const header = {
    runtime: 'onnxruntime-node',
    ort_version: version,
    model: opts.model,
    threads: opts.threads,
    spin: opts.spin,
    warmup: opts.warmup,
    load_ms: loadMs,
    first_run_ms: firstRunMs,
    session_ms: 0,  // ORT plans its session inside create(): counted in load_ms
  };
  if (opts.paced) {
    outputs = await servePaced(session, feeds, header) || outputs;
    writeOutputs(opts, session, outputs);
    return;
  }
  const samples = [];
  for (let i = 0; i < opts.bench; i++) {
    t0 = process.hrtime.bigint();
    outputs = await session.run(feeds);
    samples.push(msSince(t0));
  }

  writeOutputs(opts, session, outputs);
  process.stdout.write(JSON.stringify({...header, iterations: opts.bench, latency_ms: stats(samples)}) + '\n');
}

function writeOutputs(opts, session, outputs) {
  if (!opts.outputDir) return;
  fs.mkdirSync(opts.outputDir, {recursive: true});
  // The file name rule of webnn-run --output-dir, so run.py pairs files by name.
  for (const name of session.outputNames) {
    writeNpy(path.join(opts.outputDir, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy'), outputs[name]);
  }
}

// --paced: the header line, then one burst of timed runs per stdin line.
// Returns the last run's outputs (null when no burst ran).
async function servePaced(session, feeds, header) {
  process.stdout.write(JSON.stringify({...header, paced: true}) + '\n');
  const rl = require('readline').createInterface({input: process.stdin, crlfDelay: Infinity});
  let lineNo = 0;
  let outputs = null;
  for await (const line of rl) {
    lineNo++;
    const text = line.trim();
    const runs = /^[0-9]{1,7}$/.test(text) ? parseInt(text, 10) : 0;
    if (!(runs >= 1 && runs <= 1000000)) {
      process.stderr.write(`ort_bench: --paced: stdin line ${lineNo}: expected a run count in [1, 1000000], ` +
                           `got '${line.slice(0, 40)}'\n`);
      process.exit(1);
    }
    const burst = [];
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      outputs = await session.run(feeds);
      burst.push(msSince(t0));
    }
    process.stdout.write(JSON.stringify({runs: burst}) + '\n');
  }
  return outputs;
}

main().catch((e) => {
  process.stderr.write(`ort_bench: ${e && e.message ? e.message.split('\n')[0] : e}\n`);
  process.exit(1);
});
