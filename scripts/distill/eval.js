#!/usr/bin/env node
'use strict';
// Quick retrieval check on testdata/embed/pairs.json: recall@1 and MRR of
// the full USE-Lite model, a token table and word feature hashing.
// Usage: node eval.js [TABLE]   (default lib/embed/local/table.bin)

const fs = require('fs');
const path = require('path');
const model = require('./lib/model');
const E = require('./lib/evaluate');

async function report(m, t, dim) {
  const sets = E.loadSets({});
  const rows = [
    ['full model (USE-Lite)', (x) => model.embedTexts(m, x)],
    ['token table', E.tableEmbedder(t, dim, m.tokenizer)],
    ['feature hashing', E.hashEmbedder()],
  ];
  const names = Object.keys(sets);
  console.log(`${'R@1 / MRR'.padEnd(24)} ${names.map((k) => `${k} (${sets[k].queries.length})`.padEnd(16)).join(' ')}`);
  for (const [name, emb] of rows) {
    const cols = [];
    for (const k of names) {
      const s = sets[k];
      const r = E.score(await emb(s.queries), await emb(s.docs));
      cols.push(`${r.r1.toFixed(3)} ${r.mrr.toFixed(3)}`.padEnd(16));
    }
    console.log(`${name.padEnd(24)} ${cols.join(' ')}`);
  }
}

// readTable decodes a table file written by distill.js.
function readTable(file) {
  const b = fs.readFileSync(file);
  let o = 24;
  const n = b.readUInt32LE(12);
  const dim = b.readUInt32LE(16);
  const kind = b.readUInt32LE(20);
  o += 4 + b.readUInt32LE(o);
  for (let i = 0; i < n; i++) o += 10 + b.readUInt16LE(o + 8);
  if (kind === 0) {
    const f = new Float32Array(n * dim);
    for (let i = 0; i < f.length; i++) f[i] = b.readFloatLE(o + 4 * i);
    return { t: { f }, dim };
  }
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) scales[i] = b.readFloatLE(o + 4 * i);
  o += 4 * n;
  const q = new Int8Array(b.buffer.slice(b.byteOffset + o, b.byteOffset + o + n * dim));
  return { t: { scales, q }, dim };
}

if (require.main === module) {
  (async () => {
    const file = process.argv[2] || path.join(__dirname, '..', '..', 'lib', 'embed', 'local', 'table.bin');
    const m = await model.load();
    const { t, dim } = readTable(file);
    await report(m, t, dim);
  })().catch((err) => {
    console.error(`eval: ${err.stack || err}`);
    process.exit(1);
  });
}

module.exports = { report, readTable };
