#!/usr/bin/env node
// ONNX Runtime's side of `webnn-run generate`: the same greedy loop over a
// decoder in the onnxruntime-genai layout (input_ids, attention_mask,
// optional position_ids, past_key_values.N.key/value -> logits,
// present.N.key/value), so tokens and timings compare one to one.
//
//   node ort_generate.js model.onnx --prompt-ids 1,2,3 --max-new-tokens N
//        [--threads T] [--warmup W] [--no-spin]
//
// Prints one JSON object with the keys `webnn-run generate --json` prints:
// generated_ids, prefill_ms, decode_ms {median,total}, decode_tokens_per_s.
'use strict';

function usage(msg) {
  process.stderr.write(`ort_generate: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {model: null, prompt: null, maxNew: 16, threads: 1, warmup: 0, spin: true};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--prompt-ids') o.prompt = next().split(',').map((s) => parseInt(s, 10));
    else if (a === '--max-new-tokens') o.maxNew = parseInt(next(), 10);
    else if (a === '--threads') o.threads = parseInt(next(), 10);
    else if (a === '--warmup') o.warmup = parseInt(next(), 10);
    else if (a === '--no-spin') o.spin = false;
    else if (a === '--json') { /* always JSON */ }
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (o.model === null) o.model = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!o.model || !o.prompt || o.prompt.some((v) => !(v >= 0))) usage('need a model and --prompt-ids');
  if (!(o.maxNew >= 1) || !(o.threads >= 1) || !(o.warmup >= 0)) usage('bad --max-new-tokens/--threads/--warmup');
  return o;
}

const msSince = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

function median(v) {
  const s = v.slice().sort((a, b) => a - b);
  const n = s.length;
  if (!n) return 0;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function generate(ort, session, meta, o) {
  const int = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
  const past = {};
  for (const [name, m] of Object.entries(meta.caches))
    past[name] = new ort.Tensor('float32', new Float32Array(0), [1, m.kvHeads, 0, m.headSize]);
  const tokens = o.prompt.slice();
  const generated = [];
  let pastLen = 0, prefillMs = 0;
  const decodeMs = [];
  for (let step = 0; step < o.maxNew; step++) {
    const ids = step === 0 ? o.prompt : [tokens[tokens.length - 1]];
    const seq = ids.length, total = pastLen + seq;
    const feeds = {input_ids: int(ids, [1, seq])};
    if (meta.hasMask) feeds.attention_mask = int(new Array(total).fill(1), [1, total]);
    if (meta.hasPositions) feeds.position_ids = int(Array.from({length: seq}, (_, i) => pastLen + i), [1, seq]);
    Object.assign(feeds, past);
    const t0 = process.hrtime.bigint();
    const out = await session.run(feeds);
    const ms = msSince(t0);
    if (step === 0) prefillMs = ms; else decodeMs.push(ms);
    const logits = out.logits, vocab = logits.dims[2];
    const last = logits.data.subarray((logits.dims[1] - 1) * vocab, logits.dims[1] * vocab);
    let best = 0;
    for (let v = 1; v < vocab; v++) if (last[v] > last[best]) best = v;
    tokens.push(best);
    generated.push(best);
    for (const [name, m] of Object.entries(meta.caches)) past[name] = out[m.present];
    pastLen = total;
  }
  return {generated, prefillMs, decodeMs};
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`ort_generate: cannot load onnxruntime-node (run bench/install-bench-deps.sh): ${e.message}\n`);
    process.exit(1);
  }
  const sessionOptions = {
    graphOptimizationLevel: 'all', intraOpNumThreads: o.threads, interOpNumThreads: 1,
    executionMode: 'sequential', executionProviders: ['cpu'],
  };
  if (!o.spin) sessionOptions.extra = {session: {intra_op: {allow_spinning: '0'}}};
  const session = await ort.InferenceSession.create(o.model, sessionOptions);
  const meta = {hasMask: session.inputNames.includes('attention_mask'),
                hasPositions: session.inputNames.includes('position_ids'), caches: {}};
  for (const name of session.inputNames) {
    if (!name.startsWith('past_key_values.')) continue;
    const info = session.inputMetadata ? session.inputMetadata.find((m) => m.name === name) : null;
    const dims = info && info.shape ? info.shape : null;
    if (!dims || typeof dims[1] !== 'number' || typeof dims[3] !== 'number')
      usage(`cannot read the static kv_heads/head_size dims of '${name}'`);
    meta.caches[name] = {present: 'present.' + name.slice('past_key_values.'.length), kvHeads: dims[1], headSize: dims[3]};
  }
  for (let i = 0; i < o.warmup; i++) await generate(ort, session, meta, o);
  const r = await generate(ort, session, meta, o);
  const total = r.decodeMs.reduce((a, b) => a + b, 0);
  process.stdout.write(JSON.stringify({
    model: o.model, threads: o.threads, prompt_ids: o.prompt, generated_ids: r.generated,
    prefill_tokens: o.prompt.length, prefill_ms: r.prefillMs, decode_steps: r.decodeMs.length,
    decode_ms: {median: median(r.decodeMs), total}, decode_tokens_per_s: total > 0 ? 1000 * r.decodeMs.length / total : 0,
  }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ort_generate: ${e.message}\n`);
  process.exit(1);
});
