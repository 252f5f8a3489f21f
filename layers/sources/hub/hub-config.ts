/** Where the Hub is and who we are to it, read from the environment at the edge. */
import type { SourceOptions } from '../types.ts';

/** The Hub's base URL (no trailing slash) and the token, if any. */
export interface HubConfig {
  endpoint: string;
  token?: string;
  fetchImpl: typeof fetch;
}

/** `HF_ENDPOINT` (default https://huggingface.co) and `HF_TOKEN` from `opts.env` or `process.env`. */
export function hubConfig(opts: Pick<SourceOptions, 'env' | 'fetchImpl'>): HubConfig {
  const env = opts.env ?? process.env;
  const endpoint = (env.HF_ENDPOINT?.trim() || 'https://huggingface.co').replace(/\/+$/, '');
  const token = env.HF_TOKEN?.trim() || env.HUGGING_FACE_HUB_TOKEN?.trim() || undefined;
  return { endpoint, fetchImpl: opts.fetchImpl ?? fetch, ...(token ? { token } : {}) };
}

/** Authorization header for Hub requests, when a token is set. */
export function authHeaders(config: HubConfig): Record<string, string> {
  return config.token ? { authorization: `Bearer ${config.token}` } : {};
}

/** Added to 401/403 messages. */
export const AUTH_HINT = '(a private or gated dataset needs HF_TOKEN set to a token with read access)';

/** A revision (branch, tag, commit or `refs/convert/parquet`) as one URL path segment. */
export function encodeRevision(revision: string): string {
  return encodeURIComponent(revision);
}

/** A repo path as URL path segments (each segment encoded, slashes kept). */
export function encodeRepoPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
