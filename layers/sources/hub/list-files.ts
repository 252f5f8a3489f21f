/**
 * Lists a dataset repository's files through the Hub API:
 * `GET {endpoint}/api/datasets/{repo}/tree/{revision}?recursive=true`, a JSON array of
 * `{type: 'file'|'directory', path, size, oid, lfs?: {oid, size, pointerSize}}`, paginated
 * with a `Link: <next-url>; rel="next"` header.
 */
import { HarnessError, InputError } from '../../core/errors.ts';
import type { SourceOptions } from '../types.ts';
import { AUTH_HINT, authHeaders, encodeRevision, hubConfig } from './hub-config.ts';
import { checkRepo, formatHubRef } from './hub-ref.ts';

/** One file of a Hub repository. */
export interface HubFile {
  path: string;
  size: number;
  /** sha256 of the content for LFS files (the Hub's `lfs.oid`). */
  sha256?: string;
  /** The `hf://` ref that reads it. */
  ref: string;
  revision: string;
}

interface TreeEntry {
  type?: string;
  path?: string;
  size?: number;
  lfs?: { oid?: string; size?: number };
}

/** Files of dataset `repo` at `revision` (default `main`) whose path matches any of `patterns` (all when omitted), sorted by path. */
export async function resolveHubFiles(repo: string, opts: SourceOptions, select: { revision?: string; patterns?: RegExp[] } = {}): Promise<HubFile[]> {
  checkRepo(repo);
  const config = hubConfig(opts);
  const revision = select.revision ?? 'main';
  const label = `hf://datasets/${repo}@${revision}`;
  let url: string | undefined = `${config.endpoint}/api/datasets/${repo}/tree/${encodeRevision(revision)}?recursive=true&expand=false`;
  const files: HubFile[] = [];
  for (let page = 0; url !== undefined; page += 1) {
    if (page > 10_000) throw new HarnessError(`endless pagination while listing ${label}`);
    let res: Response;
    try {
      res = await config.fetchImpl(url, { headers: { accept: 'application/json', ...authHeaders(config) } });
    } catch (err) {
      throw new HarnessError(`cannot reach the Hub at ${config.endpoint} to list ${label} (${(err as Error).message})`, { cause: err });
    }
    if (!res.ok) {
      await res.body?.cancel();
      const hint = res.status === 401 || res.status === 403 ? ` ${AUTH_HINT}` : res.status === 404 ? ' (no such dataset or revision)' : '';
      if (res.status >= 500) throw new HarnessError(`the Hub answered HTTP ${res.status} while listing ${label}`);
      throw new InputError(`cannot list files: HTTP ${res.status}${hint}`, { file: label });
    }
    const entries = (await res.json()) as unknown;
    if (!Array.isArray(entries)) throw new HarnessError(`unexpected tree listing from ${url}: not an array`);
    for (const entry of entries as TreeEntry[]) {
      if (entry.type !== 'file' || typeof entry.path !== 'string') continue;
      if (select.patterns && !select.patterns.some((p) => p.test(entry.path as string))) continue;
      const sha256 = entry.lfs?.oid && /^[0-9a-f]{64}$/.test(entry.lfs.oid) ? entry.lfs.oid : undefined;
      files.push({
        path: entry.path,
        size: Number(entry.lfs?.size ?? entry.size ?? 0),
        revision,
        ref: formatHubRef({ repo, path: entry.path, revision }),
        ...(sha256 ? { sha256 } : {}),
      });
    }
    url = nextLink(res.headers.get('link'), url);
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1]) return new URL(m[1], base).href;
  }
  return undefined;
}
