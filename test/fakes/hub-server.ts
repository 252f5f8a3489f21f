/**
 * A local stand-in for the Hugging Face Hub, serving dataset repos the way the Hub does:
 * - `GET /api/datasets/<owner>/<name>/tree/<rev>?recursive=true` → JSON entries
 *   `{type, path, size, oid, lfs?: {oid, size, pointerSize}}`, paginated by a `Link` header;
 * - `GET|HEAD /datasets/<owner>/<name>/resolve/<rev>/<path>` → a small file directly (git
 *   `ETag`), an LFS file as a 302 to `/cdn/<sha256>` with `X-Linked-Etag` / `X-Linked-Size`;
 * - `GET /cdn/<sha256>` → the bytes, honouring `Range` (206) unless told to ignore it;
 * - `GET /raw/<name>` → extra files outside any repo (what a loading script points to).
 * With a `token`, the API and resolve routes answer 401 without `Authorization: Bearer <token>`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHubFile {
  path: string;
  content: Buffer | string;
  /** Served through the LFS redirect (default: true for files over 1 KiB). */
  lfs?: boolean;
}

export interface FakeHubOptions {
  repos: Record<string, FakeHubFile[]>;
  raw?: Record<string, Buffer | string>;
  token?: string;
  /** Tree entries per page (default: all in one page). */
  pageSize?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  authorization?: string;
  range?: string;
}

export interface FakeHub {
  endpoint: string;
  requests: RecordedRequest[];
  /** The next `count` CDN/raw transfers send only `bytes` bytes and then drop the connection. */
  dropNextTransfers(count: number, bytes: number): void;
  /** CDN answers ignore `Range` and send the whole file with 200. */
  ignoreRange(on: boolean): void;
  /** The CDN serves `content` for `path` while the headers keep announcing the original sha256. */
  corrupt(repo: string, path: string, content: Buffer | string): void;
  close(): Promise<void>;
}

interface Stored {
  path: string;
  content: Buffer;
  lfs: boolean;
  sha256: string;
  gitOid: string;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const gitOid = (b: Buffer): string => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

/** Starts the fake Hub on a free 127.0.0.1 port. */
export async function startFakeHub(options: FakeHubOptions): Promise<FakeHub> {
  const repos = new Map<string, Stored[]>();
  const bySha = new Map<string, Buffer>();
  for (const [repo, files] of Object.entries(options.repos)) {
    repos.set(
      repo,
      files.map((f) => {
        const content = Buffer.from(f.content);
        const stored = { path: f.path, content, lfs: f.lfs ?? content.length > 1024, sha256: sha256(content), gitOid: gitOid(content) };
        bySha.set(stored.sha256, content);
        return stored;
      }),
    );
  }
  const requests: RecordedRequest[] = [];
  let drops = { count: 0, bytes: 0 };
  let ignoreRange = false;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub.invalid');
    requests.push({
      method: req.method ?? 'GET',
      url: url.pathname + url.search,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(req.headers.range ? { range: req.headers.range } : {}),
    });
    const authorized = !options.token || req.headers.authorization === `Bearer ${options.token}`;
    const tree = /^\/api\/datasets\/([^/]+\/[^/]+)\/tree\/([^/]+)$/.exec(url.pathname);
    const resolve = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    const raw = /^\/raw\/(.+)$/.exec(url.pathname);
    if ((tree || resolve) && !authorized) return send(res, 401, { error: 'Invalid credentials' });
    if (tree) {
      const files = repos.get(tree[1] as string);
      if (!files) return send(res, 404, { error: 'Repository not found' });
      const entries = treeEntries(files);
      const size = options.pageSize ?? entries.length;
      const cursor = Number(url.searchParams.get('cursor') ?? '0');
      const page = entries.slice(cursor, cursor + size);
      if (cursor + size < entries.length) {
        const next = new URL(url.pathname + url.search, `http://${req.headers.host}`);
        next.searchParams.set('cursor', String(cursor + size));
        res.setHeader('link', `<${next.href}>; rel="next"`);
      }
      return send(res, 200, page);
    }
    if (resolve) {
      const file = repos.get(resolve[1] as string)?.find((f) => f.path === decodeURIComponent(resolve[3] as string));
      if (!file) return send(res, 404, { error: 'Entry not found' });
      res.setHeader('x-repo-commit', '0'.repeat(40));
      if (file.lfs) {
        res.writeHead(302, {
          location: `http://${req.headers.host}/cdn/${file.sha256}`,
          etag: `"${file.sha256}"`,
          'x-linked-etag': `"${file.sha256}"`,
          'x-linked-size': String(file.content.length),
        });
        return res.end();
      }
      res.setHeader('etag', `"${file.gitOid}"`);
      return transfer(req, res, file.content, false);
    }
    if (cdn) {
      const content = bySha.get(cdn[1] as string);
      if (!content) return send(res, 404, { error: 'not found' });
      res.setHeader('etag', `"${cdn[1]}"`);
      return transfer(req, res, content, !ignoreRange);
    }
    if (raw && options.raw?.[raw[1] as string] !== undefined) {
      return transfer(req, res, Buffer.from(options.raw[raw[1] as string] as Buffer | string), !ignoreRange);
    }
    return send(res, 404, { error: 'no route' });
  });

  function transfer(req: IncomingMessage, res: ServerResponse, content: Buffer, honourRange: boolean): void {
    let body = content;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    res.setHeader('accept-ranges', 'bytes');
    if (honourRange && range) {
      const start = Number(range[1]);
      if (start >= content.length) {
        res.writeHead(416, { 'content-range': `bytes */${content.length}` });
        return void res.end();
      }
      body = content.subarray(start);
      res.writeHead(206, { 'content-length': String(body.length), 'content-range': `bytes ${start}-${content.length - 1}/${content.length}` });
    } else {
      res.writeHead(200, { 'content-length': String(body.length) });
    }
    if (req.method === 'HEAD') return void res.end();
    if (drops.count > 0) {
      drops = { count: drops.count - 1, bytes: drops.bytes };
      res.write(body.subarray(0, Math.min(drops.bytes, body.length)), () => res.destroy());
      return;
    }
    res.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    dropNextTransfers(count, bytes) {
      drops = { count, bytes };
    },
    ignoreRange(on) {
      ignoreRange = on;
    },
    corrupt(repo, path, content) {
      const file = repos.get(repo)?.find((f) => f.path === path);
      if (!file) throw new Error(`fake hub: no ${repo}/${path}`);
      bySha.set(file.sha256, Buffer.from(content));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function treeEntries(files: Stored[]): unknown[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i += 1) dirs.add(parts.slice(0, i).join('/'));
  }
  return [
    ...[...dirs].sort().map((path) => ({ type: 'directory', oid: gitOid(Buffer.from(path)), size: 0, path })),
    ...files.map((f) => ({
      type: 'file',
      oid: f.gitOid,
      size: f.lfs ? 134 : f.content.length,
      path: f.path,
      ...(f.lfs ? { lfs: { oid: f.sha256, size: f.content.length, pointerSize: 134 } } : {}),
    })),
  ];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
