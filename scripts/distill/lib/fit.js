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

// sumBag writes the sum of the rows of bag [ids, counts] into out.
function sumBag(rows, dim, bag, out) {
  const [ids, cnt] = bag;
  out.fill(0);
  for (let t = 0; t < ids.length; t++) {
    const o = ids[t] * dim;
    for (let j = 0; j < dim; j++) out[j] += cnt[t] * rows[o + j];
  }
}

// addGrad adds f·cnt·g to the gradient of every unfrozen row of bag.
function addGrad(grad, dim, bag, g, f, frozen) {
  const [ids, cnt] = bag;
  for (let t = 0; t < ids.length; t++) {
    const id = ids[t];
    if (frozen[id]) continue;
    let acc = grad.get(id);
    if (!acc) {
      acc = new Float64Array(dim);
      grad.set(id, acc);
    }
    const c = f * cnt[t];
    for (let j = 0; j < dim; j++) acc[j] += c * g[j];
  }
}

// contrastGrad adds to grad the gradient of a symmetric InfoNCE loss over
// one batch of [queryBag, docBag] pairs (in-batch negatives, temperature
// temp, scaled by weight) and returns the batch's mean loss. The gradient
// w.r.t. a normalised sum q = u/|u| goes back to u as (dq − q(q·dq))/|u|.
function contrastGrad(rows, dim, pairs, temp, weight, grad, frozen) {
  const B = pairs.length;
  const q = [];
  const c = [];
  const qn = new Float64Array(B);
  const cn = new Float64Array(B);
  for (let i = 0; i < B; i++) {
    for (const [side, vs, ns] of [[0, q, qn], [1, c, cn]]) {
      const v = new Float64Array(dim);
      sumBag(rows, dim, pairs[i][side], v);
      let ss = 0;
      for (let j = 0; j < dim; j++) ss += v[j] * v[j];
      const norm = Math.sqrt(ss);
      ns[i] = norm;
      if (norm > 0) for (let j = 0; j < dim; j++) v[j] /= norm;
      vs.push(v);
    }
  }
  const S = new Float64Array(B * B);
  for (let i = 0; i < B; i++) {
    for (let k = 0; k < B; k++) {
      let d = 0;
      for (let j = 0; j < dim; j++) d += q[i][j] * c[k][j];
      S[i * B + k] = d / temp;
    }
  }
  // G = dLoss/dS: softmax over each row (query → docs) and each column
  // (doc → queries), minus the identity, averaged over both directions.
  const G = new Float64Array(B * B);
  let loss = 0;
  for (let dir = 0; dir < 2; dir++) {
    for (let i = 0; i < B; i++) {
      const at = (k) => (dir === 0 ? i * B + k : k * B + i);
      let mx = -Infinity;
      for (let k = 0; k < B; k++) mx = Math.max(mx, S[at(k)]);
      let z = 0;
      for (let k = 0; k < B; k++) z += Math.exp(S[at(k)] - mx);
      loss += (mx + Math.log(z) - S[at(i)]) / (2 * B);
      for (let k = 0; k < B; k++) {
        G[at(k)] += (Math.exp(S[at(k)] - mx) / z - (k === i ? 1 : 0)) / (2 * B);
      }
    }
  }
  const dq = new Float64Array(dim);
  const dc = new Float64Array(dim);
  for (let i = 0; i < B; i++) {
    for (const [side, self, other, norms, d] of [[0, q, c, qn, dq], [1, c, q, cn, dc]]) {
      if (norms[i] === 0) continue;
      d.fill(0);
      for (let k = 0; k < B; k++) {
        const g = (side === 0 ? G[i * B + k] : G[k * B + i]) / temp;
        if (g === 0) continue;
        const o = other[k];
        for (let j = 0; j < dim; j++) d[j] += g * o[j];
      }
      const v = self[i];
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += v[j] * d[j];
      for (let j = 0; j < dim; j++) d[j] = (d[j] - v[j] * dot) / norms[i];
      addGrad(grad, dim, pairs[i][side], d, weight, frozen);
    }
  }
  return loss;
}

// groupBatches reorders the shuffled order so that each contrastive batch
// holds pairs of one group (one source: its negatives come from the same
// project, the hardest ones) where the group is large enough: pairs are
// sorted by group (stable, so shuffled within), cut into batches, and the
// batches shuffled.
function groupBatches(order, groups, batch, rnd) {
  const sorted = order.map((p, i) => [groups[p], i, p]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
  const batches = [];
  for (let i = 0; i < sorted.length; i += batch) batches.push(sorted.slice(i, i + batch));
  for (let i = batches.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [batches[i], batches[j]] = [batches[j], batches[i]];
  }
  let k = 0;
  for (const b of batches) for (const p of b) order[k++] = p;
}

// fit trains rows (Float64Array n×dim, modified in place) on the token bags
// of the sentences and their unit targets (Float64Array count×dim). Returns
// the mean cosine per epoch. Rows of frozen ids are not changed. opts.weights
// (optional, one per bag) scales each bag's share of the gradient.
// opts.contrast (optional) = {pairs: [[queryBag, docBag]...], weight, temp,
// batch, groups} adds a symmetric in-batch InfoNCE loss over the pairs
// (batches of one group each when groups, a group id per pair, is set;
// else random batches): each Adam
// step then also takes the gradient of one batch of pairs, spread evenly
// over the epoch; history entries become [cosine, contrastive loss].
function fit(rows, dim, bags, tgt, opts, frozen) {
  const { epochs, lr, batch, seed, weights, contrast } = opts;
  const n = rows.length / dim;
  const m1 = new Float64Array(rows.length);
  const m2 = new Float64Array(rows.length);
  const steps = new Int32Array(n);
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  const rnd = mulberry32(seed);
  const order = bags.map((_, i) => i);
  const corder = contrast ? contrast.pairs.map((_, i) => i) : [];
  const grad = new Map();
  const s = new Float64Array(dim);
  const history = [];
  const nSteps = Math.ceil(order.length / batch);
  const nC = contrast ? Math.ceil(corder.length / contrast.batch) : 0;
  for (let ep = 0; ep < epochs; ep++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let i = corder.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [corder[i], corder[j]] = [corder[j], corder[i]];
    }
    if (contrast && contrast.groups) groupBatches(corder, contrast.groups, contrast.batch, rnd);
    let cosSum = 0;
    let closs = 0;
    let cdone = 0;
    for (let step = 0, start = 0; start < order.length; step++, start += batch) {
      grad.clear();
      const end = Math.min(order.length, start + batch);
      for (let k = start; k < end; k++) {
        const idx = order[k];
        const [ids, cnt] = bags[idx];
        sumBag(rows, dim, bags[idx], s);
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
          const f = (weights ? weights[idx] : 1) * cnt[t] / norm / (end - start);
          for (let j = 0; j < dim; j++) g[j] -= f * (tgt[to + j] - c * s[j] / norm);
        }
      }
      // Contrastive batches due by the end of this step.
      const due = Math.min(nC, Math.ceil(((step + 1) * nC) / nSteps));
      for (; cdone < due; cdone++) {
        const part = corder.slice(cdone * contrast.batch, (cdone + 1) * contrast.batch).map((i) => contrast.pairs[i]);
        if (part.length > 1) closs += contrastGrad(rows, dim, part, contrast.temp, contrast.weight, grad, frozen) / nC;
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
    history.push(contrast ? [cosSum / order.length, closs] : cosSum / order.length);
  }
  return history;
}

module.exports = { targets, bag, fit, contrastGrad, mulberry32 };
