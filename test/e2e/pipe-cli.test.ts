// What a shell user does with a long output: the whole of it as a table, or its first lines
// through `head`. A query of 200,000 rows printed as a table once overflowed the stack (the
// column widths spread every row into Math.max), and a reader closing the pipe early ended the
// CLI with Node's unhandled EPIPE stack.
import { describe, expect, it } from 'vitest';
import { runCli, startCli, tempHome } from '../support/cli.ts';

const ROWS = 200_000;
const SQL = `SELECT range AS n FROM range(${ROWS})`;

describe('long outputs', () => {
  it(`prints a query's ${ROWS.toLocaleString('en')} rows as a table`, async () => {
    const home = tempHome();
    const r = await runCli(['--home', home, 'query', SQL]);
    expect(r.stderr).not.toContain('Maximum call stack');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(ROWS + 2); // header, rule, rows
    expect(lines.at(-1)?.trim()).toBe(String(ROWS - 1));
  }, 120_000);

  it('ends quietly, exit 0, when the reader closes the pipe after the first lines (`| head`)', async () => {
    const home = tempHome();
    const child = startCli(['--home', home, 'query', SQL, '--format', 'csv']);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    let first = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stdout?.once('data', (d: Buffer) => {
        first = d.toString();
        child.stdout?.destroy(); // as head does once it has its lines
      });
      child.on('close', (c) => resolve(c));
    });
    expect(first.split('\n')[0]).toBe('n');
    expect(stderr).not.toMatch(/EPIPE|internal error|Unhandled/);
    expect(code).toBe(0);
  }, 120_000);
});
