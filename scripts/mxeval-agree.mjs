// Reproduces polyeval's agreement with MXEval on MXEval's published MBXP example samples,
// from the user's own checkout of MXEval (github.com/amazon-science/mxeval) — nothing of
// MXEval is copied into this repository. For each set it reads the release problems file
// (data/mbxp/metadata.json) and the example samples file (data/mbxp/metadata_examples.json),
// and MXEval's verdicts from the `<samples>_results.jsonl` its evaluate_functional_correctness
// writes (or from --results <dir>). When the results cover only some samples (an MXEval run
// cut short), polyeval runs exactly those samples and the line says how many were compared.
//
//   node scripts/mxeval-agree.mjs <mxeval-repo> [--sets mbpp,mbcpp,mbkp] [--results <dir>]
//        [--home <dir>] [--min 0.99] [--jobs <n>] [--kotlin-language-version 2.4] [--json]
//
// --kotlin-language-version is polyeval run's: MXEval calls plain `kotlinc`, whose language
// level is its own version's (2.4 for kotlinc 2.4.20), while polyeval's mxeval protocol
// compiles at 2.0, which still accepts the pre-2.1 APIs (`toUpperCase()`…) MBKP samples use.
// Prints one line per set (samples compared, agreement, polyeval's verdict counts) and every
// disagreement with both verdicts and polyeval's error line; --json prints one object with
// each set's `polyeval agree --json` report. Exit 1 when a set is below --min.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    sets: { type: 'string' },
    results: { type: 'string' },
    home: { type: 'string' },
    min: { type: 'string' },
    jobs: { type: 'string' },
    json: { type: 'boolean' },
    'kotlin-language-version': { type: 'string' },
  },
});
const cli = join(root, 'dist', 'polyeval.mjs');
const min = Number(values.min ?? '0.99');

function die(message, code = 2) {
  process.stderr.write(`mxeval-agree: ${message}\n`);
  process.exit(code);
}

if (positionals.length !== 1)
  die(
    'usage: node scripts/mxeval-agree.mjs <mxeval-repo> [--sets mbpp,mbcpp,mbkp] [--results <dir>] [--home <dir>] [--min 0.99] [--jobs <n>] [--kotlin-language-version <v>] [--json]',
  );
if (!Number.isFinite(min) || min < 0 || min > 1) die(`--min must be a rate between 0 and 1, got "${values.min}"`);
if (!existsSync(cli)) die(`${cli} is missing: run \`npm run build\` first`);
const mbxp = join(resolve(positionals[0]), 'data', 'mbxp');

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    die(`${file}: ${error.code === 'ENOENT' ? 'does not exist (is the argument a checkout of amazon-science/mxeval?)' : error.message}`);
  }
}

function jsonLines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, line: i + 1 }))
    .filter((l) => l.text.trim() !== '')
    .map((l) => {
      try {
        return { ...JSON.parse(l.text), _text: l.text };
      } catch {
        return die(`${file}:${l.line}: not JSON`);
      }
    });
}

// set name (the samples file's stem: mbkp_samples.jsonl → mbkp) → its two files
const releases = readJson(join(mbxp, 'metadata.json'));
const examples = readJson(join(mbxp, 'metadata_examples.json'));
const available = new Map(
  Object.entries(examples).map(([language, samples]) => [
    basename(samples).replace(/_samples\.jsonl$/u, ''),
    { language, problems: join(mbxp, releases[language]), samples: join(mbxp, samples) },
  ]),
);
const sets = (values.sets ?? 'mbpp,mbcpp,mbkp').split(',').filter(Boolean);
for (const s of sets) if (!available.has(s)) die(`unknown set "${s}" (${mbxp}/metadata_examples.json has: ${[...available.keys()].join(', ')})`);

const home = values.home ?? mkdtempSync(join(tmpdir(), 'polyeval-mxeval-agree-'));
const scratch = mkdtempSync(join(tmpdir(), 'polyeval-mxeval-subset-'));

function polyeval(args) {
  const r = spawnSync(process.execPath, [cli, '--home', home, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0 && !(args[0] === 'agree' && r.status === 1)) die(`polyeval ${args.slice(0, 2).join(' ')} exited ${r.status}:\n${r.stderr}`);
  try {
    return JSON.parse(r.stdout);
  } catch {
    return die(`polyeval ${args[0]} printed no JSON:\n${r.stdout}\n${r.stderr}`);
  }
}

// As `polyeval agree` prints it (layers/core/agreement/error-line.ts): the first `error:` line, else the first line.
function errorLine(error) {
  const lines = (error ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.find((l) => /(^|\s)error:/iu.test(l)) ?? lines[0] ?? '';
}

const reports = {};
let below = false;
for (const set of sets) {
  const { problems, samples } = available.get(set);
  const results = values.results ? join(resolve(values.results), `${basename(samples)}_results.jsonl`) : `${samples}_results.jsonl`;
  if (!existsSync(results))
    die(
      `${results} does not exist: run MXEval first (python -m mxeval.evaluate_functional_correctness ${samples} --problem_file ${problems}), or pass --results <dir>`,
    );
  // The samples MXEval judged, per task, in file order: polyeval runs exactly those.
  const judged = new Map();
  const mxevalSays = new Map(); // `${task_id} #${sample}` → MXEval's `result` (stderr, or human-eval's message)
  for (const r of jsonLines(results)) {
    const n = judged.get(r.task_id) ?? 0;
    judged.set(r.task_id, n + 1);
    if (typeof r.result === 'string') mxevalSays.set(`${r.task_id} #${r.sample ?? n}`, r.result);
  }
  const all = jsonLines(samples);
  let sampleFile = samples;
  if (jsonLines(results).length < all.length) {
    const taken = new Map();
    const subset = all.filter((s) => {
      const n = taken.get(s.task_id) ?? 0;
      if (n >= (judged.get(s.task_id) ?? 0)) return false;
      taken.set(s.task_id, n + 1);
      return true;
    });
    sampleFile = join(scratch, basename(samples));
    writeFileSync(sampleFile, subset.map((s) => s._text).join('\n') + '\n');
  }
  const extra = [
    ...(values.jobs ? ['--jobs', values.jobs] : []),
    ...(values['kotlin-language-version'] ? ['--kotlin-language-version', values['kotlin-language-version']] : []),
  ];
  const run = polyeval(['run', '-b', `mxeval:${problems}`, '-m', `replay:${sampleFile}`, '--json', '-q', ...extra]);
  const report = polyeval(['agree', run.run_id, results, '--json', '--min', String(min)]);
  reports[set] = { run_id: run.run_id, samples_in_file: all.length, verdicts: run.verdicts, ...report };
  if (report.overall.rate < min) below = true;
  if (!values.json) {
    const o = report.overall;
    const verdicts = Object.entries(run.verdicts)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');
    const out = [
      `${set}: ${o.samples} of ${all.length} samples compared · agreement ${o.agree}/${o.samples} = ${(100 * o.rate).toFixed(2)}% · polyeval ${verdicts} · MXEval passes ${o.reference_passed} · run ${run.run_id}`,
    ];
    for (const d of report.disagreements) {
      const theirs = errorLine(mxevalSays.get(`${d.task_id} #${d.sample}`));
      const why = [d.polyeval_passed ? '' : `polyeval: ${errorLine(d.error)}`, d.reference_passed || theirs === '' ? '' : `MXEval: ${theirs}`]
        .filter(Boolean)
        .join(' · ');
      out.push(`  ${d.task_id} #${d.sample}: polyeval ${d.polyeval_verdict}, MXEval ${d.reference_passed ? 'pass' : 'fail'}${why ? ` — ${why}` : ''}`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
rmSync(scratch, { recursive: true, force: true });
if (!values.home) rmSync(home, { recursive: true, force: true });
if (values.json) process.stdout.write(`${JSON.stringify({ min, sets: reports }, null, 2)}\n`);
if (below) die(`agreement below ${min} on at least one set`, 1);
