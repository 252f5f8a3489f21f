/**
 * Developer tool: proves the bundled code suites are sound, independently of the product's
 * sandbox. It compiles and runs every reference solution of sample/rocode (C, C++, Python)
 * against every test, every Kotlin canonical solution of sample/kotlin-humaneval, and replays
 * sample/replay/*-mixed.jsonl against their expected-*.json verdicts and metrics.
 *
 *   npx tsx scripts/verify-samples.ts [--skip-kotlin] [--skip-replay]
 *
 * Exits 1 on any failure. No isolation: only run it on the bundled, hand-written files.
 * It is longer than our usual file budget because a single self-contained script is easier to
 * run and read than a folder of helpers that nothing else imports.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const KOTLINC = join(ROOT, 'node_modules/kotlin-compiler/bin/kotlinc');
const STDLIB = join(ROOT, 'node_modules/kotlin-compiler/lib/kotlin-stdlib.jar');
/** The machine is shared: references get generous wall time, and only overruns of it fail. */
const SLACK = 3;

interface IoTestRow {
  input: string;
  output: string;
}
interface RocodeRow {
  task_id: string;
  name: string;
  tests: IoTestRow[];
  time_limit_ms: number;
  checker: null | { kind: 'float'; abs?: number; rel?: number } | { kind: 'program'; language: string; source: string };
  solutions: Record<string, string>;
}
interface KotlinRow {
  task_id: string;
  prompt: string;
  test: string;
  canonical_solution: string;
}
interface ReplayRow {
  task_id: string;
  completion: string;
  language?: string;
  sample?: number;
}
interface Outcome {
  verdict: string;
  passed: number;
  total: number;
  detail: string;
}

const failures: string[] = [];
const fail = (msg: string): void => {
  failures.push(msg);
  console.log(`  FAIL ${msg}`);
};

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

function run(cmd: string, args: string[], opts: { cwd: string; input?: string; timeoutMs: number }) {
  const started = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    timeout: opts.timeoutMs,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const timedOut = r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut, ms: Date.now() - started };
}

// ---------------------------------------------------------------- io-tests

/** Compiles `source` in `dir`; returns the command to run it, or the compiler's complaint. */
function build(language: string, source: string, dir: string): { cmd: string[] } | { error: string } {
  const compilers: Record<string, [string, string, string[]]> = {
    c: ['main.c', 'gcc', ['-O2', '-std=gnu11', '-o', 'prog', 'main.c', '-lm']],
    cpp: ['main.cpp', 'g++', ['-O2', '-std=gnu++17', '-o', 'prog', 'main.cpp']],
  };
  if (language === 'python') {
    writeFileSync(join(dir, 'main.py'), source);
    const r = run('python3', ['-m', 'py_compile', 'main.py'], { cwd: dir, timeoutMs: 60_000 });
    return r.status === 0 ? { cmd: ['python3', '-I', join(dir, 'main.py')] } : { error: r.stderr.slice(0, 300) };
  }
  const spec = compilers[language];
  if (spec === undefined) return { error: `no compiler for ${language}` };
  writeFileSync(join(dir, spec[0]), source);
  const r = run(spec[1], spec[2], { cwd: dir, timeoutMs: 120_000 });
  return r.status === 0 ? { cmd: [join(dir, 'prog')] } : { error: r.stderr.slice(0, 300) };
}

function floatsMatch(expected: string, actual: string, abs: number, rel: number): boolean {
  const e = expected.split(/\s+/).filter(Boolean);
  const a = actual.split(/\s+/).filter(Boolean);
  if (e.length !== a.length) return false;
  return e.every((tok, i) => {
    const x = Number(tok),
      y = Number(a[i]);
    if (Number.isNaN(x) || Number.isNaN(y)) return tok === a[i];
    return Math.abs(x - y) <= Math.max(abs, rel * Math.abs(x));
  });
}

function accepted(task: RocodeRow, test: IoTestRow, actual: string, dir: string): boolean {
  const checker = task.checker;
  if (checker === null) {
    return test.output.split(/\s+/).filter(Boolean).join(' ') === actual.split(/\s+/).filter(Boolean).join(' ');
  }
  if (checker.kind === 'float') return floatsMatch(test.output, actual, checker.abs ?? 0, checker.rel ?? 0);
  const files = ['checker.py', 'input.txt', 'expected.txt', 'actual.txt'];
  [checker.source, test.input, test.output, actual].forEach((text, i) => writeFileSync(join(dir, files[i] ?? ''), text));
  return run('python3', files, { cwd: dir, timeoutMs: 30_000 }).status === 0;
}

/** Runs one program on every test the way the harness does (file and stdin in, file or stdout out). */
function judge(task: RocodeRow, language: string, source: string, timeoutMs: number): Outcome {
  const base = mkdtempSync(join(tmpdir(), 'polyeval-verify-'));
  try {
    const built = build(language, source, base);
    if ('error' in built) return { verdict: 'CE', passed: 0, total: task.tests.length, detail: built.error };
    let passed = 0,
      verdict = 'OK',
      detail = '';
    task.tests.forEach((test, i) => {
      const work = mkdtempSync(join(base, 'run-'));
      writeFileSync(join(work, `${task.name}.in`), test.input);
      const [cmd = '', ...args] = built.cmd;
      const r = run(cmd, args, { cwd: work, input: test.input, timeoutMs });
      const outFile = join(work, `${task.name}.out`);
      const actual = existsSync(outFile) ? readFileSync(outFile, 'utf8') : r.stdout;
      let v: string;
      if (r.timedOut) v = 'TLE';
      else if (r.status !== 0) v = 'RE';
      else v = accepted(task, test, actual, work) ? 'OK' : 'WA';
      if (v === 'OK') passed++;
      else if (verdict === 'OK') {
        verdict = v;
        detail = `test ${i}: ${v} ${r.stderr.slice(0, 120)}`;
      }
    });
    return { verdict, passed, total: task.tests.length, detail };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function verifyRocode(tasks: RocodeRow[]): void {
  console.log(`rocode: ${tasks.length} tasks`);
  for (const task of tasks) {
    for (const language of ['c', 'cpp', 'python']) {
      const source = task.solutions[language];
      if (source === undefined) {
        fail(`${task.task_id} has no ${language} solution`);
        continue;
      }
      const o = judge(task, language, source, task.time_limit_ms * SLACK);
      const line = `${task.task_id} [${language}] ${o.verdict} ${o.passed}/${o.total}`;
      if (o.verdict === 'OK') console.log(`  ok   ${line}`);
      else fail(`${line} ${o.detail}`);
    }
  }
}

// ---------------------------------------------------------------- metrics of a replay

interface ExpectedItem {
  task_id: string;
  sample: number;
  verdict: string;
  tests_passed?: number;
  tests_total?: number;
  passed?: boolean;
}
interface Expected {
  task_ids: string[];
  items: ExpectedItem[];
  metrics: Record<string, number>;
}

/** Gives every replay row its sample index: explicit, else its order among its task's rows. */
function indexSamples(rows: ReplayRow[]): (ReplayRow & { sample: number })[] {
  const seen = new Map<string, number>();
  return rows.map((r) => {
    const k = seen.get(r.task_id) ?? 0;
    seen.set(r.task_id, k + 1);
    return { ...r, sample: r.sample ?? k };
  });
}

function metricsOf(items: { task_id: string; verdict: string; fraction: number }[]): Record<string, number> {
  const byTask = new Map<string, { verdict: string; fraction: number }[]>();
  for (const it of items) byTask.set(it.task_id, [...(byTask.get(it.task_id) ?? []), it]);
  const groups = [...byTask.values()];
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    accuracy: mean(groups.map((g) => Math.max(...g.map((s) => s.fraction)))),
    // The task's best sample passes every test (pass@1 is the mean over samples instead).
    strict_accuracy: mean(groups.map((g) => (g.some((s) => s.verdict === 'OK') ? 1 : 0))),
    'pass@1': mean(groups.map((g) => g.filter((s) => s.verdict === 'OK').length / g.length)), // 1 - C(n-c,1)/C(n,1) = c/n per task
    compile_error_rate: items.filter((s) => s.verdict === 'CE').length / items.length,
  };
}

function compareExpected(label: string, expected: Expected, observed: (ExpectedItem & { fraction: number })[]): void {
  const tasks = [...new Set(observed.map((o) => o.task_id))].sort();
  if (JSON.stringify(tasks) !== JSON.stringify([...expected.task_ids].sort())) fail(`${label}: task_ids differ: ${tasks.join(',')}`);
  for (const o of observed) {
    const e = expected.items.find((x) => x.task_id === o.task_id && x.sample === o.sample);
    const line = `${o.task_id}#${o.sample} ${o.verdict}${o.tests_passed === undefined ? '' : ` ${o.tests_passed}/${o.tests_total}`}`;
    if (e === undefined) {
      fail(`${label}: no expected item for ${line}`);
      continue;
    }
    const same = e.verdict === o.verdict && (e.tests_passed === undefined || e.tests_passed === o.tests_passed);
    if (same) console.log(`  ok   ${line}`);
    else fail(`${label}: ${line}, expected ${e.verdict} ${e.tests_passed ?? ''}`);
  }
  const m = metricsOf(observed);
  for (const [k, v] of Object.entries(expected.metrics)) {
    const got = m[k];
    if (got === undefined || Math.abs(got - v) > 1e-9) fail(`${label}: metric ${k} = ${got}, expected ${v}`);
    else console.log(`  ok   ${label} ${k} = ${v}`);
  }
}

function verifyRocodeReplay(tasks: RocodeRow[]): void {
  console.log('replay: rocode-mixed.jsonl');
  const rows = indexSamples(readJsonl<ReplayRow>(join(ROOT, 'sample/replay/rocode-mixed.jsonl')));
  const expected = JSON.parse(readFileSync(join(ROOT, 'sample/replay/expected-rocode-mixed.json'), 'utf8')) as Expected;
  const observed = rows.map((r) => {
    const task = tasks.find((t) => t.task_id === r.task_id);
    if (task === undefined) throw new Error(`unknown task ${r.task_id}`);
    // Replays are judged at the task's own limit (x2 for the shared machine): a TLE must be a real one.
    const o = judge(task, r.language ?? 'python', r.completion, task.time_limit_ms * 2);
    return { task_id: r.task_id, sample: r.sample, verdict: o.verdict, tests_passed: o.passed, tests_total: o.total, fraction: o.passed / o.total };
  });
  compareExpected('rocode-mixed', expected, observed);
}

// ---------------------------------------------------------------- Kotlin (MXEval)

const DONE = `POLYEVAL_DONE_${process.pid}_${Date.now()}`;

/** prompt + completion + test, in its own package, printing a token after the last assertion. */
function kotlinProgram(pkg: string, row: KotlinRow, completion: string): string {
  const test = row.test.replace(/\}\s*$/, `    println("${DONE}")\n}\n`);
  return `package ${pkg}\n\n${row.prompt}${completion}\n${test}`;
}

/** Compiles every file in one kotlinc call; files named in errors are left out and the rest recompiled. */
function compileKotlin(dir: string, files: string[], out: string): Set<string> {
  const broken = new Set<string>();
  for (let attempt = 0; attempt < 2; attempt++) {
    const todo = files.filter((f) => !broken.has(f));
    if (todo.length === 0) break;
    const r = run(KOTLINC, ['-nowarn', '-d', out, ...todo], { cwd: dir, timeoutMs: 600_000 });
    if (r.status === 0) return broken;
    for (const f of todo) if (r.stderr.includes(`${f}:`)) broken.add(f);
    if (attempt === 1 || broken.size === 0) throw new Error(`kotlinc failed:\n${r.stderr.slice(0, 2000)}`);
  }
  return broken;
}

function verifyKotlin(rows: KotlinRow[], withReplay: boolean): void {
  console.log(`kotlin: ${rows.length} tasks (one kotlinc call, ~10-60 s)`);
  const dir = mkdtempSync(join(tmpdir(), 'polyeval-kt-'));
  try {
    const programs: { file: string; pkg: string; label: string; replay?: ReplayRow & { sample: number } }[] = [];
    rows.forEach((row, i) => {
      programs.push({ file: `Ref${i}.kt`, pkg: `ref${i}`, label: `${row.task_id} [canonical]` });
      writeFileSync(join(dir, `Ref${i}.kt`), kotlinProgram(`ref${i}`, row, row.canonical_solution));
    });
    const replays = withReplay ? indexSamples(readJsonl<ReplayRow>(join(ROOT, 'sample/replay/kotlin-mixed.jsonl'))) : [];
    replays.forEach((r, i) => {
      const row = rows.find((x) => x.task_id === r.task_id);
      if (row === undefined) throw new Error(`unknown task ${r.task_id}`);
      programs.push({ file: `Rep${i}.kt`, pkg: `rep${i}`, label: `${r.task_id}#${r.sample} [replay]`, replay: r });
      writeFileSync(join(dir, `Rep${i}.kt`), kotlinProgram(`rep${i}`, row, r.completion));
    });
    const out = join(dir, 'out');
    mkdirSync(out);
    const broken = compileKotlin(
      dir,
      programs.map((p) => p.file),
      out,
    );
    const observed: (ExpectedItem & { fraction: number })[] = [];
    for (const p of programs) {
      let verdict: string;
      if (broken.has(p.file)) verdict = 'CE';
      else {
        const cls = `${p.pkg}.${p.file.replace(/\.kt$/, '')}Kt`;
        const r = run('java', ['-cp', `${out}:${STDLIB}`, cls], { cwd: dir, timeoutMs: 60_000 });
        if (r.timedOut) verdict = 'TLE';
        else if (r.status === 0 && r.stdout.includes(DONE)) verdict = 'OK';
        else verdict = r.status === 0 ? 'WA' : 'RE'; // exit 0 without the token: it left early
      }
      if (p.replay !== undefined) {
        observed.push({ task_id: p.replay.task_id, sample: p.replay.sample, verdict, passed: verdict === 'OK', fraction: verdict === 'OK' ? 1 : 0 });
      } else if (verdict === 'OK') console.log(`  ok   ${p.label}`);
      else fail(`${p.label} ${verdict}`);
    }
    if (withReplay) {
      console.log('replay: kotlin-mixed.jsonl');
      const expected = JSON.parse(readFileSync(join(ROOT, 'sample/replay/expected-kotlin-mixed.json'), 'utf8')) as Expected;
      // The unit-tests scorer may name a thrown assertion RE or WA; what must match is pass/fail and CE.
      const norm = (v: string): string => (v === 'OK' || v === 'CE' ? v : 'FAIL');
      compareExpected(
        'kotlin-mixed',
        { ...expected, items: expected.items.map((e) => ({ ...e, verdict: norm(e.verdict) })) },
        observed.map((o) => ({ ...o, verdict: norm(o.verdict) })),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main

const argv = new Set(process.argv.slice(2));
const rocode = readJsonl<RocodeRow>(join(ROOT, 'sample/rocode/tasks.jsonl'));
verifyRocode(rocode);
if (!argv.has('--skip-replay')) verifyRocodeReplay(rocode);
if (!argv.has('--skip-kotlin')) verifyKotlin(readJsonl<KotlinRow>(join(ROOT, 'sample/kotlin-humaneval/tasks.jsonl')), !argv.has('--skip-replay'));
console.log(failures.length === 0 ? 'all samples verified' : `${failures.length} failure(s)`);
process.exitCode = failures.length === 0 ? 0 : 1;
