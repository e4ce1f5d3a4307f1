const M=require('./lib/model');const C=require('./lib/corpus');
(async()=>{const m=await M.load();const s=C.load(2000,0).slice(0,1000);
const lens=s.map(x=>m.tokenizer.encode(x).length);console.log('mean tokens',lens.reduce((a,b)=>a+b)/lens.length, Math.max(...lens));
const sorted=s.map((x,i)=>[lens[i],x]).sort((a,b)=>a[0]-b[0]).map(x=>x[1]);
for(const b of [32,128,128,512]){let t=Date.now();await M.embedTexts(m,sorted,b);console.log('sorted',b,(Date.now()-t)/1000,'ms/sent');}
})();
