'use strict';
// Deterministic dense linear algebra for the distillation: column means,
// covariance and a cyclic Jacobi eigen-decomposition. Everything runs in
// float64 in a fixed order, so the same input always gives the same bits.

// mean returns the weighted column mean of the n×d row-major matrix x
// (weights w, or uniform when w is null).
function mean(x, n, d, w) {
  const m = new Float64Array(d);
  let tw = 0;
  for (let i = 0; i < n; i++) {
    const wi = w ? w[i] : 1;
    tw += wi;
    const o = i * d;
    for (let j = 0; j < d; j++) m[j] += wi * x[o + j];
  }
  for (let j = 0; j < d; j++) m[j] /= tw;
  return m;
}

// covariance returns the d×d covariance (row-major Float64Array) of the rows
// of x around mu.
function covariance(x, n, d, mu) {
  const c = new Float64Array(d * d);
  const r = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) r[j] = x[o + j] - mu[j];
    for (let a = 0; a < d; a++) {
      const ra = r[a];
      if (ra === 0) continue;
      const ca = a * d;
      for (let b = a; b < d; b++) c[ca + b] += ra * r[b];
    }
  }
  for (let a = 0; a < d; a++) {
    for (let b = a; b < d; b++) {
      c[a * d + b] /= n;
      c[b * d + a] = c[a * d + b];
    }
  }
  return c;
}

// eigSym returns {values, vectors} of the symmetric d×d matrix a, sorted by
// decreasing eigenvalue; vectors[k] is a Float64Array of length d whose
// largest-magnitude entry is positive (a fixed sign, for reproducibility).
function eigSym(a0, d, maxSweeps = 60) {
  const a = Float64Array.from(a0);
  const v = new Float64Array(d * d);
  for (let i = 0; i < d; i++) v[i * d + i] = 1;
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < d; p++) {
      diag += a[p * d + p] * a[p * d + p];
      for (let q = p + 1; q < d; q++) off += a[p * d + q] * a[p * d + q];
    }
    if (off <= 1e-30 * diag) break;
    for (let p = 0; p < d - 1; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = a[p * d + q];
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * d + p];
        const aqq = a[q * d + q];
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < d; k++) {
          const akp = a[k * d + p];
          const akq = a[k * d + q];
          a[k * d + p] = c * akp - s * akq;
          a[k * d + q] = s * akp + c * akq;
        }
        for (let k = 0; k < d; k++) {
          const apk = a[p * d + k];
          const aqk = a[q * d + k];
          a[p * d + k] = c * apk - s * aqk;
          a[q * d + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < d; k++) {
          const vkp = v[k * d + p];
          const vkq = v[k * d + q];
          v[k * d + p] = c * vkp - s * vkq;
          v[k * d + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = [];
  for (let i = 0; i < d; i++) order.push(i);
  order.sort((i, j) => (a[j * d + j] - a[i * d + i]) || (i - j));
  const values = order.map((i) => a[i * d + i]);
  const vectors = order.map((i) => {
    const e = new Float64Array(d);
    let big = 0;
    for (let k = 0; k < d; k++) {
      e[k] = v[k * d + i];
      if (Math.abs(e[k]) > Math.abs(e[big])) big = k;
    }
    if (e[big] < 0) for (let k = 0; k < d; k++) e[k] = -e[k];
    return e;
  });
  return { values, vectors };
}

module.exports = { mean, covariance, eigSym };
