'use strict';
// Builds and serialises the static token table (see README.md, "Table format").

const crypto = require('crypto');
const linalg = require('./linalg');

const RESERVED = 6; // <unk>, <s>, </s>, extra_token_id_{1,2,3}
const UNK = 0;

// weights returns one pooling weight per vocabulary entry.
//   sif:  a / (a + p), p = exp(unigram log-prob) (Arora et al. 2017)
//   zipf: log(1 + rank), rank = id (the vocabulary is sorted by log-prob)
//   none: 1
// Reserved ids get 0, except <unk> which gets the weight of p = 1 so that
// text made only of unknown characters still has a (shared) direction.
function weights(vocab, kind, a) {
  const w = new Float64Array(vocab.length);
  for (let i = 0; i < vocab.length; i++) {
    if (i < RESERVED && i !== UNK) continue;
    const p = i === UNK ? 1 : Math.exp(vocab[i][1]);
    if (kind === 'sif') w[i] = a / (a + p);
    else if (kind === 'zipf') w[i] = Math.log(1 + Math.max(i, 1));
    else if (kind === 'none') w[i] = 1;
    else throw new Error(`unknown weighting ${kind}`);
  }
  if (kind !== 'sif') w[UNK] = w[UNK] * 1e-3;
  return w;
}

function identity(D) {
  const out = [];
  for (let k = 0; k < D; k++) {
    const e = new Float64Array(D);
    e[k] = 1;
    out.push(e);
  }
  return out;
}

// project centres the raw n×D token vectors (frequency-weighted mean when
// centre is 'freq', uniform when 'uniform', none when 'none'), drops the top
// `removePC` principal components and keeps the next `dims` (dims = D and
// removePC = 0 with centre 'none' leaves vectors untouched). Returns a
// Float64Array n×dims and the explained-variance fraction kept.
function project(raw, n, D, vocab, opts) {
  const x = Float64Array.from(raw);
  let mu = new Float64Array(D);
  if (opts.centre === 'freq') {
    const fw = new Float64Array(n);
    for (let i = RESERVED; i < n; i++) fw[i] = Math.exp(vocab[i][1]);
    mu = linalg.mean(x, n, D, fw);
  } else if (opts.centre === 'uniform') {
    mu = linalg.mean(x, n, D, null);
  } else if (opts.centre !== 'none') {
    throw new Error(`unknown centring ${opts.centre}`);
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < D; j++) x[i * D + j] -= mu[j];
  if (opts.dims === D && opts.removePC === 0) return { x, dim: D, kept: 1, basis: identity(D) };
  if (opts.removePC + opts.dims > D) throw new Error(`--remove-pc + --dims exceeds ${D}`);
  const key = `eig:${opts.centre}`;
  let e = opts.cache && opts.cache[key];
  if (!e) {
    e = linalg.eigSym(linalg.covariance(x, n, D, new Float64Array(D)), D);
    if (opts.cache) opts.cache[key] = e;
  }
  const out = new Float64Array(n * opts.dims);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < opts.dims; k++) {
      const v = e.vectors[k + opts.removePC];
      let s = 0;
      for (let j = 0; j < D; j++) s += x[i * D + j] * v[j];
      out[i * opts.dims + k] = s;
    }
  }
  const total = e.values.reduce((s, v) => s + v, 0);
  let kept = 0;
  for (let k = opts.removePC; k < opts.removePC + opts.dims; k++) kept += e.values[k];
  return { x: out, dim: opts.dims, kept: kept / total, basis: e.vectors.slice(opts.removePC, opts.removePC + opts.dims) };
}

// build returns {rows: Float64Array n×dim, dim, kept, basis}: projected token vectors
// scaled by their pooling weight (renormalised to unit length first when
// opts.norm is set, as Model2Vec does after PCA).
function build(raw, D, vocab, opts) {
  const n = vocab.length;
  const p = project(raw, n, D, vocab, opts);
  const w = weights(vocab, opts.weight, opts.sifA);
  const rows = p.x;
  for (let i = 0; i < n; i++) {
    let s = 1;
    if (opts.norm) {
      let q = 0;
      for (let j = 0; j < p.dim; j++) q += rows[i * p.dim + j] ** 2;
      s = q > 0 ? 1 / Math.sqrt(q) : 0;
    }
    for (let j = 0; j < p.dim; j++) rows[i * p.dim + j] *= s * w[i];
  }
  return { rows, dim: p.dim, kept: p.kept, basis: p.basis };
}

// quantize returns {scales: Float32Array n, q: Int8Array n×dim} (int8) or
// {scales: null, f: Float32Array} (f32). Scale is per row or one global.
function quantize(rows, n, dim, quant, scaleKind) {
  if (quant === 'f32') return { scales: null, f: Float32Array.from(rows) };
  if (quant !== 'int8') throw new Error(`unknown quantisation ${quant}`);
  const scales = new Float32Array(n);
  let gmax = 0;
  for (let i = 0; i < rows.length; i++) gmax = Math.max(gmax, Math.abs(rows[i]));
  const q = new Int8Array(n * dim);
  for (let i = 0; i < n; i++) {
    let m = gmax;
    if (scaleKind === 'row') {
      m = 0;
      for (let j = 0; j < dim; j++) m = Math.max(m, Math.abs(rows[i * dim + j]));
    } else if (scaleKind !== 'global') {
      throw new Error(`unknown scale ${scaleKind}`);
    }
    scales[i] = m / 127;
    const s = Math.fround(scales[i]);
    for (let j = 0; j < dim; j++) {
      q[i * dim + j] = s > 0 ? Math.max(-127, Math.min(127, Math.round(rows[i * dim + j] / s))) : 0;
    }
  }
  return { scales, q };
}

// dequantRow returns row i of a quantised table as float64 numbers.
function dequantRow(t, i, dim) {
  const r = new Float64Array(dim);
  if (t.f) for (let j = 0; j < dim; j++) r[j] = t.f[i * dim + j];
  else for (let j = 0; j < dim; j++) r[j] = t.scales[i] * t.q[i * dim + j];
  return r;
}

// f32le encodes a Float32Array little-endian whatever the host byte order.
function f32le(a) {
  const b = Buffer.alloc(a.length * 4);
  for (let i = 0; i < a.length; i++) b.writeFloatLE(a[i], i * 4);
  return b;
}

// serialize returns the table file bytes (format in README.md).
function serialize(vocab, t, dim, meta) {
  const parts = [];
  const head = Buffer.alloc(24);
  head.write('D2MTOKV1', 0, 'latin1');
  head.writeUInt32LE(1, 8); // format version
  head.writeUInt32LE(vocab.length, 12);
  head.writeUInt32LE(dim, 16);
  head.writeUInt32LE(t.f ? 0 : 1, 20); // 0 = float32 rows, 1 = int8 rows + float32 row scale
  parts.push(head);
  const metaBuf = Buffer.from(JSON.stringify(meta), 'utf8');
  const ml = Buffer.alloc(4);
  ml.writeUInt32LE(metaBuf.length, 0);
  parts.push(ml, metaBuf);
  for (const [piece, score] of vocab) {
    const pb = Buffer.from(piece, 'utf8');
    const b = Buffer.alloc(10);
    b.writeDoubleLE(score, 0);
    b.writeUInt16LE(pb.length, 8);
    parts.push(b, pb);
  }
  if (t.f) {
    parts.push(f32le(t.f));
  } else {
    parts.push(f32le(t.scales));
    parts.push(Buffer.from(t.q.buffer, t.q.byteOffset, t.q.byteLength));
  }
  const body = Buffer.concat(parts);
  const sum = crypto.createHash('sha256').update(body).digest();
  return Buffer.concat([body, sum]);
}

module.exports = { RESERVED, weights, project, build, quantize, dequantRow, serialize };
