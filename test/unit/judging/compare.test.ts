import { describe, expect, it } from 'vitest';
import { compareOutputs, headLines, runVerdict, sampleVerdict, unitTestVerdict } from '#core/judging/compare.ts';

describe('compareOutputs', () => {
  it('ignores the amount of whitespace and trailing newlines', () => {
    expect(compareOutputs('1 2\n3\n', '1   2 3').equal).toBe(true);
    expect(compareOutputs('1 2\n', '1\t2\n\n\n').equal).toBe(true);
  });

  it('reports the first differing token', () => {
    const r = compareOutputs('1 2 3', '1 5 3');
    expect(r.equal).toBe(false);
    expect(r.detail).toContain('token 2');
  });

  it('rejects missing and extra tokens', () => {
    expect(compareOutputs('1 2', '1').equal).toBe(false);
    expect(compareOutputs('1', '1 2').equal).toBe(false);
  });

  it('accepts numbers within an absolute or relative tolerance only when one is given', () => {
    expect(compareOutputs('0.5', '0.5000001').equal).toBe(false);
    expect(compareOutputs('0.5', '0.5000001', { abs: 1e-6 }).equal).toBe(true);
    expect(compareOutputs('1000000', '1000001', { rel: 1e-5 }).equal).toBe(true);
    expect(compareOutputs('1000000', '1000100', { rel: 1e-5 }).equal).toBe(false);
  });

  it('never applies the tolerance to words', () => {
    expect(compareOutputs('da', 'nu', { abs: 100 }).equal).toBe(false);
  });

  it('treats empty and whitespace-only outputs as no tokens', () => {
    expect(compareOutputs('', '\n').equal).toBe(true);
    expect(compareOutputs(' \n\t ', '').equal).toBe(true);
    expect(compareOutputs('', '0').equal).toBe(false);
  });
});

describe('runVerdict', () => {
  it.each([
    ['time', 'TLE'],
    ['memory', 'MLE'],
    ['output', 'OLE'],
    ['signaled', 'RE'],
  ] as const)('maps termination %s to %s', (termination, verdict) => {
    expect(runVerdict({ termination, exitCode: null, signal: 'SIGSEGV' })?.verdict).toBe(verdict);
  });

  it('names the exit code of a failing exit', () => {
    expect(runVerdict({ termination: 'exited', exitCode: 3, signal: null })).toEqual({ verdict: 'RE', detail: 'exit code 3' });
  });

  it('leaves a clean exit to the output comparison', () => {
    expect(runVerdict({ termination: 'exited', exitCode: 0, signal: null })).toBeUndefined();
  });
});

describe('sampleVerdict', () => {
  it('is OK only when every test is OK', () => {
    expect(sampleVerdict([{ verdict: 'OK' }, { verdict: 'OK' }])).toBe('OK');
  });

  it('is the verdict of the first failing test in order', () => {
    expect(sampleVerdict([{ verdict: 'OK' }, { verdict: 'TLE' }, { verdict: 'WA' }])).toBe('TLE');
  });

  it('does not let a task without tests pass', () => {
    expect(sampleVerdict([])).toBe('WA');
  });
});

describe('unitTestVerdict', () => {
  const ok = { termination: 'exited' as const, exitCode: 0, signal: null };

  it('passes when the program exits 0 and printed the token', () => {
    expect(unitTestVerdict({ ...ok, stdout: 'x\nabc123\n' }, 'abc123').verdict).toBe('OK');
  });

  it('fails a program that exits 0 without printing the token', () => {
    expect(unitTestVerdict({ ...ok, stdout: 'all good\n' }, 'abc123').verdict).toBe('WA');
  });

  it('fails a program that printed the token but exited non-zero', () => {
    expect(unitTestVerdict({ termination: 'exited', exitCode: 1, signal: null, stdout: 'abc123' }, 'abc123').verdict).toBe('RE');
  });
});

describe('headLines', () => {
  it('keeps only the first lines', () => {
    expect(headLines('a\nb\nc\nd', 2)).toBe('a\nb');
  });
});
