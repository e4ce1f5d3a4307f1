#!/usr/bin/env node
'use strict';
// Reads a JSON array of strings on stdin and prints a JSON array of their
// full USE-Lite embeddings (512 floats each, zero for text with no tokens).
// lib/embed/local/full's test compares the pure-Go forward pass with it.

const fs = require('fs');
const model = require('./lib/model');

(async () => {
  const input = JSON.parse(fs.readFileSync(0, 'utf8'));
  if (!Array.isArray(input)) throw new Error('stdin must be a JSON array of strings');
  const m = await model.load();
  const v = await model.embedTexts(m, input.map(String));
  process.stdout.write(JSON.stringify(v.map((x) => Array.from(x))));
})().catch((err) => {
  console.error(`embed.js: ${err.stack || err}`);
  process.exit(1);
});
