const M=require('/work/main/scripts/distill/lib/model');const T=require('/work/main/scripts/distill/lib/table');const E=require('/work/main/scripts/distill/lib/evaluate');
(async()=>{
const m=await M.load(); const N=m.vocabulary.length; const ids=[...Array(N).keys()];
const raw=(await M.tokenVectors(m.model,ids)).data;
const sets=E.loadSets({});
const run=async(name,emb)=>{const out=[];for(const k of ['paraphrase','code']){const s=sets[k];const r=E.score(await emb(s.queries),await emb(s.docs));out.push(`${k} r1=${r.r1.toFixed(3)} mrr=${r.mrr.toFixed(3)}`);}console.log(name.padEnd(50),out.join('  '));};
await run('full model',(t)=>M.embedTexts(m,t));
await run('hash',E.hashEmbedder());
const cache={};
const variants=JSON.parse(process.argv[2]);
for(const v of variants){const o=Object.assign({dims:256,removePC:0,centre:'uniform',weight:'sif',sifA:1e-3,norm:false,quant:'int8',scale:'row',cache},v);
 const b=T.build(raw,512,m.vocabulary,o);const q=T.quantize(b.rows,N,b.dim,o.quant,o.scale);
 await run(JSON.stringify(v),E.tableEmbedder(q,b.dim,m.tokenizer));}
})();
