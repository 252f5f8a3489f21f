/**
 * An ETA that learns how long an item takes per language as items are recorded: the time
 * between consecutive records is charged to the language of the item just recorded, so a
 * mixed run (C, C++, Python, Kotlin) weighs each language's remaining items by its own pace
 * at the current concurrency. The first interval of a run (toolchain start, compile server
 * warm-up) is used only until a steady interval is seen. Estimates persist across the runs
 * of one invocation, so a sweep's second Kotlin run starts with what the first one learnt.
 *
 * A sweep whose cells run at the same time adds each run's items as it is planned (`add`):
 * records of all cells interleave, so the pace learnt is the grid's, and the estimate covers
 * every run planned so far plus any items the caller expects (`seconds(extra)`).
 */
export class LanguageEta {
  private readonly pace = new Map<string, { ms: number; count: number }>();
  private remaining = new Map<string, number>();
  private last = 0;
  private warmup: { language: string; ms: number } | undefined;
  private first = true;

  constructor(private readonly now: () => number = Date.now) {}

  /** A run starts: `remaining` per language of all its items, `done` of them already recorded. */
  start(remaining: Readonly<Record<string, number>>, done: number): void {
    const total = Object.values(remaining).reduce((a, b) => a + b, 0);
    const left = total === 0 ? 0 : Math.max(0, total - done) / total;
    this.remaining = new Map(Object.entries(remaining).map(([language, count]) => [language, count * left]));
    this.last = this.now();
    this.first = true;
  }

  /**
   * A run joins those in progress (a concurrent sweep): its items are added to what remains
   * and the clock keeps running (the pace is the grid's, over every run recorded at once).
   */
  add(remaining: Readonly<Record<string, number>>, done: number): void {
    const total = Object.values(remaining).reduce((a, b) => a + b, 0);
    const left = total === 0 ? 0 : Math.max(0, total - done) / total;
    const idle = [...this.remaining.values()].every((c) => c === 0);
    for (const [language, count] of Object.entries(remaining)) this.remaining.set(language, (this.remaining.get(language) ?? 0) + count * left);
    if (idle) {
      this.last = this.now();
      this.first = true;
    }
  }

  /** One item of `language` was recorded. */
  recorded(language: string): void {
    const t = this.now();
    const ms = t - this.last;
    this.last = t;
    this.remaining.set(language, Math.max(0, (this.remaining.get(language) ?? 0) - 1));
    if (this.first) {
      this.first = false;
      this.warmup = { language, ms };
      return;
    }
    const p = this.pace.get(language) ?? { ms: 0, count: 0 };
    p.ms += ms;
    p.count += 1;
    this.pace.set(language, p);
  }

  /** Seconds left (with `extra` items per language on top), or null before anything was learnt. */
  seconds(extra: Readonly<Record<string, number>> = {}): number | null {
    const known = [...this.pace.values()];
    let fallback: number | undefined;
    if (known.length > 0) fallback = known.reduce((a, p) => a + p.ms, 0) / known.reduce((a, p) => a + p.count, 0);
    else if (this.warmup) fallback = this.warmup.ms;
    if (fallback === undefined) return null;
    let ms = 0;
    const remaining = new Map(this.remaining);
    for (const [language, count] of Object.entries(extra)) remaining.set(language, (remaining.get(language) ?? 0) + count);
    for (const [language, count] of remaining) {
      const p = this.pace.get(language);
      ms += count * (p ? p.ms / p.count : fallback);
    }
    return Math.round(ms / 1000);
  }
}

/** `1h02m`, `3m05s`, `42s`, `—` when unknown. */
export function formatEta(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${seconds}s`;
}
