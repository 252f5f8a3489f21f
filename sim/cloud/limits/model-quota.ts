/**
 * A Bedrock model's on-demand quotas: requests per minute and tokens per minute, per model and
 * Region ("Quotas for Amazon Bedrock" and "Quotas for the bedrock-runtime endpoint", Bedrock
 * User Guide: "On-demand InvokeModel requests per minute for ${model}", "On-demand InvokeModel
 * tokens per minute for ${model}", input and output tokens counted together). How a request
 * counts ("How tokens are counted in Amazon Bedrock"): at its start the quota is taken by its
 * input tokens plus its `max_tokens`; when it ends, the output tokens it really produced replace
 * `max_tokens` (× the model's burndown rate: 1 for Claude 3 models, 5 for the output of Claude
 * 4 and later). A request that would pass either quota within the minute is refused with
 * `ThrottlingException` (HTTP 429), which the provider classifies as throttled.
 * (Bedrock stopped enforcing the per-minute request quota on bedrock-runtime in 2026 — tokens
 * alone decide there now —; the request quota is kept here for the accounts and endpoints that
 * still have one, and for `--model-quota`'s first number.)
 *
 * The default is the documented on-demand quota of Anthropic Claude 3 Haiku
 * (`anthropic.claude-3-haiku-20240307-v1:0`, the simulation's model) in us-east-1: 1,000
 * requests and 2,000,000 tokens per minute (AWS General Reference, "Amazon Bedrock endpoints
 * and quotas", https://docs.aws.amazon.com/general/latest/gr/bedrock.html#limits_bedrock, rows
 * "On-demand InvokeModel requests/tokens per minute for Anthropic Claude 3 Haiku"; new accounts
 * can get less, "Quotas for Amazon Bedrock").
 *
 * The window is a sliding minute over the requests admitted in it, in virtual time.
 */

export interface ModelQuota {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

export const CLAUDE_3_HAIKU_US_EAST_1: ModelQuota = { requestsPerMinute: 1_000, tokensPerMinute: 2_000_000 };

const MINUTE_MS = 60_000;

/** `<requests per minute>,<tokens per minute>`, e.g. `200,400000`. @throws Error naming the flag. */
export function parseModelQuota(text: string): ModelQuota {
  const parts = text.split(',').map((p) => Number(p.trim()));
  const [requestsPerMinute, tokensPerMinute] = parts;
  if (parts.length !== 2 || !Number.isInteger(requestsPerMinute) || !Number.isInteger(tokensPerMinute) || requestsPerMinute! < 1 || tokensPerMinute! < 1)
    throw new Error(`--model-quota must be <requests per minute>,<tokens per minute> (positive integers), e.g. 200,400000; got ${JSON.stringify(text)}`);
  return { requestsPerMinute: requestsPerMinute!, tokensPerMinute: tokensPerMinute! };
}

interface Admitted {
  at: number;
  tokens: number;
}

/** The quota of one model in one account and Region. */
export class ModelQuotas {
  readonly #admitted: Admitted[] = [];
  /** Requests refused with ThrottlingException. */
  throttled = 0;

  constructor(readonly quota: ModelQuota) {}

  /**
   * Admits a request at `atMs` reserving `inputTokens + maxTokens`, or throws Bedrock's
   * ThrottlingException. @returns a function that settles the request with what it produced.
   */
  admit(atMs: number, inputTokens: number, maxTokens: number): (outputTokens: number) => void {
    const recent = this.#admitted.filter((a) => a.at > atMs - MINUTE_MS && a.at <= atMs);
    const used = recent.reduce((sum, a) => sum + a.tokens, 0);
    const reserve = inputTokens + maxTokens;
    if (recent.length + 1 > this.quota.requestsPerMinute || used + reserve > this.quota.tokensPerMinute) {
      this.throttled += 1;
      throw Object.assign(new Error('Too many requests, please wait before trying again.'), {
        name: 'ThrottlingException',
        $metadata: { httpStatusCode: 429 },
      });
    }
    const entry = { at: atMs, tokens: reserve };
    this.#admitted.push(entry);
    this.#forget(atMs);
    return (outputTokens) => {
      entry.tokens = inputTokens + outputTokens;
    };
  }

  /** Drops what no later request can see (requests arrive in roughly increasing virtual time). */
  #forget(nowMs: number): void {
    if (this.#admitted.length < 4096) return;
    const keep = this.#admitted.filter((a) => a.at > nowMs - 2 * MINUTE_MS);
    this.#admitted.splice(0, this.#admitted.length, ...keep);
  }

  describe(): string {
    return `${this.quota.requestsPerMinute} requests/min, ${this.quota.tokensPerMinute} tokens/min`;
  }
}
