const M=require('./lib/model');const C=require('./lib/corpus');const fs=require('fs');
(async()=>{const m=await M.load();const s=C.load(+process.argv[2],+process.argv[3]);
let t=Date.now();const v=await M.embedTexts(m,s,128);
const buf=new Float32Array(s.length*512);v.forEach((x,i)=>buf.set(x,i*512));
fs.writeFileSync('/tmp/teacher.f32',Buffer.from(buf.buffer));fs.writeFileSync('/tmp/teacher.json',JSON.stringify(s));
console.log('done',s.length,(Date.now()-t)/1000,'s');})();
