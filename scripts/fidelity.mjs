// The fidelity check (CI, after `npm test`): MXEval's own problems with MXEval's own verdicts
// (../shared/fidelity, read where it is, never copied) run through the built CLI, then
// `polyeval agree` on each samples file. Required: 100% agreement on `canonical` and
// `mutant` answers, and every `early_exit` answer failing (MXEval judges by exit code alone
// and wrongly passes the Kotlin and C++ ones: there polyeval must disagree).
//
//   node scripts/fidelity.mjs [--dir <folder>] [--sets mbkp,mbcpp,mbpp] [--home <dir>]
//
// Prints one line per set (agreement per kind, polyeval's wall time, MXEval's) and every
// failed requirement; exits 1 on any, or when the folder is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { dir: { type: 'string' }, sets: { type: 'string' }, home: { type: 'string' } } });
const dir = resolve(root, values.dir ?? '../shared/fidelity');
const sets = (values.sets ?? 'mbkp,mbcpp,mbpp').split(',').filter(Boolean);
const cli = join(root, 'dist', 'polyeval.mjs');

let home;
function cleanup() {
  if (home && !values.home) rmSync(home, { recursive: true, force: true });
}

function fail(message) {
  cleanup();
  process.stderr.write(`\n!!! FIDELITY CHECK FAILED: ${message}\n\n`);
  process.exit(1);
}

if (!existsSync(dir))
  fail(
    `${dir} does not exist. CI always has MXEval's fidelity set there (../shared/fidelity next to the repository); without it polyeval's agreement with MXEval is unchecked.`,
  );
if (!existsSync(cli)) fail(`${cli} is missing: run \`npm run build\` first`);

home = values.home ?? mkdtempSync(join(tmpdir(), 'polyeval-fidelity-'));

function polyeval(args) {
  const r = spawnSync(process.execPath, [cli, '--home', home, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(r, what) {
  try {
    return JSON.parse(r.stdout);
  } catch {
    fail(`${what} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

const problems = [];
for (const set of sets) {
  const problemsFile = join(dir, `${set}.problems.jsonl`);
  const samplesFile = join(dir, `${set}.samples.jsonl`);
  for (const f of [problemsFile, samplesFile]) if (!existsSync(f)) fail(`${f} does not exist`);
  const started = performance.now();
  const run = polyeval(['run', '-b', `mxeval:${problemsFile}`, '-m', `replay:${samplesFile}`, '--json', '-q']);
  const wallS = (performance.now() - started) / 1000;
  if (run.code !== 0) fail(`polyeval run on ${set} exited ${run.code}:\n${run.stderr}`);
  const runId = json(run, `polyeval run on ${set}`).run_id;
  const agreed = polyeval(['agree', runId, samplesFile, '--json']);
  if (agreed.code !== 0) fail(`polyeval agree on ${set} exited ${agreed.code}:\n${agreed.stderr}`);
  const report = json(agreed, `polyeval agree on ${set}`);
  const kind = (k) => report.by_kind.find((s) => s.slice === k);
  for (const k of ['canonical', 'mutant']) {
    const s = kind(k);
    if (!s) problems.push(`${set}: no ${k} samples in ${samplesFile}`);
    else if (s.agree !== s.samples) {
      problems.push(`${set}: ${k} agreement ${s.agree}/${s.samples}`);
      for (const d of report.disagreements.filter((x) => x.kind === k))
        problems.push(
          `  ${d.task_id} #${d.sample}: polyeval ${d.polyeval_verdict}, MXEval ${d.reference_passed ? 'pass' : 'fail'} — ${(d.error ?? '').split('\n')[0]}`,
        );
    }
  }
  const early = kind('early_exit');
  if (!early) problems.push(`${set}: no early_exit samples in ${samplesFile}`);
  else if (early.polyeval_passed !== 0) problems.push(`${set}: ${early.polyeval_passed}/${early.samples} early exits pass (every one must fail)`);
  if (report.missing !== 0) problems.push(`${set}: ${report.missing} samples without a record`);
  const perKind = report.by_kind.map((s) => `${s.slice} ${s.agree}/${s.samples}`).join(', ');
  const earlyFailing = early ? `${early.samples - early.polyeval_passed}/${early.samples} early exits fail` : '';
  process.stdout.write(`${set}: ${report.overall.samples} samples · ${perKind} · ${earlyFailing} · ${wallS.toFixed(1)} s · run ${runId}\n`);
}
cleanup();

if (problems.length > 0) fail(`polyeval and MXEval disagree where they must not:\n${problems.join('\n')}`);
process.stdout.write(`fidelity: every set agrees with MXEval on canonical and mutant answers, and every early exit fails\n`);
