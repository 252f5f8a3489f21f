// Grouping a benchmark's runs into the boards the cloud leaderboard queries one by one: the same
// boards, labels and order as the local leaderboard's, each ranked by its protocol's headline.
import { describe, expect, it } from 'vitest';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { abricot } from '#core/benchmarks/abricot.ts';
import { groupBoards, type BoardRun } from '#core/report/leaderboard-boards.ts';
import { boardLabel, boardRunOfManifest, buildLeaderboard, type LeaderboardRun } from '#core/report/leaderboard.ts';

const SUBTASKS = ['subtask=abstractness', 'subtask=inclusiveness'];

function placed(over: Partial<BoardRun> & { run_id: string }): BoardRun {
  return { benchmark: 'rocode', dataset: 'sample/rocode', language: 'python', protocol: 'paper', headline: 'pass@1', ...over };
}

const ABRICOT_PAPER = placed({ run_id: 'a1', benchmark: 'abricot', dataset: 'sample/abricot', language: null, protocol: 'paper', headline: 'pearson' });
const ABRICOT_CALAMITA = placed({ run_id: 'a2', benchmark: 'abricot', dataset: 'sample/abricot', language: null, protocol: 'calamita', headline: 'accuracy' });
/** Planned before protocols: no protocol, no protocol headline. */
const PRE_PROTOCOL: BoardRun = { run_id: 'old', benchmark: 'rocode', dataset: 'sample/rocode', language: 'python', protocol: null };

describe('groupBoards', () => {
  it('puts ABRICOT paper and calamita runs on separate boards, each ranked by its own headline on both subtasks', () => {
    const boards = groupBoards([ABRICOT_PAPER, ABRICOT_CALAMITA]);

    expect(boards.map((b) => [b.label, b.metric, b.slices, b.runIds])).toEqual([
      ['sample/abricot · calamita', 'accuracy', SUBTASKS, ['a2']],
      ['sample/abricot · paper', 'pearson', SUBTASKS, ['a1']],
    ]);
  });

  it('separates languages and datasets, and gathers the runs of one board once each', () => {
    const boards = groupBoards([
      placed({ run_id: 'r1' }),
      placed({ run_id: 'r2', language: 'cpp' }),
      placed({ run_id: 'r3' }),
      placed({ run_id: 'r1' }),
      placed({ run_id: 'r4', dataset: 'rocode' }),
    ]);

    expect(boards.map((b) => [b.label, b.metric, b.slices, b.runIds])).toEqual([
      ['rocode [python] · paper', 'pass@1', ['all'], ['r4']],
      ['sample/rocode [cpp] · paper', 'pass@1', ['all'], ['r2']],
      ['sample/rocode [python] · paper', 'pass@1', ['all'], ['r1', 'r3']],
    ]);
  });

  it("ranks a run planned before protocols by its benchmark's headline, on a board of its own", () => {
    const boards = groupBoards([PRE_PROTOCOL, placed({ run_id: 'new' })]);

    expect(boards.map((b) => [b.label, b.protocol, b.metric, b.runIds])).toEqual([
      ['sample/rocode [python]', null, 'accuracy', ['old']],
      ['sample/rocode [python] · paper', 'paper', 'pass@1', ['new']],
    ]);
  });

  it('keeps only the boards the filter names', () => {
    const runs = [
      ABRICOT_PAPER,
      ABRICOT_CALAMITA,
      placed({ run_id: 'r1' }),
      placed({ run_id: 'r2', language: 'cpp' }),
      placed({ run_id: 'r3', dataset: 'rocode' }),
    ];

    expect(groupBoards(runs, { protocol: 'calamita' }).map((b) => b.runIds)).toEqual([['a2']]);
    expect(groupBoards(runs, { language: 'cpp' }).map((b) => b.runIds)).toEqual([['r2']]);
    expect(groupBoards(runs, { dataset: 'rocode' }).map((b) => b.runIds)).toEqual([['r3']]);
    expect(groupBoards(runs, { protocol: 'paper', language: 'python', dataset: 'sample/rocode' }).map((b) => b.runIds)).toEqual([['r1']]);
    expect(groupBoards(runs, { protocol: 'no-such-protocol' })).toEqual([]);
  });

  it('ranks every board by a named metric and slice instead of its headline', () => {
    const boards = groupBoards([ABRICOT_PAPER, ABRICOT_CALAMITA], { metric: 'spearman', slice: 'subtask=inclusiveness' });

    expect(boards.map((b) => [b.label, b.metric, b.slices])).toEqual([
      ['sample/abricot · calamita', 'spearman', ['subtask=inclusiveness']],
      ['sample/abricot · paper', 'spearman', ['subtask=inclusiveness']],
    ]);
  });

  it('makes the boards of the local leaderboard, with its labels, in its order', () => {
    const runs = [ABRICOT_CALAMITA, placed({ run_id: 'r2', language: 'cpp' }), ABRICOT_PAPER, placed({ run_id: 'r1' }), PRE_PROTOCOL];
    const local = buildLeaderboard(runs.map((r): LeaderboardRun => ({ ...r, model: 'm', items: 1, cost_usd: 0, date: '2026-11-30T00:00:00Z', metrics: {} })));

    expect(groupBoards(runs).map((b) => b.label)).toEqual([...new Set(local.map(boardLabel))]);
  });
});

describe('boardRunOfManifest', () => {
  it('reads the protocol and its headline from the manifest, and none from a manifest planned before protocols', () => {
    const base = {
      benchmark: { id: 'abricot', title: 'ABRICOT', spec: 'sample/abricot', source: 'bundled', sha256: '0', tasks: 1, scorer: 'likert' as const },
      model: { spec: 'reference', kind: 'reference', name: 'reference' },
      language: null,
    };

    expect(boardRunOfManifest({ ...base, protocol: bindProtocol(abricot, { protocol: 'calamita-fork' }).protocol })).toEqual({
      benchmark: 'abricot',
      dataset: 'sample/abricot',
      model: 'reference',
      language: null,
      protocol: 'calamita-fork',
      headline: 'accuracy',
    });
    expect(boardRunOfManifest(base)).toEqual({ benchmark: 'abricot', dataset: 'sample/abricot', model: 'reference', language: null, protocol: null });
  });
});
