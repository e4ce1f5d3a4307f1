#!/usr/bin/env node
'use strict';
// Reads a JSON array of [path, code] pairs on stdin and prints a JSON array
// of their CodeText words as the distillation computes them (lib/codetext.js).
// lib/embed/local's test checks the Go CodeText gives the same strings.

const fs = require('fs');
const { codeText } = require('./lib/codetext');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
if (!Array.isArray(input)) {
  console.error('codetext.js: stdin must be a JSON array of [path, code] pairs');
  process.exit(2);
}
process.stdout.write(JSON.stringify(input.map(([p, c]) => codeText(String(p), String(c)))));
