/**
 * llama.cpp in this process, through the npm package node-llama-cpp (3.21.1): one model, one
 * context of `sequences` sequences, and the three things a run asks of it — the summed
 * log-probability of a continuation, the next-token distribution after a prompt, and sampled
 * text. What it relies on, read in withcatai/node-llama-cpp v3.21.1 (`dist/*.d.ts` and
 * `llama/addon/AddonContext.cpp`):
 *
 * - `getLlama({ gpu, build: 'never' })` loads a prebuilt binary (`@node-llama-cpp/linux-x64`
 *   for the CPU; Apple Silicon has only `mac-arm64-metal`, see gguf.ts `defaultGpu`) without
 *   its postinstall step (which npm 12 skips unless package.json's `allowScripts` approves it, as ours does);
 * - `LlamaContextSequence.controlledEvaluate` with `generateNext: { probabilities: true }`
 *   returns, at each marked input position, the softmax over the whole vocabulary of that
 *   position's logits (the default sampler is greedy, which leaves the logits as they are:
 *   `AddonSampler.cpp` temperature ≤ 0 → `llama_sampler_init_greedy`);
 * - the tokens it evaluates stay in the sequence, so a context evaluated once is reused by
 *   each continuation, which `eraseContextTokenRanges` removes again afterwards;
 * - `evaluate(tokens, { temperature, topP, seed })` samples token after token.
 *
 * The package is imported only here, and only when a `gguf:` model is opened.
 */
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { deterministic } from './failures.ts';

/** What the package gives, loaded once per process. */
type NodeLlamaCpp = typeof import('node-llama-cpp');

let loaded: Promise<NodeLlamaCpp> | undefined;

/**
 * node-llama-cpp, imported on first use.
 * @throws Error in one sentence naming the package and this platform when it cannot load.
 */
export async function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  loaded ??= import('node-llama-cpp').catch((err: unknown) => {
    loaded = undefined;
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new Error(
      `gguf models run through the npm package node-llama-cpp (3.21.1), which could not load on ${process.platform}-${process.arch} (${reason}); install it with \`npm i -E node-llama-cpp@3.21.1\``,
    );
  });
  return loaded;
}

/** The engine's settings. */
export interface EngineOptions {
  path: string;
  /** Sequences of the one context (the run's concurrency). */
  sequences: number;
  threads: number;
  /** Context size per sequence; the model's training size when smaller. */
  contextSize: number;
  /** `false`: the CPU build (the default install has only it); `auto`: a GPU build when installed. */
  gpu: false | 'auto';
}

/** One sampled continuation. */
export interface Sampled {
  text: string;
  tokens: number;
  finishReason: 'stop' | 'length' | 'eog';
}

/** A loaded model with a pool of sequences. */
export class GgufEngine {
  readonly model: LlamaModel;
  readonly #llama: Llama;
  readonly #context: LlamaContext;
  readonly #free: LlamaContextSequence[];
  readonly #waiting: ((s: LlamaContextSequence) => void)[] = [];

  private constructor(llama: Llama, model: LlamaModel, context: LlamaContext) {
    this.#llama = llama;
    this.model = model;
    this.#context = context;
    this.#free = Array.from({ length: context.totalSequences }, () => context.getSequence());
  }

  /** Loads the file and creates its context. */
  static async open(options: EngineOptions): Promise<GgufEngine> {
    const lib = await loadNodeLlamaCpp();
    let llama: Llama;
    try {
      llama = await lib.getLlama({ gpu: options.gpu, build: 'never', logLevel: lib.LlamaLogLevel.error, progressLogs: false });
    } catch (err) {
      const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw new Error(`node-llama-cpp found no prebuilt llama.cpp binary for ${process.platform}-${process.arch} (${reason})${optInHint()}`, { cause: err });
    }
    const model = await llama.loadModel({ modelPath: options.path });
    const contextSize = Math.min(options.contextSize, model.trainContextSize);
    const context = await model.createContext({ sequences: options.sequences, contextSize, threads: options.threads });
    return new GgufEngine(llama, model, context);
  }

  /** The context's size per sequence. */
  get contextSize(): number {
    return this.#context.contextSize;
  }

  /**
   * Refuses `count` tokens that do not fit in a sequence. node-llama-cpp would not fail: its
   * default context shift (`contextShift.strategy` "eraseBeginning", `LlamaContext.js` 3.21.1)
   * silently erases the sequence's first tokens, so a long prompt would be scored or continued
   * without its beginning.
   * @throws ProviderCallError (not retryable) naming the sizes and the `#ctx=` option.
   */
  assertFits(count: number, what: string): void {
    if (count <= this.contextSize) return;
    const trained = this.model.trainContextSize;
    const raise =
      this.contextSize < trained
        ? `raise it by adding #ctx=<tokens> (this model was trained on ${trained}) after the model file's path`
        : `the model was trained on ${trained}, the most it takes`;
    throw deterministic(`${what} is ${count} tokens, more than the ${this.contextSize}-token context of a gguf sequence: ${raise}`);
  }

  /** `text`'s tokens, with the model's BOS first when it asks for one (`add_bos_token`). */
  tokenize(text: string, withBos = true): Token[] {
    const tokens = this.model.tokenize(text, true);
    const bos = this.model.tokens.bos;
    return withBos && bos !== null && this.model.tokens.shouldPrependBosToken ? [bos, ...tokens] : tokens;
  }

  /** Runs `work` on a sequence of its own, cleared first. */
  async withSequence<T>(work: (s: LlamaContextSequence) => Promise<T>): Promise<T> {
    const sequence = this.#free.pop() ?? (await new Promise<LlamaContextSequence>((resolve) => this.#waiting.push(resolve)));
    try {
      await sequence.clearHistory();
      return await work(sequence);
    } finally {
      const next = this.#waiting.shift();
      if (next) next(sequence);
      else this.#free.push(sequence);
    }
  }

  /**
   * Appends `tokens` to the sequence and returns the next-token distribution after each
   * position listed in `at` (indexes into `tokens`).
   */
  async evaluate(sequence: LlamaContextSequence, tokens: readonly Token[], at: ReadonlySet<number>): Promise<Map<number, Map<Token, number>>> {
    const input = tokens.map((t, i) =>
      at.has(i) ? ([t, { generateNext: { probabilities: true } }] as [Token, { generateNext: { probabilities: true } }]) : t,
    );
    const out = await sequence.controlledEvaluate(input);
    const result = new Map<number, Map<Token, number>>();
    for (const i of at) {
      const probabilities = out[i]?.next.probabilities;
      if (!probabilities) throw new Error(`llama.cpp returned no probabilities at input position ${i}`);
      result.set(i, probabilities);
    }
    return result;
  }

  /** Removes the sequence's tokens from `start` on (a continuation scored after a shared context). */
  async truncate(sequence: LlamaContextSequence, start: number): Promise<void> {
    const end = sequence.nextTokenIndex;
    if (end > start) await sequence.eraseContextTokenRanges([{ start, end }]);
  }

  /** Samples after `prompt` until an end-of-generation token, a stop string or `maxTokens`. */
  async sample(
    sequence: LlamaContextSequence,
    prompt: readonly Token[],
    p: { temperature: number; topP: number; seed: number; maxTokens: number; stop: readonly string[] },
  ): Promise<Sampled> {
    const generated: Token[] = [];
    let text = '';
    this.assertFits(prompt.length + 1, 'the prompt with room for one generated token');
    const limit = Math.min(p.maxTokens, this.contextSize - prompt.length);
    if (limit === 0) return { text, tokens: 0, finishReason: 'length' };
    const options = p.temperature > 0 ? { temperature: p.temperature, topP: p.topP, seed: p.seed } : { temperature: 0 };
    for await (const token of sequence.evaluate([...prompt], options)) {
      if (this.model.isEogToken(token)) return { text, tokens: generated.length, finishReason: 'eog' };
      generated.push(token);
      text = this.model.detokenize(generated);
      const hit = firstStop(text, p.stop);
      if (hit !== undefined) return { text: text.slice(0, hit), tokens: generated.length, finishReason: 'stop' };
      if (generated.length >= limit) break;
    }
    return { text, tokens: generated.length, finishReason: 'length' };
  }

  async close(): Promise<void> {
    await this.#context.dispose();
    await this.model.dispose();
    await this.#llama.dispose();
  }
}

/**
 * What to run when the binary is one package.json `overrides` leaves out: the Linux ARM builds
 * (their `cpu` field also lists x64, so npm would put them on every x64 machine; docs/providers.md).
 */
export function optInHint(platform: string = process.platform, arch: string = process.arch): string {
  const pkg = platform !== 'linux' ? undefined : arch === 'arm64' ? 'linux-arm64' : arch === 'arm' ? 'linux-armv7l' : undefined;
  return pkg === undefined
    ? ''
    : `; polyeval's default install leaves this build out: run \`npm pkg delete 'overrides.@node-llama-cpp/${pkg}' && npm install\` in the polyeval folder`;
}

/** Where the earliest stop string starts in `text`, if any. */
function firstStop(text: string, stop: readonly string[]): number | undefined {
  let first: number | undefined;
  for (const s of stop) {
    if (s === '') continue;
    const at = text.indexOf(s);
    if (at >= 0 && (first === undefined || at < first)) first = at;
  }
  return first;
}
