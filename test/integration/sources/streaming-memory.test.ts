/**
 * Reading a large gzip JSONL keeps memory flat: the retained heap (measured after forced
 * garbage collections) grows far less than the file's size, so the file is never held whole.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRows } from '../../../layers/sources/index.ts';

const ROWS = 28_000;
const MB = 1024 * 1024;
let dir: string;
let path: string;
let plainBytes = 0;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function* lines(): Generator<string> {
  for (let i = 0; i < ROWS; i += 1) {
    // ~2 KB per row, varied enough that gzip cannot shrink it to nothing.
    const tests = Array.from({ length: 20 }, (_, t) => ({ input: `${i * 31 + t} ${(i * 7919 + t * 104729) % 1000003}`, output: `${(i * t) % 9973}` }));
    const line = `${JSON.stringify({ task_id: `p${i}`, statement: `Problema ${i}: ${'se dă un șir de numere '.repeat(40)}`, tests })}\n`;
    plainBytes += Buffer.byteLength(line);
    yield line;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'polyeval-stream-'));
  path = join(dir, 'big.jsonl.gz');
  await pipeline(Readable.from(lines()), createGzip({ level: 1 }), createWriteStream(path));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('streaming', () => {
  it('reads a ~50 MB gzip JSONL with a small, flat heap', async () => {
    expect(plainBytes).toBeGreaterThan(45 * MB);
    expect((await stat(path)).size).toBeGreaterThan(0);
    const source = await openRows(path, { cacheDir: dir });
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    for await (const { row, line } of source.rows()) {
      count += 1;
      expect(line).toBe(count);
      if (count % 2_000 === 0) {
        expect(row.task_id).toBe(`p${count - 1}`);
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
      }
    }
    expect(count).toBe(ROWS);
    // Holding the file (or its rows) would retain well over 50 MB; a stream retains a few chunks.
    expect(peak).toBeLessThan(16 * MB);
  });
});
