const M=require('./lib/model');const C=require('./lib/corpus');const fs=require('fs');
(async()=>{const m=await M.load();const p=C.docPairs();const s=p.map(x=>x.doc);
let t=Date.now();const v=await M.embedTexts(m,s,128);
const buf=new Float32Array(s.length*512);v.forEach((x,i)=>buf.set(x,i*512));
fs.writeFileSync('/tmp/teacher2.f32',Buffer.from(buf.buffer));fs.writeFileSync('/tmp/teacher2.json',JSON.stringify(p));
console.log('done',s.length,(Date.now()-t)/1000,'s');})();
