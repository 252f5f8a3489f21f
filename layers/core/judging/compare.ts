/**
 * Pure verdict logic shared by the execution scorers (DESIGN §6–7): output comparison,
 * how a finished run becomes a test verdict, and how test verdicts become a sample verdict.
 */
import { z } from 'zod';
import type { TestOutcome, Verdict } from '../types.ts';

/** Float tolerance: a pair of numbers matches when within `abs` OR within `rel` of the expected. */
export interface FloatTolerance {
  abs?: number;
  rel?: number;
}

/** Result of comparing an expected output with an actual one. */
export interface Comparison {
  equal: boolean;
  /** Where they first differ (for the record's detail field). */
  detail?: string;
  /**
   * Character offsets of the first difference in each text (the first differing token, or
   * the end of the shorter token list), so a report can mark it.
   */
  at?: { expected: number; actual: number };
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/u;

function tokensMatch(expected: string, actual: string, tolerance?: FloatTolerance): boolean {
  if (expected === actual) return true;
  if (!tolerance || !NUMBER.test(expected) || !NUMBER.test(actual)) return false;
  const e = Number(expected);
  const a = Number(actual);
  const diff = Math.abs(e - a);
  if (tolerance.abs !== undefined && diff <= tolerance.abs) return true;
  if (tolerance.rel !== undefined && diff <= tolerance.rel * Math.abs(e)) return true;
  return false;
}

function clip(token: string): string {
  return token.length > 40 ? `${token.slice(0, 40)}…` : token;
}

/**
 * Compares token by token, ignoring the amount of whitespace (and trailing newlines).
 * With a tolerance, numeric tokens match within it; other tokens must be identical.
 * @example
 * compareOutputs('1 2\n', '1   2') // { equal: true }
 * compareOutputs('0.5', '0.5000001', { abs: 1e-6 }) // { equal: true }
 */
export function compareOutputs(expected: string, actual: string, tolerance?: FloatTolerance): Comparison {
  const want = tokenSpans(expected);
  const got = tokenSpans(actual);
  const n = Math.min(want.length, got.length);
  for (let i = 0; i < n; i++) {
    const w = want[i] as TokenSpan;
    const g = got[i] as TokenSpan;
    if (!tokensMatch(w.text, g.text, tolerance)) {
      return { equal: false, detail: `token ${i + 1}: expected "${clip(w.text)}", got "${clip(g.text)}"`, at: { expected: w.start, actual: g.start } };
    }
  }
  if (want.length !== got.length) {
    const offset = (spans: TokenSpan[], text: string): number => spans[n]?.start ?? text.trimEnd().length;
    return { equal: false, detail: `expected ${want.length} tokens, got ${got.length}`, at: { expected: offset(want, expected), actual: offset(got, actual) } };
  }
  return { equal: true };
}

interface TokenSpan {
  text: string;
  start: number;
}

/** The whitespace-separated tokens of a text with where each starts. */
function tokenSpans(text: string): TokenSpan[] {
  return Array.from(text.matchAll(/\S+/gu), (m) => ({ text: m[0], start: m.index }));
}

/** How a sandboxed run ended, as classified by the sandbox (a runner's answer carries it too). */
export const TerminationSchema = z.enum(['exited', 'signaled', 'time', 'memory', 'output']);
export type Termination = z.infer<typeof TerminationSchema>;

/** The facts of one finished run that decide its verdict. */
export interface RunFacts {
  termination: Termination;
  exitCode: number | null;
  signal: string | null;
}

/**
 * The verdict a run earns before its output is looked at: undefined when it exited 0
 * (the output decides), otherwise TLE / MLE / OLE / RE with a detail naming the cause.
 */
export function runVerdict(run: RunFacts): { verdict: Verdict; detail: string } | undefined {
  switch (run.termination) {
    case 'time':
      return { verdict: 'TLE', detail: 'time limit exceeded' };
    case 'memory':
      return { verdict: 'MLE', detail: 'memory limit exceeded' };
    case 'output':
      return { verdict: 'OLE', detail: 'output limit exceeded' };
    case 'signaled':
      return { verdict: 'RE', detail: `killed by signal ${run.signal ?? 'unknown'}` };
    case 'exited':
      return run.exitCode === 0 ? undefined : { verdict: 'RE', detail: `exit code ${run.exitCode ?? 'unknown'}` };
    default: {
      const never: never = run.termination;
      throw new Error(`unknown termination ${String(never)}`);
    }
  }
}

/**
 * A sample's verdict (DESIGN §7): OK when every test is OK, otherwise the verdict of the
 * first failing test in test order. (CE is decided before any test runs.) A sample with
 * no tests is OK only vacuously, so it is reported as WA: a task without tests cannot pass.
 */
export function sampleVerdict(tests: readonly Pick<TestOutcome, 'verdict'>[]): Verdict {
  if (tests.length === 0) return 'WA';
  const failing = tests.find((t) => t.verdict !== 'OK');
  return failing ? failing.verdict : 'OK';
}

/**
 * Unit-test verdict: passes only when the program exited 0 AND printed the per-execution
 * token that the harness appended after the test's last statement — so a program that
 * exits 0 early (sys.exit(0), exitProcess(0), …) fails with WA.
 */
export function unitTestVerdict(run: RunFacts & { stdout: string }, token: string): { verdict: Verdict; detail?: string } {
  const failed = runVerdict(run);
  if (failed) return failed;
  if (!run.stdout.includes(token)) return { verdict: 'WA', detail: 'exited before the end of the test' };
  return { verdict: 'OK' };
}

/** The first `maxLines` lines of compiler output, for the record's `error` field. */
export function headLines(text: string, maxLines = 10, maxChars = 2000): string {
  const lines = text.split('\n').slice(0, maxLines).join('\n');
  return lines.length > maxChars ? `${lines.slice(0, maxChars)}…` : lines;
}
