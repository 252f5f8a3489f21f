/**
 * Likert choices from one next-token distribution (chat `logprobs: true, top_logprobs: k`):
 * each choice's log-probability is the log-sum-exp of the top-k entries that spell it with
 * or without one leading space ("3" and " 3" — tokenisers differ on which follows a chat
 * template), so P(" 3") and P("3") add up. A choice absent from the top-k is given a floor:
 * the lowest top-k log-probability minus ln 2 (the missing token is at most as likely as the
 * k-th; taking half of that keeps any observed choice ahead of it). Which choices were
 * floored is recorded with the sample.
 */
import { tokenBytes } from './token-bytes.ts';

/** One alternative of the next token, as servers report it. */
export interface TopLogprob {
  token: string;
  logprob: number;
}

export interface NextTokenScores {
  logprobs: number[];
  /** Indexes of the choices given the floor. */
  floored: number[];
  floor: number;
}

const decoder = new TextDecoder();

/**
 * @example
 * nextTokenScores([{ token: '3', logprob: -0.7 }, { token: ' 3', logprob: -1.2 }, { token: '4', logprob: -2 }], ['1', '2', '3', '4', '5'])
 * // logprobs[2] = log(e^-0.7 + e^-1.2); "1", "2", "5" floored at -2 - ln 2
 */
export function nextTokenScores(top: readonly TopLogprob[], choices: readonly string[]): NextTokenScores {
  const finite = top.filter((t) => Number.isFinite(t.logprob));
  const lowest = finite.length > 0 ? Math.min(...finite.map((t) => t.logprob)) : -100;
  const floor = lowest - Math.LN2;
  const floored: number[] = [];
  const logprobs = choices.map((raw, index) => {
    const choice = raw.trim();
    const matches = finite.filter((t) => {
      const bytes = tokenBytes(t.token);
      const text = bytes === null ? '' : decoder.decode(bytes);
      return text === choice || text === ` ${choice}`;
    });
    if (matches.length === 0) {
      floored.push(index);
      return floor;
    }
    return logSumExp(matches.map((m) => m.logprob));
  });
  return { logprobs, floored, floor };
}

function logSumExp(values: readonly number[]): number {
  const max = Math.max(...values);
  return max + Math.log(values.reduce((sum, v) => sum + Math.exp(v - max), 0));
}
