import { describe, expect, it } from 'vitest';
import { replayProvider } from '#core/models/replay.ts';

const params = { temperature: 0, topP: 1, maxTokens: 10, stop: [] };
const prompt = { style: 'chat' as const, messages: [] };

describe('replay provider', () => {
  it('plays several lines of one task back as samples, explicit indexes first', async () => {
    const text = [
      '{"task_id":"a","completion":"x0"}',
      '{"task_id":"a","completion":"x5","sample":1}',
      '{"task_id":"b","completion":"y","language":"cpp"}',
      '{"task_id":"a","completion":"x2"}',
    ].join('\n');
    const p = replayProvider('replay:f.jsonl', 'f.jsonl', text);
    expect(p.samplesFor?.('a')).toBe(3);
    expect(p.samplesFor?.('zzz')).toBeUndefined();
    expect(p.languageFor?.('b', 0)).toBe('cpp');
    const spelled = replayProvider(
      'replay:f.jsonl',
      'f.jsonl',
      ['C', 'C++', 'Python3', 'js'].map((language, i) => JSON.stringify({ task_id: `t${i}`, completion: 'x', language })).join('\n'),
    );
    expect([0, 1, 2, 3].map((i) => spelled.languageFor?.(`t${i}`, 0))).toEqual(['c', 'cpp', 'python', 'javascript']);
    const texts = await Promise.all([0, 1, 2].map((sample) => p.generate({ taskId: 'a', sample, prompt, params }).then((g) => g.text)));
    expect(texts).toEqual(['x0', 'x5', 'x2']);
  });

  it.each([
    ['{"task_id":"a","completion":"x"}\nnot json', 'f.jsonl, line 2: is not valid JSON'],
    ['{"task_id":"","completion":"x"}', 'f.jsonl, line 1, field "task_id"'],
    ['\n{"task_id":"a"}', 'f.jsonl, line 2, field "completion"'],
    ['{"task_id":"a","completion":"x","sample":-1}', 'f.jsonl, line 1, field "sample"'],
    ['{"task_id":"a","completion":"x","sample":0}\n{"task_id":"a","completion":"y","sample":0}', 'f.jsonl, line 2, field "sample": duplicate sample 0'],
    [
      '{"task_id":"a","completion":"x","language":"C++"}\n{"task_id":"a","completion":"y","language":"rust"}',
      'f.jsonl, line 2, field "language": names no language polyeval runs: "rust"',
    ],
  ])('rejects malformed lines naming file, line and field (%#)', (text, message) => {
    expect(() => replayProvider('replay:f.jsonl', 'f.jsonl', text)).toThrow(message);
  });

  it('names the line of a task id the benchmark does not have', async () => {
    const p = replayProvider('replay:f.jsonl', 'f.jsonl', '{"task_id":"a","completion":"x"}\n{"task_id":"q","completion":"y"}');
    await expect(p.prepare?.(new Set(['a']))).rejects.toThrow('f.jsonl, line 2, field "task_id": unknown task id "q"');
  });
});
