/**
 * `ollama:<model>` and `ollama:<base-url>#<model>`: a local Ollama server through its
 * OpenAI-compatible routes (`/v1/chat/completions`, `/v1/completions`). What it relies on,
 * read in ollama/ollama at fb30760 (2026-08-21):
 *
 * - The server: `<base-url>`, else `OLLAMA_HOST` read as the ollama CLI reads it
 *   (envconfig/config.go `Host`; see `ollamaHost`), else http://127.0.0.1:11434. No key.
 * - `/v1/completions` has no `echo` field and its answer never carries log-probabilities
 *   (openai/openai.go `CompletionRequest`, `ToCompletion`): no likelihood mode. The
 *   capabilities table says so, and the capability check records it without a call.
 * - Chat `logprobs: true` with `top_logprobs` 0–20 (server/routes.go `ChatHandler`: 400
 *   "top_logprobs must be between 0 and 20") answers the OpenAI chat shape (openai.go
 *   `ToChatCompletion`): ABRICOT runs in next-token mode with the top 20, or digit-parse when
 *   the server sends no log-probabilities (older servers, runners without them).
 * - Over `OLLAMA_MAX_QUEUE` waiting requests it answers 503 "server busy, please try again.
 *   maximum pending requests exceeded" (server/sched.go `Scheduler.getRunner`, `ErrMaxQueue`, while the model is not loaded; routes.go
 *   `handleScheduleError`): throttling, retried with back-off (failures.ts `httpFailure`).
 *
 * - Prompt tokens: `usage.prompt_tokens` is the runner's `prompt_eval_count` (openai.go
 *   `toUsage`). The ollama runners count the whole prompt, but v0.30.0's llama-server runner
 *   counted only the tokens it evaluated, leaving out those it reused from its prompt cache
 *   (llm/llama_server.go @v0.30.0 `Chat`/`Completion`: `Timings.PromptN`; v0.30.1 adds
 *   `cache_n`, ollama@35fa277f, #16414): an item whose prompt shares a prefix with the one
 *   before it was under-counted. {@link OllamaPromptCounts} corrects it (see there).
 *
 * Not priced by the shipped table (a local model costs no tokens): `--max-cost` needs the
 * user's `--prices` or `--assume-price` (0,0 for a free local server).
 */
import { createHash } from 'node:crypto';
import { InputError } from '#core/errors.ts';
import { estimateTokens } from './tokens.ts';
import { badSpec, httpBaseUrl, networkKind } from './network-kind.ts';
import { OpenAiProvider } from './openai.ts';

const DEFAULT_HOST = 'http://127.0.0.1:11434';

export interface OllamaSpec {
  scheme: 'ollama';
  /** The server's root (no `/v1`); undefined: OLLAMA_HOST or the default. */
  baseUrl?: string;
  model: string;
}

/** Go's net.SplitHostPort: `[v6]:port` or `host:port` with one colon; undefined where Go errs. */
function splitHostPort(hostport: string): { host: string; port: string } | undefined {
  const bracket = /^\[([^\]]*)\]:([^:]*)$/.exec(hostport);
  if (bracket) return { host: bracket[1] ?? '', port: bracket[2] ?? '' };
  const last = hostport.lastIndexOf(':');
  if (last < 0 || hostport.includes('[') || hostport.includes(']')) return undefined;
  const host = hostport.slice(0, last);
  return host.includes(':') ? undefined : { host, port: hostport.slice(last + 1) };
}

/**
 * The server the ollama CLI talks to for `OLLAMA_HOST` (api/client.go `ClientFromEnvironment`
 * uses envconfig/config.go `Host` @fb30760): `Var` trims spaces and quotes; no scheme means
 * http; `net.SplitHostPort` failing (no port) keeps the host (an IP parsed, brackets dropped)
 * with 11434 without a scheme, 80/443 with one; a port that is not a number in 0–65535 falls
 * back to that default. Two additions a client needs: an empty host (`:8080`) dials this
 * machine, and an unspecified bind address (0.0.0.0, ::) is replaced by loopback as
 * `ConnectableHost` does (what `ollama launch` and the app use).
 *
 * @example
 * ollamaHost('0.0.0.0'); // 'http://127.0.0.1:11434'
 * ollamaHost('https://ollama.example.org'); // 'https://ollama.example.org:443'
 * ollamaHost('example.com:'); // 'http://example.com:11434'
 */
export function ollamaHost(value: string | undefined): string {
  const s = (value ?? '').trim().replace(/^["']+|["']+$/g, '');
  if (s === '') return DEFAULT_HOST;
  const cut = s.indexOf('://');
  let scheme = 'http';
  let rest = s;
  let defaultPort = '11434';
  if (cut >= 0) {
    scheme = s.slice(0, cut);
    rest = s.slice(cut + 3);
    if (scheme === 'http') defaultPort = '80';
    if (scheme === 'https') defaultPort = '443';
  } else if (s === 'ollama.com') return 'https://ollama.com:443';
  const slash = rest.indexOf('/');
  const hostport = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash + 1);
  const split = splitHostPort(hostport);
  let host = split ? split.host : hostport.replace(/^\[|\]$/g, '');
  let port = split ? split.port : defaultPort;
  // config.go Host: strconv.ParseInt(port, 10, 32), else the default port.
  if (!/^[+-]?\d+$/.test(port) || Number(port) < 0 || Number(port) > 65535) port = defaultPort;
  port = String(Number(port));
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::' || /^(0*:)+0*$/.test(host)) host = '::1';
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${scheme}://${shown}:${port}${path ? `/${path}` : ''}`;
}

/**
 * Prompt tokens as Ollama should have counted them. A prompt sent again (the samples of one
 * task) is billed at the most the server ever counted for it — a prompt's token count does not
 * change, only the cache. On a server whose version under-counts cached prompts (v0.30.0,
 * read once from `GET /api/version`), a prompt seen once is counted at least at the chars/4
 * estimate polyeval uses for servers that report no usage.
 */
export class OllamaPromptCounts {
  readonly #largest = new Map<string, number>();
  #undercounts: Promise<boolean> | undefined;

  constructor(readonly root: string) {}

  async count(reported: number, prompt: string, signal?: AbortSignal): Promise<number> {
    const key = createHash('sha256').update(prompt).digest('base64');
    const known = Math.max(reported, this.#largest.get(key) ?? 0);
    this.#largest.set(key, known);
    return (await this.undercounts(signal)) ? Math.max(known, estimateTokens(prompt)) : known;
  }

  /** Whether the server is a release that leaves cached prompt tokens out of prompt_eval_count. */
  undercounts(signal?: AbortSignal): Promise<boolean> {
    this.#undercounts ??= fetch(`${this.root}/api/version`, signal ? { signal } : {})
      .then(async (res) => (res.ok ? ((await res.json()) as { version?: unknown }).version : undefined))
      .then((v) => typeof v === 'string' && /^0\.30\.0(-|$)/.test(v))
      .catch(() => false);
    return this.#undercounts;
  }
}

/** `-m ollama:llama3.2:3b` or `-m ollama:http://gpu-box:11434#llama3.2:3b`. */
export const ollama = networkKind<OllamaSpec>({
  scheme: 'ollama',
  usage: 'ollama:[<base-url>#]<model>',
  description: 'a local Ollama server (OpenAI-compatible /v1 routes); server from OLLAMA_HOST, default http://127.0.0.1:11434',
  billed: true,
  tablePriced: false,
  answersWithReference: false,
  iam: [],
  checkCloud(rest) {
    if (!rest.includes('#'))
      throw new InputError('ollama:<model> names a server on this machine; the deployed pipeline needs ollama:<base-url>#<model>', { field: 'model' });
  },
  parse(spec, rest) {
    const hash = rest.lastIndexOf('#');
    const model = rest.slice(hash + 1);
    if (model === '') throw badSpec(spec, 'empty model name; expected ollama:<model> or ollama:<base-url>#<model>, e.g. ollama:llama3.2:3b');
    if (hash < 0) return { scheme: 'ollama', model };
    // The server's root, also when pasted as the OpenAI base URL (…/v1).
    const baseUrl = rest.slice(0, hash).replace(/\/+$/, '').replace(/\/v1$/, '');
    return { scheme: 'ollama', baseUrl: httpBaseUrl(spec, baseUrl), model };
  },
  open(spec, parsed, options) {
    const root = parsed.baseUrl ?? ollamaHost(options.env.OLLAMA_HOST);
    const url = (path: string): string => `${root}/v1${path}`;
    const counts = new OllamaPromptCounts(root);
    return new OpenAiProvider(spec, `${root}/v1`, parsed.model, options, {
      kind: 'ollama',
      url,
      headers: {},
      promptTokens: (reported, prompt, signal) => counts.count(reported, prompt, signal),
    });
  },
});
