import { describe, expect, it } from 'vitest';
import { abricotAnalysisRows, type ScoredItem } from '#core/benchmarks/abricot-metrics.ts';
import { acrossWordPearson, sampleStd, withinWordPearson, wordStats, type WordGroup } from '#core/metrics/likert-words.ts';

// A model that knows words but not contexts: every context of a word gets the same prediction.
const wordsOnly: WordGroup[] = [
  {
    word: 'benzina',
    contexts: [
      { predicted: 1, goldMean: 0.1 },
      { predicted: 1, goldMean: 0.6 },
    ],
  },
  {
    word: 'ironia',
    contexts: [
      { predicted: 5, goldMean: 0.7 },
      { predicted: 5, goldMean: 0.9 },
    ],
  },
  {
    word: 'mucca',
    contexts: [
      { predicted: 2, goldMean: 0.2 },
      { predicted: 2, goldMean: 0.5 },
    ],
  },
];
// A model that orders contexts within a word, backwards for one word.
const contexts: WordGroup[] = [
  {
    word: 'a',
    contexts: [
      { predicted: 1, goldMean: 0.1 },
      { predicted: 2, goldMean: 0.3 },
      { predicted: 4, goldMean: 0.8 },
    ],
  },
  {
    word: 'b',
    contexts: [
      { predicted: 3, goldMean: 0.2 },
      { predicted: 1, goldMean: 0.6 },
    ],
  },
];

describe('across-word and within-word correlation', () => {
  it('separates knowing words from ordering contexts', () => {
    // Word means: predicted 1, 5, 2; human 0.35, 0.8, 0.35.
    const across = acrossWordPearson(wordsOnly);
    expect(across.n).toBe(3);
    expect(across.value).toBeCloseTo(0.9707253433941512, 12);
    // Within every word the prediction is constant: r is undefined for each, never 0.
    expect(withinWordPearson(wordsOnly)).toEqual({ value: null, reason: 'no word with ≥ 2 contexts and non-constant predictions and scores', n: 0 });
  });

  it('averages each word’s own r over the words where it is defined', () => {
    // Word a: r(1,2,4 ; .1,.3,.8) = 0.99863..., word b: two points in opposite order, r = −1.
    const a = 0.998625428903524;
    const within = withinWordPearson(contexts);
    expect(within.n).toBe(2);
    expect(within.value).toBeCloseTo((a - 1) / 2, 12);
  });

  it("gives Table 1's columns per word with the sample standard deviation", () => {
    const [benzina] = wordStats(wordsOnly);
    expect(benzina).toEqual({ word: 'benzina', contexts: 2, goldMean: 0.35, goldStd: expect.closeTo(0.5 / Math.SQRT2, 12), predMean: 1, predStd: 0 });
    expect(sampleStd([1])).toBeNull();
  });
});

describe('ABRICOT analysis rows', () => {
  const items: ScoredItem[] = [
    { subtask: 'abstractness', itemId: 'i0', word: 'a', domain: 'howto', gold: 1, goldMean: 0.1, predicted: 1 },
    { subtask: 'abstractness', itemId: 'i1', word: 'a', domain: 'subtitles', gold: 2, goldMean: 0.3, predicted: 2 },
    { subtask: 'abstractness', itemId: 'i2', word: 'b', domain: 'howto', gold: 5, goldMean: 0.9, predicted: 4 },
    { subtask: 'abstractness', itemId: 'i3', word: 'b', domain: 'subtitles', gold: 3, goldMean: 0.5, predicted: 5 },
    { subtask: 'abstractness', itemId: 'i4', word: 'c', domain: 'howto', gold: 3, goldMean: 0.4, predicted: 3 },
  ];
  const rows = abricotAnalysisRows(items, { run_id: 'r', benchmark: 'abricot', model: 'm' }, 7, 200);
  const get = (metric: string, slice: string) => rows.find((r) => r.metric === metric && r.slice === slice);

  it('slices Pearson by domain within the subtask, with an interval', () => {
    const howto = get('pearson_domain', 'subtask=abstractness,domain=howto');
    // predicted 1,4,3 against gold 1,5,3.
    expect(howto?.value).toBeCloseTo(0.9819805060619656, 12);
    expect(howto?.n).toBe(3);
    expect(howto?.ci_low).not.toBeNull();
    const subtitles = get('pearson_domain', 'subtask=abstractness,domain=subtitles');
    expect(subtitles?.value).toBeCloseTo(1, 12);
  });

  it('reports within-word r beside across-word r, each with a word-resampled interval', () => {
    const within = get('pearson_within_word', 'subtask=abstractness');
    expect(within?.value).toBeCloseTo((1 + -1) / 2, 12);
    expect(within?.n).toBe(2);
    const across = get('pearson_across_word', 'subtask=abstractness');
    expect(across?.n).toBe(3);
    expect(across?.ci_low).not.toBeNull();
  });

  it('contrasts the subtasks: Pearson of inclusiveness minus abstractness, paired by row, with an interval', () => {
    // Inclusiveness on the same five rows: predicted 1, 2, 3, 4, 5 against gold 5, 4, 3, 2, 1 (r = −1).
    const inc = items.map((it, i) => ({ ...it, subtask: 'inclusiveness', gold: 5 - i, predicted: i + 1 }));
    const both = abricotAnalysisRows([...items, ...inc], { run_id: 'r', benchmark: 'abricot', model: 'm' }, 7, 200);
    const contrast = both.find((r) => r.metric === 'pearson_subtask_diff' && r.slice === 'contrast=inclusiveness-abstractness');
    // Abstractness: predicted 1, 2, 4, 5, 3 against gold 1, 2, 5, 3, 3.
    const abs = 0.7462025072446364; // statistics.correlation in CPython 3.11
    expect(contrast?.value).toBeCloseTo(-1 - abs, 12);
    expect(contrast?.n).toBe(5);
    expect(contrast?.ci_low).not.toBeNull();
    expect((contrast?.ci_low ?? 0) <= (contrast?.value ?? 0) && (contrast?.value ?? 0) <= (contrast?.ci_high ?? 0)).toBe(true);
    expect(get('pearson_subtask_diff', 'contrast=inclusiveness-abstractness')).toMatchObject({ value: null, n: 0, reason: 'no row judged on both subtasks' });
  });

  it('gives per-word rows, absent std with one context', () => {
    expect(get('word_pred_mean', 'subtask=abstractness,word=b')?.value).toBe(4.5);
    expect(get('word_gold_std', 'subtask=abstractness,word=c')).toMatchObject({ value: null, reason: 'one context', n: 1 });
  });
});
