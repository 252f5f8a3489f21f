import { describe, expect, it } from 'vitest';
import { fileKindOf, formatHubRef, parseHubRef } from '../../../layers/sources/index.ts';

describe('hf:// refs', () => {
  it.each([
    ['hf://datasets/cosmadrian/rocode/rocode_test.jsonl', { repo: 'cosmadrian/rocode', path: 'rocode_test.jsonl', revision: 'main' }],
    [
      'hf://datasets/JetBrains/Kotlin_HumanEval/data/train-00000-of-00001.parquet@v1.0',
      { repo: 'JetBrains/Kotlin_HumanEval', path: 'data/train-00000-of-00001.parquet', revision: 'v1.0' },
    ],
    [
      'hf://datasets/owner/name@refs%2Fconvert%2Fparquet/default/train/0000.parquet',
      { repo: 'owner/name', path: 'default/train/0000.parquet', revision: 'refs/convert/parquet' },
    ],
  ])('parses %s', (ref, expected) => {
    expect(parseHubRef(ref)).toEqual(expected);
  });

  it('formats a ref that parses back to the same file', () => {
    const file = { repo: 'owner/name', path: 'a/b.csv', revision: 'refs/convert/parquet' };
    expect(parseHubRef(formatHubRef(file))).toEqual(file);
    expect(formatHubRef({ ...file, revision: 'main' })).toBe('hf://datasets/owner/name/a/b.csv');
  });

  it.each(['hf://models/owner/name/x.jsonl', 'hf://datasets/owner/x.jsonl', 'hf://datasets/owner/name/../x.jsonl', 'hf://datasets/owner/name/x.jsonl@'])(
    'rejects %s naming the ref',
    (ref) => {
      expect(() => parseHubRef(ref)).toThrow(expect.objectContaining({ name: 'InputError', location: { file: ref } }));
    },
  );
});

describe('file kinds', () => {
  it.each([
    ['a/b.jsonl', 'jsonl', false],
    ['b.NDJSON.gz', 'jsonl', true],
    ['c.csv', 'csv', false],
    ['d.tsv.gz', 'tsv', true],
    ['e.parquet', 'parquet', false],
    ['https://x.test/f.csv?raw=1', 'csv', false],
  ])('detects %s', (name, format, gzip) => {
    expect(fileKindOf(name)).toEqual({ format, gzip });
  });

  it('knows no format for other extensions', () => {
    expect(fileKindOf('abricot.py')).toBeUndefined();
  });
});
