#!/usr/bin/env node
// Converts the W3C WebNN conformance tests of the Web Platform Tests
// (webnn/conformance_tests/*.https.any.js) into the JSON vectors that
// run_wpt.py reads (format: shared/conformance/wpt/README.md), one JSON file
// per WPT file.
//
//   node convert_wpt.js --wpt-commit <sha> --out <dir> <file.https.any.js>...
//
// The WPT files are JavaScript: data literals, but also loops and helper
// functions that build the cases. Each file is therefore evaluated in a fresh
// V8 context whose harness globals are stubs: webnn_conformance_test (both
// its forms, a case array or one case per call) records the cases, the
// testharness functions do nothing, and any other global the file calls at
// load time (a helper from webnn/resources/utils.js) is answered by a function
// returning true (so case filters keep every case), added on the
// ReferenceError that names it. Cases are recorded as
// the file defines them; BigInt values become "123n" strings, non-finite
// numbers "Infinity"/"-Infinity"/"NaN", typed arrays plain lists, and an
// older file's descriptor `dimensions` becomes `shape`.
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');

function usage(msg) {
  if (msg) console.error(`convert_wpt.js: ${msg}`);
  console.error('usage: node convert_wpt.js --wpt-commit <sha> --out <dir> <file.https.any.js>...');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {files: []};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--wpt-commit') args.commit = argv[++i];
    else if (a === '--out') args.out = argv[++i];
    else if (a.startsWith('--')) usage(`unknown option '${a}'`);
    else args.files.push(a);
  }
  if (!args.commit || !args.out || !args.files.length) usage();
  return args;
}

// A case's graph as plain JSON values.
function plain(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    return v;
  }
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== undefined && typeof x !== 'function') out[k] = plain(x);
    }
    return out;
  }
  return v;
}

// Older WPT files name a descriptor's shape `dimensions`; the JSON format
// (and the WebNN API today) calls it `shape`.
function normalizeDescriptors(v) {
  if (Array.isArray(v)) return v.forEach(normalizeDescriptors);
  if (!v || typeof v !== 'object') return;
  const d = v.descriptor;
  if (d && typeof d === 'object' && d.shape === undefined && d.dimensions !== undefined) {
    d.shape = d.dimensions;
    delete d.dimensions;
  }
  Object.values(v).forEach(normalizeDescriptors);
}

function isCase(v) {
  return v && typeof v === 'object' && typeof v.name === 'string' && v.graph &&
      typeof v.graph === 'object';
}

function loadCases(file) {
  const source = fs.readFileSync(file, 'utf8');
  const cases = [];
  const record = (...params) => {
    for (const p of params) {
      if (Array.isArray(p)) p.filter(isCase).forEach((c) => cases.push(c));
      else if (isCase(p)) cases.push(p);
    }
  };
  const noop = () => {};
  // An unknown global is a utils.js helper; answering true keeps every case
  // where a file filters with one (`tests.filter(isTargetTest)`).
  const yes = () => true;
  const sandbox = {
    webnn_conformance_test: record,
    navigator: {ml: {}},
    location: {search: ''},
    promise_setup: noop, promise_test: noop, test: noop, setup: noop,
    assert_implements: noop, assert_true: noop, assert_equals: noop,
    console,
  };
  for (let attempt = 0; attempt < 50; ++attempt) {
    cases.length = 0;
    const context = vm.createContext({...sandbox});
    try {
      vm.runInContext(source, context, {filename: file, timeout: 60000});
      cases.forEach(normalizeDescriptors);
      return cases.map(plain);
    } catch (e) {
      // (an error from the context is not an instance of this realm's Error)
      const m = e && e.name === 'ReferenceError' &&
          /^(\w+) is not defined$/.exec(e.message);
      if (!m || m[1] in sandbox) throw new Error(`${file}: ${e && e.message}`);
      sandbox[m[1]] = yes;
    }
  }
  throw new Error(`${file}: too many undefined globals`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(args.out, {recursive: true});
  let total = 0;
  for (const file of args.files) {
    const base = path.basename(file).replace(/\.https\.any\.js$/, '');
    const tests = loadCases(file);
    if (!tests.length) {
      console.log(`${base}: no conformance cases (skipped)`);
      continue;
    }
    const ops = [...new Set(tests.flatMap((t) => (t.graph.operators || []).map((o) => o.name)))];
    const doc = {
      operation: ops.length === 1 ? ops[0] : base,
      wpt_commit: args.commit,
      source_file: `webnn/conformance_tests/${path.basename(file)}`,
      tests,
    };
    fs.writeFileSync(path.join(args.out, `${base}.json`), JSON.stringify(doc) + '\n');
    console.log(`${base}: ${tests.length} cases`);
    total += tests.length;
  }
  console.log(`total: ${total} cases`);
}

main();
