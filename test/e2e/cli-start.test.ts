// The CLI's start loads only what every command needs: the AWS SDK, Smithy and DuckDB are
// imported where they are used (a model call, an S3 read, a signed request, a query), so
// `polyeval --help` or a local run with `replay:` never pays for loading them. The same for
// llama.cpp (node-llama-cpp): only a `gguf:` model imports it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'polyeval.mjs');
const LAZY = /^(@aws-sdk\/|@smithy\/|@aws-crypto\/|@duckdb\/|node-llama-cpp$|@node-llama-cpp\/)/u;

/** The packages the bundle imports statically (loaded before any of its code runs). */
function staticImports(bundle: string): string[] {
  return [...bundle.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$/gmu)].map((m) => m[1] as string);
}

describe('the CLI bundle', () => {
  it('imports no AWS SDK, Smithy, DuckDB or llama.cpp module at start', () => {
    const imports = staticImports(readFileSync(CLI, 'utf8'));
    expect(imports).toContain('commander'); // the scan sees the bundle's static imports
    expect(imports.filter((m) => LAZY.test(m))).toEqual([]);
  });

  it('carries the Parquet writer inside (hyparquet, hyparquet-writer: ~55 modules at every start otherwise)', () => {
    const imports = staticImports(readFileSync(CLI, 'utf8'));
    expect(imports.filter((m) => m.startsWith('hyparquet'))).toEqual([]);
    expect(readFileSync(CLI, 'utf8')).toContain('function parquetWriteBuffer(');
  });

  it('still loads them where they are used', () => {
    const bundle = readFileSync(CLI, 'utf8');
    for (const m of [
      '@aws-sdk/client-bedrock-runtime',
      '@aws-sdk/client-sagemaker-runtime',
      '@aws-sdk/client-s3',
      '@duckdb/node-api',
      '@smithy/node-http-handler',
      'node-llama-cpp',
    ]) {
      expect(bundle).toContain(`import("${m}")`);
    }
  });
});
