#!/usr/bin/env node
'use strict';
// Writes the held-out sets of testdata/embed/pairs.json (prose, js, rust,
// python) from the JSON lines of `pairs -raw` run on the held-out lists in
// heldout/ (sources the fit never reads; see `make heldout`): every prose
// pair (heading or question → section text), and up to N code pairs of
// each language, evenly spaced ([masked doc sentence, path, comment-free
// declaration]). The hand-written paraphrase and code sets are kept.
// Usage: node heldout.js PAIRS.jsonl [N]

const fs = require('fs');
const path = require('path');
const { every } = require('./lib/corpus');

const PAIRS = path.join(__dirname, '..', '..', 'testdata', 'embed', 'pairs.json');

function main() {
  const [file, nArg] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node heldout.js PAIRS.jsonl [N]');
    process.exit(2);
  }
  const n = Number(nArg || 60);
  const by = {};
  for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!l) continue;
    const p = JSON.parse(l);
    (by[p.kind] = by[p.kind] || []).push(p);
  }
  const short = (p) => p.mod.split('/').pop();
  const code = (k) => every(by[k] || [], n).map((p) => [p.doc, `${short(p)}/${p.file}`, p.raw]);
  const d = JSON.parse(fs.readFileSync(PAIRS, 'utf8'));
  d.prose = ['faq', 'mdq', 'md'].flatMap((k) => (by[k] || []).map((p) => [p.doc, p.code]));
  d.js = code('js');
  d.rust = code('rs');
  d.python = code('py');
  d.about = 'Retrieval pairs for the quick quality check of the local embedder (scripts/distill/eval.js, lib/embed/local tests). ' +
    'Hand-written: paraphrase [query, passage] with little word overlap; code [query, rel_path, Go code without its doc comment]. ' +
    'Extracted by scripts/distill/heldout.js from sources the table fit never reads (scripts/distill/heldout/*.txt): ' +
    'prose [heading or question, markdown section text]; js, rust, python [doc sentence with the identifier masked, rel_path, declaration without comments].';
  const keys = ['about', 'paraphrase', 'code', 'prose', 'js', 'rust', 'python'];
  const lines = ['{'];
  keys.forEach((k, i) => {
    const end = i === keys.length - 1 ? '' : ',';
    if (k === 'about') {
      lines.push(`  "about": ${JSON.stringify(d.about)}${end}`);
      return;
    }
    lines.push(`  ${JSON.stringify(k)}: [`);
    d[k].forEach((p, j) => lines.push(`    ${JSON.stringify(p)}${j === d[k].length - 1 ? '' : ','}`));
    lines.push(`  ]${end}`);
  });
  lines.push('}');
  fs.writeFileSync(PAIRS, lines.join('\n') + '\n');
  console.error(`heldout: prose ${d.prose.length}, js ${d.js.length}, rust ${d.rust.length}, python ${d.python.length}`);
}

main();
