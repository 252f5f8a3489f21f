import { tinyLlamaModelPath } from '../test/support/gguf-writer.ts';
console.log(tinyLlamaModelPath({ vocab: (process.argv[2] ?? 'mistral') as 'mistral' }));
