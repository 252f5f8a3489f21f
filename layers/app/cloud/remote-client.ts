/**
 * A client of the deployed HTTP API (DESIGN §10), for `polyeval remote`: every request is
 * signed with SigV4 (service `execute-api`) using the standard credential chain, as the API's
 * IAM authoriser requires. A 4xx answer is the caller's mistake and becomes an InputError with
 * the server's message; anything else that is not a 2xx is a HarnessError.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { executeApiSigner, type ApiCredentials, type SignRequest } from '#aws/index.ts';
import { HarnessError, InputError } from '#core/errors.ts';
import type { RunSpec } from '#core/run/index.ts';
import type { SelftestStarted, SelftestView } from './selftest.ts';

export interface RemoteClientOptions {
  /** The API's base URL, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com`. */
  api: string;
  /** Signing region; default AWS_REGION / AWS_DEFAULT_REGION, else the one in the API's host name. */
  region?: string;
  credentials?: ApiCredentials;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** `<id>.execute-api.<region>.amazonaws.com` → `<region>`. */
export function regionFromApiHost(host: string): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host)?.[1];
}

function parseApiUrl(api: string): URL {
  let url: URL;
  try {
    url = new URL(api);
  } catch {
    throw new InputError(`not a URL: "${api}"`, { field: 'api' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InputError(`expected an https:// URL, got "${api}"`, { field: 'api' });
  return url;
}

/** GET /leaderboard's filters and ranking choices. */
export interface RemoteLeaderboardOptions {
  protocol?: string;
  language?: string;
  dataset?: string;
  metric?: string;
  slice?: string;
}

export class RemoteClient {
  readonly #base: URL;
  readonly #sign: SignRequest;
  readonly #timeoutMs: number;

  constructor(options: RemoteClientOptions) {
    this.#base = parseApiUrl(options.api);
    const env = options.env ?? process.env;
    const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? regionFromApiHost(this.#base.hostname);
    if (!region) throw new InputError('no AWS region: pass --region or set AWS_REGION', { field: 'region' });
    this.#sign = executeApiSigner({ region, ...(options.credentials ? { credentials: options.credentials } : {}) });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  startRun(spec: RunSpec): Promise<{ run_id: string; runs: { run_id: string; benchmark: string; model: string; language: string | null }[] }> {
    return this.request('POST', '/runs', { body: spec });
  }

  listRuns(): Promise<{ runs: Record<string, unknown>[] }> {
    return this.request('GET', '/runs');
  }

  getRun(runId: string): Promise<{ run: Record<string, unknown>; manifest: Record<string, unknown> | null }> {
    return this.request('GET', `/runs/${encodeURIComponent(runId)}`);
  }

  getMetrics(runId: string): Promise<Record<string, unknown>> {
    return this.request('GET', `/runs/${encodeURIComponent(runId)}/metrics`);
  }

  /** Status `cancelled`: every stage then skips the run's queued work. */
  cancelRun(runId: string): Promise<{ run: Record<string, unknown> }> {
    return this.request('POST', `/runs/${encodeURIComponent(runId)}/cancel`);
  }

  /** The run's dead-lettered messages back to their queues. */
  redriveRun(runId: string): Promise<{ run_id: string; moved: number; queues: Record<string, number> }> {
    return this.request('POST', `/runs/${encodeURIComponent(runId)}/redrive`);
  }

  /** Runs an ended run's SE and missing items again (`polyeval remote resume`): 202, the plan stage sends them. */
  resumeRun(runId: string): Promise<{ run_id: string; resume: string; status: string }> {
    return this.request('POST', `/runs/${encodeURIComponent(runId)}/resume`);
  }

  /** A short-lived link to the run's HTML report (GET /runs/{id}/report): 404 unknown run, 409 no report yet. */
  reportLink(runId: string): Promise<{ run_id: string; url: string; expires_at: string }> {
    return this.request('GET', `/runs/${encodeURIComponent(runId)}/report`);
  }

  /** The benchmark's boards (GET /leaderboard): rows board by board, each with its `board` label. */
  leaderboard(benchmark: string, options: RemoteLeaderboardOptions = {}): Promise<{ benchmark: string; rows: Record<string, unknown>[] }> {
    const query: Record<string, string> = { benchmark };
    for (const name of ['protocol', 'language', 'dataset', 'metric', 'slice'] as const) {
      const value = options[name];
      if (value) query[name] = value;
    }
    return this.request('GET', '/leaderboard', { query });
  }

  /** Starts the self-test's runs (POST /selftest): every image's reference suite and the hostile suite, with the reference model. */
  startSelftest(languages?: string[]): Promise<SelftestStarted> {
    return this.request('POST', '/selftest', languages ? { body: { languages } } : {});
  }

  /** A self-test's runs while any is going, then its report (GET /selftest/{id}). */
  selftest(id: string): Promise<SelftestView> {
    return this.request('GET', `/selftest/${encodeURIComponent(id)}`);
  }

  /** Signs and sends one request; resolves with the parsed JSON body of a 2xx answer. */
  async request<T>(method: string, route: string, options: { query?: Record<string, string>; body?: unknown } = {}): Promise<T> {
    const path = `${this.#base.pathname.replace(/\/+$/, '')}${route}`;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const unsigned = {
      method,
      protocol: this.#base.protocol,
      hostname: this.#base.hostname,
      ...(this.#base.port ? { port: Number(this.#base.port) } : {}),
      path,
      query: options.query ?? {},
      headers: { host: this.#base.host, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    };
    let headers: Record<string, string>;
    try {
      headers = await this.#sign(unsigned);
    } catch (error) {
      throw new HarnessError(`cannot sign the request: no AWS credentials (${(error as Error).message})`, { cause: error });
    }
    const search = new URLSearchParams(options.query ?? {}).toString();
    const { status, text } = await this.#send(new URL(`${path}${search ? `?${search}` : ''}`, this.#base), headers, method, body);
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = { message: text };
    }
    if (status >= 200 && status < 300) return parsed as T;
    const message = typeof (parsed as { message?: unknown }).message === 'string' ? (parsed as { message: string }).message : text;
    if (status >= 400 && status < 500) throw new InputError(`the API answered ${status}: ${message}`);
    throw new HarnessError(`the API answered ${status} to ${method} ${route}${message ? `: ${message}` : ''}`);
  }

  #send(url: URL, headers: Record<string, string>, method: string, body: string | undefined): Promise<{ status: number; text: string }> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, timeout: this.#timeoutMs }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new HarnessError(`no answer from ${url.origin} within ${this.#timeoutMs} ms`)));
      req.on('error', (error) =>
        reject(error instanceof HarnessError ? error : new HarnessError(`cannot reach ${url.origin}: ${error.message}`, { cause: error })),
      );
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
}
