'use strict';
// Retrieval metrics for the quick quality check.

const fs = require('fs');
const path = require('path');
const { codeText } = require('./codetext');
const { dequantRow } = require('./table');

const PAIRS = path.join(__dirname, '..', '..', '..', 'testdata', 'embed', 'pairs.json');

// loadSets returns {paraphrase: {queries, docs}, code: {queries, docs}} from
// testdata/embed/pairs.json; query i's answer is doc i.
function loadSets(codeOpts) {
  const d = JSON.parse(fs.readFileSync(PAIRS, 'utf8'));
  return {
    paraphrase: { queries: d.paraphrase.map((p) => p[0]), docs: d.paraphrase.map((p) => p[1]) },
    code: { queries: d.code.map((p) => p[0]), docs: d.code.map((p) => codeText(p[1], p[2], codeOpts)) },
  };
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
