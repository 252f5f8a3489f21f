/**
 * The leaderboard's boards as queries: runs grouped by the local leaderboard's board rule
 * ({@link boardKey}: benchmark, dataset, language, protocol, ranking metric), each board with
 * the metric and the slices it is ranked on and the runs it names. The cloud leaderboard asks
 * Athena one query per board, so numbers of different protocols, datasets or languages never
 * compete for one row. Pure.
 */
import { headlineMetric, headlineSlices } from '../benchmarks/index.ts';
import { boardKey, boardLabel, compareBoards, type LeaderboardRun } from './leaderboard.ts';

/** What grouping needs of one run (from its manifest: {@link boardRunOfManifest}). */
export type BoardRun = Pick<LeaderboardRun, 'run_id' | 'benchmark' | 'dataset' | 'language' | 'protocol' | 'headline'>;

/** Which boards to build, and what to rank them by. */
export interface BoardFilter {
  /** Only runs that followed this protocol. */
  protocol?: string;
  /** Only runs that fixed this language. */
  language?: string;
  /** Only runs on this dataset (as given to `-b`: `sample/rocode`, `rocode`, …). */
  dataset?: string;
  /** Rank by this metric instead of each board's protocol headline. */
  metric?: string;
  /** Rank on this slice instead of the benchmark's headline slices. */
  slice?: string;
}

/** One board: its runs and what ranks them. */
export interface Board {
  /** {@link boardKey} of the board (metric: the ranking metric). */
  key: string;
  /** {@link boardLabel}: `sample/abricot · calamita`, `rocode [cpp] · paper`. */
  label: string;
  benchmark: string;
  dataset: string;
  language: string | null;
  protocol: string | null;
  /** The metric ranked by: the protocol's headline unless the filter names one. */
  metric: string;
  /** The slices ranked on: the benchmark's headline slices unless the filter names one. */
  slices: readonly string[];
  /** The board's runs, first-seen order, each once. */
  runIds: string[];
}

/**
 * The boards of `runs` that pass `filter`, in the local leaderboard's board order.
 * A run without a protocol (planned before protocols) is ranked by its benchmark's headline.
 * @example
 * groupBoards([{ run_id: 'a', benchmark: 'abricot', dataset: 'sample/abricot', language: null, protocol: 'calamita', headline: 'accuracy' }]);
 * // [{ label: 'sample/abricot · calamita', metric: 'accuracy', slices: ['subtask=abstractness', 'subtask=inclusiveness'], runIds: ['a'], … }]
 */
export function groupBoards(runs: readonly BoardRun[], filter: BoardFilter = {}): Board[] {
  const boards = new Map<string, Board>();
  const seen = new Set<string>();
  for (const run of runs) {
    if (filter.protocol !== undefined && run.protocol !== filter.protocol) continue;
    if (filter.language !== undefined && run.language !== filter.language) continue;
    if (filter.dataset !== undefined && run.dataset !== filter.dataset) continue;
    const fields = {
      benchmark: run.benchmark,
      dataset: run.dataset,
      language: run.language,
      protocol: run.protocol,
      metric: filter.metric ?? run.headline ?? headlineMetric(run.benchmark),
    };
    const key = boardKey(fields);
    const board = boards.get(key) ?? {
      key,
      label: boardLabel(fields),
      ...fields,
      slices: filter.slice === undefined ? headlineSlices(run.benchmark) : [filter.slice],
      runIds: [],
    };
    boards.set(key, board);
    if (seen.has(`${key}\u0000${run.run_id}`)) continue;
    seen.add(`${key}\u0000${run.run_id}`);
    board.runIds.push(run.run_id);
  }
  return [...boards.values()].sort(compareBoards);
}
