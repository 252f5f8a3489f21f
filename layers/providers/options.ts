/**
 * Options shared by every network provider, and their defaults. Side effects that tests
 * need to control (the clock, the sleep, the random source, the environment) are options,
 * so tests never patch modules.
 */
import { InputError } from '#core/errors.ts';
import { shippedCapabilityTable, type CapabilityTable } from './capabilities.ts';
import { BoundKey, type KeyHostRule } from './key-hosts.ts';

/** How a network provider is reached and how hard it tries. */
export interface ProviderOptions {
  /** AWS region; otherwise the SDK's standard chain (AWS_REGION, profile). */
  region?: string;
  /**
   * Endpoint override (VPC endpoints, proxies, tests). Without it the AWS SDK honours the
   * standard `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL` variables of the process itself.
   */
  endpointUrl?: string;
  /** Name of the environment variable holding the OpenAI-compatible API key (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  /** Max calls in flight for this provider (default 4). */
  concurrency?: number;
  /** Hard per-call timeout in ms (default 120 000); a call that exceeds it is a retryable failure. */
  timeoutMs?: number;
  /** Retries after the first attempt on retryable failures (default 6). */
  maxRetries?: number;
  /** Retries of a throttled call (default 16, or `maxRetries` when that is given); bounded by `waitBudgetMs` too. */
  throttleRetries?: number;
  /** Total backoff one throttled call may wait before it gives up (default 180 000: longer than a per-minute quota window). */
  waitBudgetMs?: number;
  /** Base of the exponential backoff in ms (default 500). */
  retryBaseMs?: number;
  /** Cap of one backoff delay in ms (default 20 000). */
  retryMaxDelayMs?: number;
  /** Cap on a server's Retry-After in ms (default 60 000). */
  retryAfterCapMs?: number;
  /** The model-capabilities table (default: the shipped one; `--capabilities` adds rules). */
  capabilities?: CapabilityTable;
  /** OpenAI Batch: the organisation's enqueued-token limit for the model (`--batch-token-limit`; default: the shipped table's). */
  batchTokenLimit?: number;
  /** Environment to read API keys from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Where keys may go (key-hosts.ts): `refuse` in the deployed functions; default `warn` (this machine). */
  keyHosts?: KeyHostRule;
  /** Where a warning goes (default: a line on stderr). */
  warn?: (message: string) => void;
  /** Injected for tests: waits `ms` (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests: uniform random in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  /** Injected for tests: wall clock in ms, for Retry-After dates and latency (default Date.now). */
  now?: () => number;
}

/** ProviderOptions with every default filled in. */
export interface ResolvedOptions {
  region: string | undefined;
  endpointUrl: string | undefined;
  apiKeyEnv: string;
  /** Whether the user named the key's variable (`--api-key-env`), rather than taking the provider's default. */
  apiKeyEnvNamed: boolean;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  throttleRetries: number;
  waitBudgetMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryAfterCapMs: number;
  capabilities: CapabilityTable;
  batchTokenLimit: number | undefined;
  env: Record<string, string | undefined>;
  keyHosts: KeyHostRule;
  warn: (message: string) => void;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 6;
export const DEFAULT_THROTTLE_RETRIES = 16;
export const DEFAULT_WAIT_BUDGET_MS = 180_000;

/** Fills defaults and rejects nonsensical numbers with an InputError naming the option. */
export function resolveOptions(opts: ProviderOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    region: opts.region,
    endpointUrl: opts.endpointUrl,
    apiKeyEnv: opts.apiKeyEnv ?? 'OPENAI_API_KEY',
    apiKeyEnvNamed: opts.apiKeyEnv !== undefined,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: opts.maxRetries ?? DEFAULT_MAX_RETRIES,
    throttleRetries: opts.throttleRetries ?? opts.maxRetries ?? DEFAULT_THROTTLE_RETRIES,
    waitBudgetMs: opts.waitBudgetMs ?? DEFAULT_WAIT_BUDGET_MS,
    retryBaseMs: opts.retryBaseMs ?? 500,
    retryMaxDelayMs: opts.retryMaxDelayMs ?? 20_000,
    retryAfterCapMs: opts.retryAfterCapMs ?? 60_000,
    capabilities: opts.capabilities ?? shippedCapabilityTable(),
    batchTokenLimit: opts.batchTokenLimit,
    env: opts.env ?? process.env,
    keyHosts: opts.keyHosts ?? { mode: 'warn' },
    warn: opts.warn ?? ((message) => process.stderr.write(`${message}\n`)),
    sleep: opts.sleep ?? defaultSleep,
    random: opts.random ?? Math.random,
    now: opts.now ?? Date.now,
  };
  positiveInteger(resolved.concurrency, 'concurrency');
  positiveInteger(resolved.timeoutMs, 'timeoutMs');
  nonNegative(resolved.maxRetries, 'maxRetries');
  nonNegative(resolved.throttleRetries, 'throttleRetries');
  nonNegative(resolved.waitBudgetMs, 'waitBudgetMs');
  nonNegative(resolved.retryBaseMs, 'retryBaseMs');
  nonNegative(resolved.retryMaxDelayMs, 'retryMaxDelayMs');
  nonNegative(resolved.retryAfterCapMs, 'retryAfterCapMs');
  if (resolved.batchTokenLimit !== undefined) positiveInteger(resolved.batchTokenLimit, 'batch-token-limit');
  if (resolved.endpointUrl !== undefined && !URL.canParse(resolved.endpointUrl)) {
    throw new InputError(`not a URL: ${JSON.stringify(resolved.endpointUrl)}`, { field: 'endpointUrl' });
  }
  return resolved;
}

/**
 * The key in `variable` bound to its hosts (key-hosts.ts), checked against `baseUrl` now: in
 * the deployed functions a base URL the key may not go to is refused here, at plan time.
 */
export function boundKey(opts: ResolvedOptions, variable: string, baseUrl: string): BoundKey {
  const key = new BoundKey(variable, opts.env[variable], opts.keyHosts, opts.apiKeyEnvNamed, opts.warn);
  key.check(baseUrl);
  return key;
}

function positiveInteger(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 1) throw new InputError(`must be a positive integer, got ${value}`, { field });
}

function nonNegative(value: number, field: string): void {
  if (!Number.isFinite(value) || value < 0) throw new InputError(`must be a non-negative number, got ${value}`, { field });
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
