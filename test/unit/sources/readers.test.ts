import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../layers/core/errors.ts';
import { openRows, type SourceRow } from '../../../layers/sources/index.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/sources/', import.meta.url));
const fixture = (name: string): string => join(fixtures, name);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'polyeval-readers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(ref: string): Promise<SourceRow[]> {
  const source = await openRows(ref, { cacheDir: join(dir, 'cache') });
  const rows: SourceRow[] = [];
  for await (const row of source.rows()) rows.push(row);
  return rows;
}

async function readError(ref: string): Promise<InputError> {
  try {
    await readAll(ref);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`reading ${ref} did not fail`);
}

describe('JSON Lines', () => {
  it('yields each object with its line number and skips blank lines', async () => {
    const rows = await readAll(fixture('tasks.jsonl'));
    expect(rows.map((r) => [r.row.task_id, r.line])).toEqual([
      ['suma', 1],
      ['maxim', 3],
      ['sir', 4],
    ]);
    expect(rows[2]?.row.statement).toBe('Un șir de "paranteze".');
    expect(rows[0]?.file).toBe(fixture('tasks.jsonl'));
  });

  it('names the file and line of a malformed line', async () => {
    const err = await readError(fixture('bad-json.jsonl'));
    expect(err.location).toEqual({ file: fixture('bad-json.jsonl'), line: 3 });
    expect(err.message).toContain('bad-json.jsonl, line 3');
  });

  it('rejects a line that is not a JSON object', async () => {
    const err = await readError(fixture('not-object.jsonl'));
    expect(err.location.line).toBe(2);
    expect(err.message).toContain('an array');
  });

  it('reads a gzip file the same as the plain one', async () => {
    const gz = join(dir, 'tasks.jsonl.gz');
    await writeFile(gz, gzipSync(await readFile(fixture('tasks.jsonl'))));
    const rows = await readAll(gz);
    expect(rows.map((r) => r.row)).toEqual((await readAll(fixture('tasks.jsonl'))).map((r) => r.row));
  });

  it('reports a corrupt gzip file by name', async () => {
    const gz = join(dir, 'broken.jsonl.gz');
    const good = gzipSync(Buffer.from('{"a":1}\n'.repeat(1000)));
    await writeFile(gz, Buffer.concat([good.subarray(0, 20), Buffer.alloc(40, 7)]));
    const err = await readError(gz);
    expect(err.location.file).toBe(gz);
    expect(err.message).toMatch(/gzip|cannot read/);
  });
});

describe('CSV and TSV', () => {
  it('parses quoted fields with commas, doubled quotes and line breaks, after a BOM', async () => {
    const rows = await readAll(fixture('likert.csv'));
    expect(rows.map((r) => r.row)).toEqual([
      { id: '1', target_token: 'casa', text: 'La casa, vicino al mare, era "bella".', abs_mean: '0.25' },
      { id: '2', target_token: 'cane', text: 'Il cane\ncorre nel parco.', abs_mean: '0.1' },
      { id: '3', target_token: 'idea', text: "Un'idea semplice", abs_mean: '0.9' },
    ]);
    expect(rows.map((r) => r.line)).toEqual([2, 3, 6]);
  });

  it('keeps bare quotes inside unquoted TSV fields', async () => {
    const rows = await readAll(fixture('likert.tsv'));
    expect(rows[1]?.row).toEqual({ id: '2', target_token: 'libro', text: 'Ho letto "il libro" ieri.', inc_mean: '0.75' });
  });

  it('names the line whose field count differs from the header', async () => {
    const err = await readError(fixture('wrong-count.csv'));
    expect(err.location).toEqual({ file: fixture('wrong-count.csv'), line: 4 });
    expect(err.message).toContain('expected 3 fields');
  });

  it('names the line where an unterminated quoted field starts', async () => {
    const err = await readError(fixture('unterminated.csv'));
    expect(err.location).toMatchObject({ file: fixture('unterminated.csv'), line: 2, field: 'column 2' });
  });

  it('reads a gzip CSV', async () => {
    const gz = join(dir, 'likert.csv.gz');
    await writeFile(gz, gzipSync(await readFile(fixture('likert.csv'))));
    expect((await readAll(gz)).map((r) => r.row.target_token)).toEqual(['casa', 'cane', 'idea']);
  });
});

describe('parquet', () => {
  const columnData = [
    { name: 'task_id', data: ['Kotlin/0', 'Kotlin/1', 'Kotlin/2'], type: 'STRING' as const },
    { name: 'prompt', data: ['fun a(): Int {', 'fun b(): Int {', 'fun c(): Int {'], type: 'STRING' as const },
    { name: 'attempts', data: [1n, 2n, 3n], type: 'INT64' as const },
  ];

  it('reads rows across row groups with 1-based row numbers and plain numbers', async () => {
    const path = join(dir, 'train.parquet');
    await writeFile(path, Buffer.from(parquetWriteBuffer({ columnData, rowGroupSize: 2 })));
    const rows = await readAll(path);
    expect(rows.map((r) => r.row)).toEqual([
      { task_id: 'Kotlin/0', prompt: 'fun a(): Int {', attempts: 1 },
      { task_id: 'Kotlin/1', prompt: 'fun b(): Int {', attempts: 2 },
      { task_id: 'Kotlin/2', prompt: 'fun c(): Int {', attempts: 3 },
    ]);
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3]);
  });

  it('reads a gzip parquet file', async () => {
    const path = join(dir, 'train.parquet.gz');
    await writeFile(path, gzipSync(Buffer.from(parquetWriteBuffer({ columnData }))));
    expect((await readAll(path)).map((r) => r.row.task_id)).toEqual(['Kotlin/0', 'Kotlin/1', 'Kotlin/2']);
  });

  it('reports a file that is not parquet by name', async () => {
    const path = join(dir, 'fake.parquet');
    await writeFile(path, 'not parquet at all');
    const err = await readError(path);
    expect(err.location.file).toBe(path);
  });
});

describe('opening', () => {
  it('names the path of a missing file when opened', async () => {
    const missing = join(dir, 'nope.jsonl');
    await expect(openRows(missing, { cacheDir: dir })).rejects.toMatchObject({ name: 'InputError', location: { file: missing } });
  });

  it('rejects an unknown extension', async () => {
    await expect(openRows(join(dir, 'data.xlsx'), { cacheDir: dir })).rejects.toThrow(/unknown dataset format/);
  });

  it('hashes the stored bytes of a file', async () => {
    const source = await openRows(fixture('likert.tsv'), { cacheDir: dir });
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256')
      .update(await readFile(fixture('likert.tsv')))
      .digest('hex');
    expect(source.format).toBe('tsv');
    expect(await source.sha256()).toBe(expected);
  });
});
