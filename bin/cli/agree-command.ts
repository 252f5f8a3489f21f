/**
 * `polyeval agree <run-id> <results.jsonl>`: how often a run's per-sample verdicts agree
 * with another harness's result file (MXEval / human-eval: `task_id`, `passed`, one line per
 * sample). Exit 1 when agreement is below `--min`.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { openHome } from '#app/local/home.ts';
import { agreement, errorLine, parseReferenceVerdicts, type AgreementReport, type AgreementSlice } from '#core/agreement/index.ts';
import { InputError } from '#core/errors.ts';
import { readItems } from '#core/report/index.ts';
import { table, toJson } from './format.ts';

/** `0.99` or `99%`. */
function rateOption(value: string): number {
  const percent = value.trim().endsWith('%');
  const n = Number(percent ? value.trim().slice(0, -1) : value);
  const rate = percent ? n / 100 : n;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new InputError('must be a rate between 0 and 1 (or a percentage such as 99%)', { field: '--min' });
  return rate;
}

function readResults(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { file });
  }
}

const percent = (rate: number): string => `${(100 * rate).toFixed(2)}%`;

function sliceRows(slices: readonly AgreementSlice[], label: string): Record<string, unknown>[] {
  return slices.map((s) => ({
    [label]: s.slice,
    samples: s.samples,
    agree: s.agree,
    agreement: percent(s.rate),
    'polyeval passed': s.polyeval_passed,
    'reference passed': s.reference_passed,
  }));
}

function printReport(runId: string, file: string, report: AgreementReport): void {
  const o = report.overall;
  const out = [
    `run ${runId} vs ${file}`,
    `agreement ${percent(o.rate)} (${o.agree}/${o.samples} samples) · ${report.missing} without a record in the run · ${report.unmatched} run samples not in the file`,
    '',
    table(sliceRows(report.by_language, 'language')),
  ];
  if (report.by_kind.length > 0) out.push('', table(sliceRows(report.by_kind, 'kind')));
  out.push('', `disagreements: ${report.disagreements.length}`);
  if (report.disagreements.length > 0) {
    out.push(
      table(
        report.disagreements.map((d) => ({
          task_id: d.task_id,
          sample: d.sample,
          language: d.language,
          ...(report.by_kind.length > 0 ? { kind: d.kind } : {}),
          polyeval: `${d.polyeval_verdict} (${d.polyeval_passed ? 'pass' : 'fail'})`,
          reference: d.reference_passed ? 'pass' : 'fail',
          error: errorLine(d.error),
        })),
      ),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

export function agreeCommand(): Command {
  return new Command('agree')
    .description("compare a run's per-sample verdicts with another harness's results file (MXEval / human-eval)")
    .argument('<run-id>')
    .argument('<results.jsonl>', 'one line per sample: task_id, passed (or mxeval_passed, or a human-eval result), optional kind, language, sample')
    .option('--json', 'print JSON')
    .option('--min <rate>', 'exit 1 when overall agreement is below this rate (0.99 or 99%)', rateOption)
    .action(async (runId: string, file: string, flags: { json?: boolean; min?: number }, command: Command) => {
      const home = openHome(command.optsWithGlobals<{ home?: string }>().home);
      const refs = parseReferenceVerdicts(readResults(file), file);
      if (!(await home.ledger.getRun(runId))) throw new InputError(`no run "${runId}" in ${home.root} (see: polyeval list runs)`, { field: 'run-id' });
      const records = (await readItems(home.store, runId)).map((d) => d.record);
      const report = agreement(records, refs);
      const below = flags.min !== undefined && report.overall.rate < flags.min;
      if (flags.json)
        process.stdout.write(`${toJson({ run_id: runId, file, ...(flags.min !== undefined ? { min: flags.min, below_min: below } : {}), ...report })}\n`);
      else printReport(runId, file, report);
      if (below) {
        process.stderr.write(`polyeval: agreement ${percent(report.overall.rate)} is below --min ${percent(flags.min ?? 0)}\n`);
        process.exitCode = 1;
      }
    });
}
