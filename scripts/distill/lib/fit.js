'use strict';
// Fits the table to the full model (tokenlearn-style): rows start from the
// Model2Vec distillation and are trained so that the normalised sum of a
// sentence's rows points where the teacher's embedding of that sentence
// points (both centred and projected onto the table's PCA basis). Plain
// float64 JS, seeded shuffling, fixed order: reproducible bit for bit.

// mulberry32 is a small seeded PRNG.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// targets centres the teacher vectors (n×D) on their mean, projects them on
// basis (dim vectors of length D) and unit-normalises them.
function targets(teacher, n, D, basis) {
  const mu = new Float64Array(D);
  for (let i = 0; i < n; i++) for (let j = 0; j < D; j++) mu[j] += teacher[i * D + j] / n;
  const dim = basis.length;
  const out = new Float64Array(n * dim);
  const c = new Float64Array(D);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < D; j++) c[j] = teacher[i * D + j] - mu[j];
    let ss = 0;
    for (let k = 0; k < dim; k++) {
      let s = 0;
      const b = basis[k];
      for (let j = 0; j < D; j++) s += b[j] * c[j];
      out[i * dim + k] = s;
      ss += s * s;
    }
    const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    for (let k = 0; k < dim; k++) out[i * dim + k] *= inv;
  }
  return out;
}

// bag returns [ids, counts] of a token list.
function bag(ids) {
  const m = new Map();
  for (const id of ids) m.set(id, (m.get(id) || 0) + 1);
  const keys = [...m.keys()].sort((a, b) => a - b);
  return [Int32Array.from(keys), Float64Array.from(keys.map((k) => m.get(k)))];
}

// fit trains rows (Float64Array n×dim, modified in place) on the token bags
// of the sentences and their unit targets (Float64Array count×dim). Returns
// the mean cosine per epoch. Rows of frozen ids are not changed.
function fit(rows, dim, bags, tgt, opts, frozen) {
  const { epochs, lr, batch, seed } = opts;
  const n = rows.length / dim;
  const m1 = new Float64Array(rows.length);
  const m2 = new Float64Array(rows.length);
  const steps = new Int32Array(n);
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  const rnd = mulberry32(seed);
  const order = bags.map((_, i) => i);
  const grad = new Map();
  const s = new Float64Array(dim);
  const history = [];
  for (let ep = 0; ep < epochs; ep++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    let cosSum = 0;
    for (let start = 0; start < order.length; start += batch) {
      grad.clear();
      const end = Math.min(order.length, start + batch);
      for (let k = start; k < end; k++) {
        const idx = order[k];
        const [ids, cnt] = bags[idx];
        s.fill(0);
        for (let t = 0; t < ids.length; t++) {
          const o = ids[t] * dim;
          for (let j = 0; j < dim; j++) s[j] += cnt[t] * rows[o + j];
        }
        let ss = 0;
        for (let j = 0; j < dim; j++) ss += s[j] * s[j];
        const norm = Math.sqrt(ss);
        if (norm === 0) continue;
        let c = 0;
        const to = idx * dim;
        for (let j = 0; j < dim; j++) c += (s[j] / norm) * tgt[to + j];
        cosSum += c;
        // d(1 - cos)/ds = -(t - cos * s/|s|) / |s|
        for (let t = 0; t < ids.length; t++) {
          const id = ids[t];
          if (frozen[id]) continue;
          let g = grad.get(id);
          if (!g) {
            g = new Float64Array(dim);
            grad.set(id, g);
          }
          const f = cnt[t] / norm / (end - start);
          for (let j = 0; j < dim; j++) g[j] -= f * (tgt[to + j] - c * s[j] / norm);
        }
      }
      const ids = [...grad.keys()].sort((a, b) => a - b);
      for (const id of ids) {
        const g = grad.get(id);
        const st = ++steps[id];
        const c1 = 1 - b1 ** st;
        const c2 = 1 - b2 ** st;
        const o = id * dim;
        for (let j = 0; j < dim; j++) {
          m1[o + j] = b1 * m1[o + j] + (1 - b1) * g[j];
          m2[o + j] = b2 * m2[o + j] + (1 - b2) * g[j] * g[j];
          rows[o + j] -= lr * (m1[o + j] / c1) / (Math.sqrt(m2[o + j] / c2) + eps);
        }
      }
    }
    history.push(cosSum / order.length);
  }
  return history;
}

module.exports = { targets, bag, fit, mulberry32 };
