/**
 * Progress on stderr: a live bar (counts, verdicts so far, ETA) on a terminal; a line every
 * few seconds otherwise (CI logs, pipes). Never touches stdout, which `--json` owns. The ETA
 * learns per-item time per language as items are recorded (see {@link LanguageEta}).
 */
import type { SingleBar } from 'cli-progress';
import { cliProgress } from './load-cli-progress.ts';
import type { Verdict } from '#core/types.ts';
import { formatEta, LanguageEta } from './eta.ts';

export interface Progress {
  /** A run starts: its items per language (`remaining`), `done` of them already recorded. */
  planned(runId: string, total: number, done: number, benchmark: string, remaining?: Readonly<Record<string, number>>): void;
  recorded(verdict: Verdict, language?: string): void;
  finish(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false, now: () => number = Date.now): Progress {
  const verdicts = new Map<Verdict, number>();
  const eta = new LanguageEta(now);
  let total = 0;
  let done = 0;
  let lastLine = 0;
  let bar: SingleBar | undefined;
  const summary = (): string => [...verdicts].map(([v, c]) => `${v} ${c}`).join(' · ') || '—';
  return {
    planned(runId, t, d, benchmark, remaining) {
      if (quiet) return;
      bar?.stop();
      total = t;
      done = d;
      verdicts.clear();
      eta.start(remaining ?? { item: t }, d);
      stream.write(`run ${runId} · ${benchmark} · ${t} items${d ? ` (${d} already recorded)` : ''}\n`);
      if (stream.isTTY) {
        bar = new (cliProgress().SingleBar)({ stream, format: '  {bar} {value}/{total} · {verdicts} · ETA {eta_learnt}', hideCursor: true });
        bar.start(total, done, { verdicts: summary(), eta_learnt: formatEta(eta.seconds()) });
      }
    },
    recorded(verdict, language = 'item') {
      if (quiet) return;
      done++;
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      eta.recorded(language);
      if (bar) {
        bar.update(done, { verdicts: summary(), eta_learnt: formatEta(eta.seconds()) });
        return;
      }
      const t = now();
      if (t - lastLine > 2000 || done === total) {
        lastLine = t;
        stream.write(`  ${done}/${total} · ${summary()} · ETA ${formatEta(eta.seconds())}\n`);
      }
    },
    finish() {
      bar?.stop();
      bar = undefined;
    },
  };
}
