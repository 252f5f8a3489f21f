/**
 * Progress of a sweep whose cells run at the same time, on stderr: on a terminal one bar per
 * run in progress under one bar for the whole grid (cli-progress's MultiBar redraws them as a
 * block, and run announcements go through its log so they never cut a bar); otherwise plain
 * lines, each written whole, every few seconds: one per run in progress and one for the grid.
 *
 * The grid's ETA comes from {@link LanguageEta} fed with every record of every cell (the pace
 * learnt is the grid's, per language); cells not planned yet count with the items of a planned
 * cell of the same benchmark spec, and those with no such cell are named beside the ETA.
 */
import type { MultiBar, SingleBar } from 'cli-progress';
import { cliProgress } from './load-cli-progress.ts';
import type { LocalRunOptions } from '#app/local/run.ts';
import type { Verdict } from '#core/types.ts';
import { formatEta, LanguageEta } from './eta.ts';

type RunEvent = Parameters<NonNullable<LocalRunOptions['onEvent']>>[0];

/** What a cell of the grid runs (shown beside its runs). */
export interface CellLabel {
  benchmark: string;
  model: string;
}

export interface GridProgress {
  /** The sweep's grid, in order. */
  cells(labels: readonly CellLabel[]): void;
  event(cell: number, event: RunEvent): void;
  /** Every run of the cell is over (or was already: a resumed sweep's completed cells). */
  cellEnded(cell: number): void;
  finish(): void;
}

interface RunState {
  cell: number;
  total: number;
  done: number;
  verdicts: Map<Verdict, number>;
  bar?: SingleBar;
}

const summary = (verdicts: ReadonlyMap<Verdict, number>): string => [...verdicts].map(([v, c]) => `${v} ${c}`).join(' · ') || '—';

export function createGridProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false, now: () => number = Date.now): GridProgress {
  const eta = new LanguageEta(now);
  const runs = new Map<string, RunState>();
  /** Per cell: its planned runs' items per language (all of them, done included). */
  const cellItems = new Map<number, Record<string, number>>();
  const ended = new Set<number>();
  let labels: readonly CellLabel[] = [];
  let gridTotal = 0;
  let gridDone = 0;
  let lastLine = 0;
  let multi: MultiBar | undefined;
  let gridBar: SingleBar | undefined;

  /** Items expected from cells not planned yet, and how many of them have no estimate. */
  const unplanned = (): { items: Record<string, number>; unknown: number } => {
    const items: Record<string, number> = {};
    let unknown = 0;
    labels.forEach((label, cell) => {
      if (cellItems.has(cell) || ended.has(cell)) return;
      const sibling = [...cellItems].find(([other]) => labels[other]?.benchmark === label.benchmark)?.[1];
      if (!sibling) {
        unknown += 1;
        return;
      }
      for (const [language, count] of Object.entries(sibling)) items[language] = (items[language] ?? 0) + count;
    });
    return { items, unknown };
  };
  const gridInfo = (): { total: number; text: string } => {
    const { items, unknown } = unplanned();
    const extra = Object.values(items).reduce((a, b) => a + b, 0);
    const active = [...runs.values()].length;
    const text = `${ended.size}/${labels.length} cells done · ${active} running · ETA ${formatEta(eta.seconds(items))}${unknown ? ` + ${unknown} cell${unknown > 1 ? 's' : ''} not planned yet` : ''}`;
    return { total: gridTotal + extra, text };
  };
  const line = (runId: string, r: RunState): string => `  ${runId} · ${labels[r.cell]?.model ?? ''} · ${r.done}/${r.total} · ${summary(r.verdicts)}`;
  const writePlain = (force: boolean): void => {
    const t = now();
    if (!force && t - lastLine < 2000) return;
    lastLine = t;
    const grid = gridInfo();
    const lines = [...runs].map(([id, r]) => line(id, r));
    lines.push(`grid ${gridDone}/${grid.total} items · ${grid.text}`);
    stream.write(`${lines.join('\n')}\n`);
  };
  const redrawGrid = (): void => {
    if (!gridBar) return;
    const grid = gridInfo();
    gridBar.setTotal(Math.max(grid.total, gridDone));
    gridBar.update(gridDone, { label: 'grid', info: grid.text });
  };

  return {
    cells(all) {
      labels = all;
    },
    event(cell, e) {
      if (quiet) return;
      if (e.type === 'planned') {
        const items = cellItems.get(cell) ?? {};
        for (const [language, count] of Object.entries(e.remaining)) items[language] = (items[language] ?? 0) + count;
        cellItems.set(cell, items);
        eta.add(e.remaining, e.done);
        gridTotal += e.total;
        gridDone += e.done;
        const state: RunState = { cell, total: e.total, done: e.done, verdicts: new Map() };
        runs.set(e.runId, state);
        const announce = `run ${e.runId} · ${e.benchmark} · ${labels[cell]?.model ?? ''} · ${e.total} items${e.done ? ` (${e.done} already recorded)` : ''}\n`;
        if (stream.isTTY) {
          multi ??= new (cliProgress().MultiBar)({ stream, hideCursor: true, format: '{label} {bar} {value}/{total} · {info}' });
          gridBar ??= multi.create(1, 0, { label: 'grid', info: '' });
          multi.log(announce);
          state.bar = multi.create(e.total, e.done, { label: `  ${e.runId}`, info: '—' });
          redrawGrid();
        } else stream.write(announce);
        return;
      }
      const state = runs.get(e.runId);
      if (!state) return;
      if (e.type === 'recorded') {
        state.done += 1;
        gridDone += 1;
        state.verdicts.set(e.verdict, (state.verdicts.get(e.verdict) ?? 0) + 1);
        eta.recorded(e.language);
        if (state.bar) {
          state.bar.update(state.done, { info: summary(state.verdicts) });
          redrawGrid();
        } else writePlain(false);
        return;
      }
      // ended
      runs.delete(e.runId);
      if (multi && state.bar) {
        multi.remove(state.bar);
        multi.log(`${line(e.runId, state).trimStart()}\n`);
        redrawGrid();
      } else stream.write(`${line(e.runId, state)} · ended\n`);
    },
    cellEnded(cell) {
      ended.add(cell);
      if (!quiet && multi) redrawGrid();
    },
    finish() {
      if (quiet) return;
      if (multi) {
        redrawGrid();
        multi.stop();
      } else if (gridTotal > 0) writePlain(true);
      multi = undefined;
      gridBar = undefined;
    },
  };
}
