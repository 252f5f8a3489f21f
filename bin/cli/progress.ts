/**
 * Progress on stderr: a live bar (counts, verdicts so far, ETA) on a terminal; a line every
 * few seconds otherwise (CI logs, pipes). Never touches stdout, which `--json` owns.
 */
import { SingleBar } from 'cli-progress';
import type { Verdict } from '#core/types.ts';

export interface Progress {
  planned(runId: string, total: number, done: number, benchmark: string): void;
  recorded(verdict: Verdict): void;
  finish(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  const verdicts = new Map<Verdict, number>();
  let total = 0;
  let done = 0;
  let started = Date.now();
  let lastLine = 0;
  let bar: SingleBar | undefined;
  const summary = (): string => [...verdicts].map(([v, c]) => `${v} ${c}`).join(' · ') || '—';
  return {
    planned(runId, t, d, benchmark) {
      if (quiet) return;
      bar?.stop();
      total = t;
      done = d;
      verdicts.clear();
      started = Date.now();
      stream.write(`run ${runId} · ${benchmark} · ${t} items${d ? ` (${d} already recorded)` : ''}\n`);
      if (stream.isTTY) {
        bar = new SingleBar({ stream, format: '  {bar} {value}/{total} · {verdicts} · ETA {eta_formatted}', hideCursor: true, etaBuffer: 50 });
        bar.start(total, done, { verdicts: summary() });
      }
    },
    recorded(verdict) {
      if (quiet) return;
      done++;
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      if (bar) {
        bar.update(done, { verdicts: summary() });
        return;
      }
      const now = Date.now();
      if (now - lastLine > 2000 || done === total) {
        lastLine = now;
        const rate = (done - 0) / Math.max(0.001, (now - started) / 1000);
        const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
        stream.write(`  ${done}/${total} · ${summary()} · ETA ${eta}s\n`);
      }
    },
    finish() {
      bar?.stop();
      bar = undefined;
    },
  };
}
