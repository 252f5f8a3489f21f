import { tinyLlamaModelPath } from '../test/support/gguf-writer.ts';
const t0 = Date.now();
const paths = { mistral: tinyLlamaModelPath({ vocab: 'mistral' }), llama3: tinyLlamaModelPath({ vocab: 'llama3' }), qwen3: tinyLlamaModelPath({ vocab: 'qwen3' }) };
console.log('written', Date.now() - t0, paths);
const { getLlama } = await import('node-llama-cpp');
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
for (const [name, p] of Object.entries(paths)) {
  const t1 = Date.now();
  const model = await llama.loadModel({ modelPath: p });
  const ctx = await model.createContext({ contextSize: 512, sequences: 2 });
  const seq = ctx.getSequence();
  const toks = model.tokenize('Risposta: 1', true);
  console.log(name, 'load', Date.now() - t1, 'tokens', toks, toks.map((t) => model.detokenize([t])), 'bos', model.tokens.bos, 'should', model.tokens.shouldPrependBosToken, 'tpl', model.fileInfo.metadata.tokenizer?.chat_template?.length);
  const input = [...(model.tokens.bos !== null && model.tokens.shouldPrependBosToken ? [model.tokens.bos] : []), ...toks];
  const out = await seq.controlledEvaluate(input.map((t) => [t, { generateNext: { probabilities: true } }] as never));
  const last = out.at(-1)!;
  console.log(' probs size', last.next.probabilities!.size, [...last.next.probabilities!.entries()].slice(0, 3));
  await ctx.dispose(); await model.dispose();
}
