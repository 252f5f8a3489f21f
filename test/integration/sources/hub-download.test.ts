import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  downloadHubFile,
  hubCachePath,
  openRows,
  resolveHubFiles,
  resolveNamedDataset,
  resolveNamedDatasetFiles,
  type SourceOptions,
} from '../../../layers/sources/index.ts';
import { startFakeHub, type FakeHub } from '../../fakes/hub-server.ts';

const TOKEN = 'hf_test_token';
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// Hand-written rows in the shape of the real files (long enough to go through the LFS path).
const rocodeTest = Buffer.from(
  Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: i, name: `problema${i}`, statement: `Se dă un șir de ${i} numere.`, difficulty: 'easy' })).join(
    '\n',
  ) + '\n',
);
const rocodeVal = gzipSync(Buffer.from('{"id":1,"name":"val"}\n'));
const abricotCsv = 'id,target_token,text,abs_mean\n1,casa,"La casa è grande.",0.2\n';

let hub: FakeHub;
let cacheDir: string;
let opts: SourceOptions;

beforeAll(async () => {
  hub = await startFakeHub({
    token: TOKEN,
    pageSize: 2,
    repos: {
      'cosmadrian/rocode': [
        { path: '.gitattributes', content: '*.jsonl filter=lfs diff=lfs merge=lfs -text\n' },
        { path: 'README.md', content: '# RoCode\n' },
        { path: 'rocode_test.jsonl', content: rocodeTest },
        { path: 'rocode_val.jsonl.gz', content: rocodeVal, lfs: true },
        { path: 'rocode_train.jsonl', content: '{"id":7,"name":"antrenare"}\n' },
      ],
    },
    raw: { 'dataset_it.csv': abricotCsv },
  });
});
afterAll(async () => {
  await hub.close();
});
beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'polyeval-hub-'));
  opts = { cacheDir, env: { HF_ENDPOINT: hub.endpoint, HF_TOKEN: TOKEN } };
  hub.requests.length = 0;
  hub.ignoreRange(false);
  hub.dropNextTransfers(0, 0);
});
afterEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

describe('listing a dataset repository', () => {
  it('follows the pagination and keeps only matching files, with LFS sizes and hashes', async () => {
    const files = await resolveHubFiles('cosmadrian/rocode', opts, { patterns: [/\.jsonl(\.gz)?$/] });
    expect(files.map((f) => f.path)).toEqual(['rocode_test.jsonl', 'rocode_train.jsonl', 'rocode_val.jsonl.gz']);
    expect(files[0]).toMatchObject({ size: rocodeTest.length, sha256: sha(rocodeTest), ref: 'hf://datasets/cosmadrian/rocode/rocode_test.jsonl' });
    expect(hub.requests.filter((r) => r.url.startsWith('/api/')).length).toBeGreaterThan(1);
  });

  it('sends the token and fails with a hint at HF_TOKEN without it', async () => {
    await resolveHubFiles('cosmadrian/rocode', opts);
    expect(hub.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    await expect(resolveHubFiles('cosmadrian/rocode', { cacheDir, env: { HF_ENDPOINT: hub.endpoint } })).rejects.toThrow(/HTTP 401.*HF_TOKEN/);
  });

  it('reports an unknown repository as bad input', async () => {
    await expect(resolveHubFiles('nobody/nothing', opts)).rejects.toMatchObject({ name: 'InputError' });
  });
});

describe('downloading a file', () => {
  it('follows the LFS redirect, verifies the sha256 and caches the file', async () => {
    const file = await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    expect(file).toMatchObject({ sha256: sha(rocodeTest), size: rocodeTest.length, cached: false });
    expect(await readFile(file.path)).toEqual(rocodeTest);
    expect(file.path).toBe(hubCachePath(cacheDir, { repo: 'cosmadrian/rocode', path: 'rocode_test.jsonl', revision: 'main' }));
    expect(hub.requests.map((r) => r.url)).toEqual(['/datasets/cosmadrian/rocode/resolve/main/rocode_test.jsonl', `/cdn/${sha(rocodeTest)}`]);
    expect(hub.requests[0]?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('makes no request on a cache hit', async () => {
    await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    const before = hub.requests.length;
    const again = await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    expect(again).toMatchObject({ cached: true, sha256: sha(rocodeTest) });
    expect(hub.requests.length).toBe(before);
  });

  it('shares one transfer between concurrent callers', async () => {
    const [a, b] = await Promise.all([
      downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts),
      downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts),
    ]);
    expect(a.sha256).toBe(b.sha256);
    expect(hub.requests.filter((r) => r.url.startsWith('/cdn/')).length).toBe(1);
  });

  it('resumes a dropped transfer with a Range request', async () => {
    hub.dropNextTransfers(1, 1000);
    const file = await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    expect(await readFile(file.path)).toEqual(rocodeTest);
    const cdn = hub.requests.filter((r) => r.url.startsWith('/cdn/'));
    expect(cdn.map((r) => r.range)).toEqual([undefined, 'bytes=1000-']);
  });

  it('restarts cleanly when the server ignores Range', async () => {
    hub.dropNextTransfers(1, 1000);
    hub.ignoreRange(true);
    const file = await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    expect(await readFile(file.path)).toEqual(rocodeTest);
    expect(file.sha256).toBe(sha(rocodeTest));
  });

  it('deletes a download whose sha256 does not match the LFS etag', async () => {
    const tampered = Buffer.from(rocodeTest);
    tampered[10] = 0x21;
    hub.corrupt('cosmadrian/rocode', 'rocode_test.jsonl', tampered);
    try {
      await expect(downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts)).rejects.toThrow(/checksum mismatch/);
      const dest = hubCachePath(cacheDir, { repo: 'cosmadrian/rocode', path: 'rocode_test.jsonl', revision: 'main' });
      await expect(access(dest)).rejects.toThrow();
      await expect(access(`${dest}.incomplete`)).rejects.toThrow();
    } finally {
      hub.corrupt('cosmadrian/rocode', 'rocode_test.jsonl', rocodeTest);
    }
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dest = hubCachePath(cacheDir, { repo: 'cosmadrian/rocode', path: 'rocode_test.jsonl', revision: 'main' });
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(`${dest}.lock`, String(gone));
    const file = await downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts);
    expect(file.sha256).toBe(sha(rocodeTest));
    await expect(access(`${dest}.lock`)).rejects.toThrow();
  });

  it('waits while a live process holds the lock', async () => {
    const dest = hubCachePath(cacheDir, { repo: 'cosmadrian/rocode', path: 'rocode_test.jsonl', revision: 'main' });
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(`${dest}.lock`, String(process.pid));
    let done = false;
    const download = downloadHubFile('cosmadrian/rocode', 'rocode_test.jsonl', opts).then((f) => {
      done = true;
      return f;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(done).toBe(false);
    expect(hub.requests.length).toBe(0);
    await rm(`${dest}.lock`);
    expect((await download).sha256).toBe(sha(rocodeTest));
  });

  it('downloads a small (non-LFS) file directly', async () => {
    const file = await downloadHubFile('cosmadrian/rocode', 'rocode_train.jsonl', opts);
    expect(await readFile(file.path, 'utf8')).toBe('{"id":7,"name":"antrenare"}\n');
    expect(hub.requests.map((r) => r.url)).toEqual(['/datasets/cosmadrian/rocode/resolve/main/rocode_train.jsonl']);
  });

  it('reports a missing file as bad input naming the ref', async () => {
    await expect(downloadHubFile('cosmadrian/rocode', 'nope.jsonl', opts)).rejects.toThrow(/hf:\/\/datasets\/cosmadrian\/rocode\/nope\.jsonl.*HTTP 404/);
  });
});

describe('reading hf:// refs', () => {
  it('reads rows of a cached Hub file, with the LFS sha256 as content hash', async () => {
    const source = await openRows('hf://datasets/cosmadrian/rocode/rocode_test.jsonl', opts);
    let count = 0;
    for await (const { row, file } of source.rows()) {
      expect(file).toBe('hf://datasets/cosmadrian/rocode/rocode_test.jsonl');
      expect(row.name).toBe(`problema${count}`);
      count += 1;
    }
    expect(count).toBe(60);
    expect(await source.sha256()).toBe(sha(rocodeTest));
  });

  it('reads a gzip file at a pinned revision', async () => {
    const source = await openRows('hf://datasets/cosmadrian/rocode/rocode_val.jsonl.gz@0123abc', opts);
    const rows = [];
    for await (const r of source.rows()) rows.push(r.row);
    expect(rows).toEqual([{ id: 1, name: 'val' }]);
    expect(hub.requests[0]?.url).toBe('/datasets/cosmadrian/rocode/resolve/0123abc/rocode_val.jsonl.gz');
  });
});

describe('named datasets', () => {
  it('resolves RoCode to its split files in train, validation, test order', async () => {
    const files = await resolveNamedDatasetFiles('rocode', opts);
    expect(files.map((f) => [f.path, f.split])).toEqual([
      ['rocode_train.jsonl', 'train'],
      ['rocode_val.jsonl.gz', 'validation'],
      ['rocode_test.jsonl', 'test'],
    ]);
    expect(await resolveNamedDataset('rocode', opts)).toEqual(files.map((f) => f.ref));
  });

  it('follows a script-only repository to the data URL its loading script names', async () => {
    // A loading script in the style of the real repository: it names its CSV by URL.
    const script = `_URLS = {\n    "abs": "${hub.endpoint}/raw/dataset_it.csv"\n}\n`;
    const local = await startFakeHub({
      repos: {
        'gpucce/abricot': [
          { path: '.gitattributes', content: '' },
          { path: 'abricot.py', content: script },
        ],
      },
    });
    try {
      const refs = await resolveNamedDataset('abricot', { cacheDir, env: { HF_ENDPOINT: local.endpoint } });
      expect(refs).toEqual([`${hub.endpoint}/raw/dataset_it.csv`]);
      const source = await openRows(refs[0] as string, { cacheDir });
      const rows = [];
      for await (const r of source.rows()) rows.push(r.row);
      expect(rows).toEqual([{ id: '1', target_token: 'casa', text: 'La casa è grande.', abs_mean: '0.2' }]);
      expect(hub.requests.filter((r) => r.url === '/raw/dataset_it.csv').every((r) => r.authorization === undefined)).toBe(true);
    } finally {
      await local.close();
    }
  });
});
