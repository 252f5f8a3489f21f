/**
 * `gguf:<path>[#options]`: a GGUF model file run by llama.cpp inside this process (through
 * node-llama-cpp, loaded only when such a model is used; see gguf-engine.ts). No server, no
 * network, no bill.
 *
 * - ABRICOT runs in log-likelihood mode by default: a choice's score is the sum of the
 *   log-probabilities of its tokens after the prompt's raw text (the text other raw-text
 *   providers send: flat, or rendered by `--chat-template`), read from llama.cpp's full
 *   next-token distributions. The prompt is evaluated once per item and its state reused for
 *   the five choices (only a choice's tokens after its first are evaluated, then erased).
 *   Continuation tokens are those of `tokenize(context + choice)` past its common prefix with
 *   `tokenize(context)`, so a token the choice merges with (SentencePiece's `▁` before a
 *   digit) is counted where the tokenizer puts it. When `tokenize(context)` is a prefix of
 *   `tokenize(context + choice)` (ABRICOT's prompts and " 1"…" 5" in the three vocabularies the
 *   tests use) this is lm-evaluation-harness's `whole_enc[len(context_enc):]`
 *   (EleutherAI/lm-evaluation-harness `lm_eval/api/model.py` `TemplateLM._encode_pair`, read at
 *   88486e5). Two differences: a token that straddles the boundary is counted whole and
 *   conditioned on the tokens before it (lm-eval conditions on `context_enc` and drops the
 *   straddling token's length from the continuation), as logprobs.ts does for the echo
 *   providers; and trailing whitespace of the context stays in the context (lm-eval moves it
 *   into the continuation, which adds the same term to every choice when the whitespace
 *   tokenizes on its own).
 * - Chat-style prompts (generation, next-token, digit-parse) are rendered with the chat
 *   template in the file (node-llama-cpp's `resolveChatWrapper`); the manifest names it.
 * - next-token mode reads the distribution after the prompt; when its most likely token is
 *   whitespace only (a separate `▁`, a newline), the position after it is read as well and
 *   each digit's probability is P(digit) + P(" digit") + P(ws)·P(digit | ws).
 * - Generation samples with the run's temperature, top-p and a seed (the run's seed, else 0,
 *   plus the sample index), stops at the run's stop strings, end of generation or max tokens.
 * - `--concurrency` is the number of sequences of the one context; threads default to the
 *   cores but one (the executor's share), `#threads=N` says otherwise.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { InputError } from '#core/errors.ts';
import type { ProviderKind } from '#core/models/index.ts';
import type { ChatMessage, ChoiceScores, Generation, GenerateRequest, Prompt, Provider, ScoreChoicesRequest } from '#core/models/index.ts';
import type { Token } from 'node-llama-cpp';
import { GgufEngine, loadNodeLlamaCpp } from './gguf-engine.ts';
import type { ProviderOptions } from './options.ts';
import { promptText, sampleSeed } from './prompt-text.ts';

/** The seed sampling starts from when the run sets none (recorded in the manifest). */
const DEFAULT_SEED = 0;
const DEFAULT_CONTEXT = 4096;

export interface GgufSpec {
  path: string;
  contextSize: number;
  threads: number;
  gpu: false | 'auto';
}

/** The InputError of a malformed spec (network-kind.ts's `badSpec` would import the registry, which imports this file). */
function badSpec(spec: string, reason: string): InputError {
  return new InputError(`provider spec ${JSON.stringify(spec)}: ${reason}`, { field: 'model' });
}

/**
 * The GPU setting when the spec names none: the CPU build (`false`) everywhere but Apple
 * Silicon, whose only prebuilt binary is the Metal one. node-llama-cpp 3.21.1
 * (`dist/bindings/utils/compileLLamaCpp.js`, `getPrebuiltBinaryPath`) looks up
 * `@node-llama-cpp/mac-arm64-metal` only for `gpu: "metal"` on mac arm64, so `gpu: false`
 * with `build: "never"` finds no binary there; `auto` resolves to Metal
 * (`getGpuTypesToUseForOption` → `getBestComputeLayersAvailable`).
 */
export function defaultGpu(platform: string = process.platform, arch: string = process.arch): false | 'auto' {
  return platform === 'darwin' && arch === 'arm64' ? 'auto' : false;
}

/** `<path>[#ctx=N,threads=N,gpu=auto|cpu]`. */
export function parseGgufSpec(spec: string, rest: string): GgufSpec {
  const hash = rest.indexOf('#');
  const path = hash < 0 ? rest : rest.slice(0, hash);
  if (path === '') throw badSpec(spec, 'no file; expected gguf:<path-to-model.gguf>[#ctx=4096,threads=2,gpu=auto]');
  const parsed: GgufSpec = { path, contextSize: DEFAULT_CONTEXT, threads: Math.max(1, availableParallelism() - 1), gpu: defaultGpu() };
  for (const part of hash < 0 ? [] : rest.slice(hash + 1).split(',')) {
    const [key, value = ''] = part.split('=');
    const int = (): number => {
      if (!/^[1-9]\d*$/.test(value)) throw badSpec(spec, `option ${key} must be a positive integer, got ${JSON.stringify(value)}`);
      return Number(value);
    };
    if (key === 'ctx') parsed.contextSize = int();
    else if (key === 'threads') parsed.threads = int();
    else if (key === 'gpu' && (value === 'auto' || value === 'cpu')) parsed.gpu = value === 'auto' ? 'auto' : false;
    else throw badSpec(spec, `unknown option ${JSON.stringify(part)} (options: ctx=<tokens>, threads=<n>, gpu=auto|cpu)`);
  }
  return parsed;
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** log P(continuation | context) for each choice, the context evaluated once. */
async function likelihoods(engine: GgufEngine, context: string, choices: readonly string[]): Promise<{ logprobs: number[]; evaluated: number }> {
  const contextTokens = engine.tokenize(context);
  const fulls = choices.map((c) => engine.tokenize(context + c));
  const starts = fulls.map((full) => commonPrefix(full, contextTokens));
  const shared = Math.min(...starts);
  if (shared === 0) throw new Error('the prompt has no token before the choices (empty context without a BOS token)');
  engine.assertFits(Math.max(...fulls.map((f) => f.length)), 'the prompt with its longest choice');
  return engine.withSequence(async (sequence) => {
    const head = contextTokens.slice(0, shared);
    const first = await engine.evaluate(sequence, head, new Set([shared - 1]));
    let evaluated = head.length;
    const logprobs: number[] = [];
    for (const [i, full] of fulls.entries()) {
      const start = starts[i] ?? shared;
      // Tokens past the shared head but before the last need evaluating; the distribution
      // after position j - 1 gives token j.
      const tail = full.slice(shared, full.length - 1);
      const marks = new Set(tail.map((_, k) => k).filter((k) => shared + k >= start - 1));
      const dists = tail.length > 0 ? await engine.evaluate(sequence, tail, marks) : new Map<number, Map<Token, number>>();
      evaluated += tail.length;
      let sum = 0;
      for (let j = start; j < full.length; j++) {
        const dist = j - 1 === shared - 1 ? first.get(shared - 1) : dists.get(j - 1 - shared);
        sum += Math.log(dist?.get(full[j] as Token) ?? 0);
      }
      if (full.length === start) throw new Error(`choice ${JSON.stringify(choices[i])} adds no token to the prompt`);
      logprobs.push(sum);
      await engine.truncate(sequence, shared);
    }
    return { logprobs, evaluated };
  });
}

function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The in-process provider over a loaded engine. */
class GgufProvider implements Provider {
  readonly kind = 'gguf';
  readonly id: string;
  readonly model: string;
  readonly concurrency: number;
  readonly details: Record<string, string | number | boolean | null>;
  readonly #engine: GgufEngine;
  readonly #chat: (messages: ChatMessage[], system: string | undefined) => Token[];
  readonly #now = Date.now;

  constructor(id: string, engine: GgufEngine, chat: (messages: ChatMessage[], system: string | undefined) => Token[], details: GgufProvider['details']) {
    this.id = id;
    this.#engine = engine;
    this.#chat = chat;
    this.details = details;
    this.model = String(details.file);
    this.concurrency = Number(details.sequences);
  }

  #promptTokens(prompt: Prompt): Token[] {
    return prompt.style === 'chat' ? this.#chat(prompt.messages, prompt.system) : this.#engine.tokenize(promptText(prompt));
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const started = this.#now();
    const tokens = this.#promptTokens(req.prompt);
    const { temperature, topP, maxTokens, stop } = req.params;
    const seed = sampleSeed(req.params.seed ?? DEFAULT_SEED, req.sample) ?? DEFAULT_SEED;
    const out = await this.#engine.withSequence((s) => this.#engine.sample(s, tokens, { temperature, topP, seed, maxTokens, stop }));
    return {
      text: out.text,
      usage: { promptTokens: tokens.length, completionTokens: out.tokens },
      latencyMs: this.#now() - started,
      finishReason: out.finishReason,
      attempts: 1,
    };
  }

  async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
    const started = this.#now();
    if (req.scoring?.mode === 'next-token') return this.#nextToken(req, started);
    const { logprobs, evaluated } = await likelihoods(this.#engine, promptText(req.prompt), req.choices);
    return { logprobs, usage: { promptTokens: evaluated, completionTokens: 0 }, latencyMs: this.#now() - started, attempts: 1 };
  }

  async #nextToken(req: ScoreChoicesRequest, started: number): Promise<ChoiceScores> {
    const engine = this.#engine;
    const tokens = this.#promptTokens(req.prompt);
    engine.assertFits(tokens.length + 1, 'the prompt with room for one whitespace token');
    const digits = req.choices.map((c) => c.trim());
    const single = (text: string): Token | undefined => {
      const t = engine.model.tokenize(text, false, 'trimLeadingSpace');
      return t.length === 1 ? t[0] : undefined;
    };
    const logprobs = await engine.withSequence(async (sequence) => {
      const first = (await engine.evaluate(sequence, tokens, new Set([tokens.length - 1]))).get(tokens.length - 1) ?? new Map<Token, number>();
      const direct = digits.map((d) => [single(d), single(` ${d}`)].reduce((p, t) => p + (t === undefined ? 0 : (first.get(t) ?? 0)), 0));
      // The map's first entry is the most likely token: the addon sorts the candidates by logit,
      // highest first, before it returns them (node-llama-cpp 3.21.1 `llama/addon/AddonContext.cpp`
      // `SampleToken`), and the Map keeps that order (`LlamaContext.js` `reviveTokenProbabilities`).
      const top = first.entries().next().value;
      if (top && engine.model.detokenize([top[0]]).trim() === '' && !engine.model.isEogToken(top[0])) {
        const after = (await engine.evaluate(sequence, [top[0]], new Set([0]))).get(0) ?? new Map<Token, number>();
        digits.forEach((d, i) => {
          const t = single(d);
          direct[i] = (direct[i] ?? 0) + top[1] * (t === undefined ? 0 : (after.get(t) ?? 0));
        });
      }
      return direct.map((p) => Math.log(p));
    });
    return { logprobs, usage: { promptTokens: tokens.length, completionTokens: 0 }, latencyMs: this.#now() - started, attempts: 1 };
  }

  async close(): Promise<void> {
    await this.#engine.close();
  }
}

/**
 * The first bytes of every GGUF file: the ASCII text "GGUF" (node-llama-cpp 3.21.1,
 * dist/gguf/parser/parseGguf.js `parseMagicAndVersion`, which otherwise throws
 * InvalidGgufMagicError). Checked before llama.cpp loads anything, so a wrong file is named.
 */
const GGUF_MAGIC = 'GGUF';

/** The file's first four bytes (fewer for a shorter file). */
function fileMagic(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(GGUF_MAGIC.length);
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** `-m gguf:./model.gguf`: llama.cpp in this process. */
export const gguf: ProviderKind<ProviderOptions> = {
  scheme: 'gguf',
  usage: 'gguf:<path>[#ctx=<tokens>,threads=<n>,gpu=auto|cpu]',
  description: 'a GGUF model file run in-process by llama.cpp (npm node-llama-cpp); exact log-likelihoods, nothing billed',
  argument: true,
  billed: false,
  tablePriced: false,
  answersWithReference: false,
  options: ['concurrency'],
  iam: [],
  checkCloud() {
    throw new InputError('gguf:<path> runs a model file in this process; the deployed pipeline reaches models over the network only', {
      field: 'model',
    });
  },
  async create(rest, ctx) {
    const spec = parseGgufSpec(ctx.spec, rest);
    const path = resolve(spec.path);
    if (!existsSync(path) || !statSync(path).isFile()) throw badSpec(ctx.spec, `no such file: ${path}`);
    const magic = fileMagic(path);
    if (magic.toString('latin1') !== GGUF_MAGIC) {
      const found =
        magic.length === 0
          ? 'is empty'
          : /^[\x20-\x7e]+$/.test(magic.toString('latin1'))
            ? `starts with ${JSON.stringify(magic.toString('latin1'))}`
            : `starts with the bytes ${magic.toString('hex').replace(/(..)(?=.)/g, '$1 ')}`;
      throw new InputError(`not a GGUF model file: it ${found}, where a GGUF file starts with "GGUF" (a .gguf model, as llama.cpp writes them)`, {
        file: path,
      });
    }
    const sequences = Math.max(1, ctx.options.concurrency ?? 1);
    const lib = await loadNodeLlamaCpp();
    const [engine, sha256] = await Promise.all([GgufEngine.open({ ...spec, path, sequences }), sha256OfFile(path)]);
    const model = engine.model;
    const wrapper = lib.resolveChatWrapper(model, { warningLogs: false });
    const chat = (messages: ChatMessage[], system: string | undefined): Token[] => {
      const chatHistory = [
        ...(system ? [{ type: 'system' as const, text: system }] : []),
        ...messages.map((m) => (m.role === 'user' ? { type: 'user' as const, text: m.content } : { type: 'model' as const, response: [m.content] })),
        { type: 'model' as const, response: [] },
      ];
      return wrapper.generateContextState({ chatHistory }).contextText.tokenize(model.tokenizer);
    };
    const meta = model.fileInfo.metadata;
    const fileType = meta.general.file_type;
    const details = {
      file: basename(path),
      sha256,
      architecture: String(meta.general.architecture),
      quantisation: fileType === undefined ? null : (lib.GgufFileType[fileType] ?? String(fileType)),
      description: model.typeDescription,
      train_context: model.trainContextSize,
      context_size: engine.contextSize,
      sequences,
      threads: spec.threads,
      gpu: spec.gpu === false ? 'cpu' : 'auto',
      chat_template: `${wrapper.wrapperName}${meta.tokenizer.chat_template ? ' (from the file)' : ' (the file has none: node-llama-cpp chose it)'}`,
      seed: `the run's seed, else ${DEFAULT_SEED}, plus the sample index`,
      engine: 'llama.cpp via node-llama-cpp 3.21.1',
    };
    return new GgufProvider(ctx.spec, engine, chat, details);
  },
};
