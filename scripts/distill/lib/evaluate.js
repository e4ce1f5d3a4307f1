'use strict';
// Retrieval metrics for the quick quality check.

const fs = require('fs');
const path = require('path');
const { codeText } = require('./codetext');
const { dequantRow } = require('./table');

const PAIRS = path.join(__dirname, '..', '..', '..', 'testdata', 'embed', 'pairs.json');

// loadSets returns the sets of testdata/embed/pairs.json as {name:
// {queries, docs}}; query i's answer is doc i (docs may hold more
// passages than there are queries: distractors). Code passages are
// CodeText(path, code). "prose+code" ranks the prose questions against
// their sections and every code passage of the js, rust and python sets:
// the docs-versus-code confusion a mixed repository shows.
function loadSets(codeOpts) {
  const d = JSON.parse(fs.readFileSync(PAIRS, 'utf8'));
  const text = (ps) => ({ queries: ps.map((p) => p[0]), docs: ps.map((p) => p[1]) });
  const code = (ps) => ({ queries: ps.map((p) => p[0]), docs: ps.map((p) => codeText(p[1], p[2], codeOpts)) });
  const sets = { paraphrase: text(d.paraphrase), code: code(d.code) };
  for (const k of ['prose', 'js', 'rust', 'python']) if (d[k]) sets[k] = (k === 'prose' ? text : code)(d[k]);
  if (d.prose) {
    const distract = ['js', 'rust', 'python'].flatMap((k) => (sets[k] ? sets[k].docs : []));
    sets['prose+code'] = { queries: sets.prose.queries, docs: [...sets.prose.docs, ...distract] };
  }
  return sets;
}

function normalize(v) {
  let s = 0;
  for (const x of v) s += x * x;
  s = Math.sqrt(s);
  return s > 0 ? v.map((x) => x / s) : v;
}

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

// score returns recall@1 and MRR of queries against docs (answer of query i
// is doc i).
function score(qv, dv) {
  let r1 = 0;
  let mrr = 0;
  for (let i = 0; i < qv.length; i++) {
    const s = dv.map((d) => dot(qv[i], d));
    let rank = 1;
    for (let j = 0; j < s.length; j++) if (j !== i && s[j] >= s[i]) rank++;
    if (rank === 1) r1++;
    mrr += 1 / rank;
  }
  return { r1: r1 / qv.length, mrr: mrr / qv.length };
}

// tableEmbedder embeds texts with a quantised table and a tokenizer.
function tableEmbedder(t, dim, tokenizer) {
  const rows = new Map();
  const row = (id) => {
    if (!rows.has(id)) rows.set(id, dequantRow(t, id, dim));
    return rows.get(id);
  };
  return (texts) => texts.map((s) => {
    const v = new Float64Array(dim);
    for (const id of tokenizer.encode(s)) {
      const r = row(id);
      for (let j = 0; j < dim; j++) v[j] += r[j];
    }
    return normalize(v);
  });
}

// hashEmbedder is the no-model baseline: lower-cased words hashed into dim
// buckets (feature hashing, signed).
function hashEmbedder(dim = 512) {
  const h = (w) => {
    let x = 2166136261;
    for (let i = 0; i < w.length; i++) x = Math.imul(x ^ w.charCodeAt(i), 16777619) >>> 0;
    return x;
  };
  return (texts) => texts.map((s) => {
    const v = new Float64Array(dim);
    for (const w of s.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (!w) continue;
      const x = h(w);
      v[x % dim] += (x >>> 31) ? 1 : -1;
    }
    return normalize(v);
  });
}

module.exports = { loadSets, score, tableEmbedder, hashEmbedder, normalize };
