/**
 * Likert choices from the next-token distributions of a short greedy answer (chat `logprobs:
 * true, top_logprobs: k`, TGI `top_n_tokens`). Each choice's log-probability is the
 * log-sum-exp of the ways the answer can spell it:
 *
 * - the first generated position's top-k entries that spell it with or without one leading
 *   space ("3" and " 3": tokenisers differ on which follows a chat template);
 * - when the greedy answer starts with whitespace-only tokens — SentencePiece models (Llama 2,
 *   Mistral v0.1–v0.3) answer " 4" as `▁` then `4`, since no `▁4` token exists in their
 *   vocabularies (Mistral's tokenization guide: the instruct models always output a token
 *   that starts with a whitespace) — the log-probability of that lead-in plus the choice's
 *   entry at the first position after it. Reading only the first position would read the
 *   stray no-space digits that share the top-k with `▁`, never the answer.
 *
 * Position 1's distribution is conditional on the lead-in chosen at position 0, so
 * P(answer is "4") = P("4" at 0) + P(lead-in at 0) · P("4" | lead-in): the log-sum-exp above is
 * that sum, exact up to the top-k cut. Only the greedy path is generated: when the greedy first
 * token is the digit itself, the ways through a whitespace alternative at position 0 (`▁` then
 * a digit) are never seen and the first position alone is read — every choice loses that
 * unseen mass alike, the greedy digit stays ahead.
 *
 * A choice absent from the position read is given a floor there: the lowest top-k
 * log-probability at that position (plus its lead-in) minus ln 2 (the missing token is at most
 * as likely as the k-th; taking half of that keeps any observed choice ahead of it). A choice
 * seen only as a stray digit before the lead-in gets the stray plus that floor, so it never
 * ranks below a choice seen nowhere. Which choices were seen nowhere (floored) is recorded with
 * the sample.
 */
import { tokenBytes } from './token-bytes.ts';

/** One alternative of the next token, as servers report it. */
export interface TopLogprob {
  token: string;
  logprob: number;
}

/** One generated position: the token the server chose, its log-probability, and its top-k alternatives. */
export interface GeneratedPosition {
  token: string;
  logprob: number;
  top: readonly TopLogprob[];
}

export interface NextTokenScores {
  logprobs: number[];
  /** Indexes of the choices given the floor. */
  floored: number[];
  floor: number;
  /** The position whose distribution gives the answer's first real token (0 unless a whitespace lead-in came first). */
  read: number;
  /** How many choices are among the top-k at the position read (strays before a lead-in not counted). */
  digitsAtRead: number;
}

/** How many tokens a next-token call asks for: the answer's first real token after up to two whitespace-only tokens. */
export const NEXT_TOKEN_POSITIONS = 3;

const decoder = new TextDecoder();

function textOf(token: string): string {
  const bytes = tokenBytes(token);
  return bytes === null ? '' : decoder.decode(bytes);
}

/**
 * The position the answer's first real token is read at: the first generated token that is
 * not whitespace only (a special token or an empty string counts as whitespace), else the
 * last position returned.
 */
export function answerPosition(positions: readonly GeneratedPosition[]): number {
  for (let i = 0; i < positions.length; i++) if (textOf((positions[i] as GeneratedPosition).token).trim() !== '') return i;
  return Math.max(0, positions.length - 1);
}

/**
 * @example
 * nextTokenScores([{ token: '3', logprob: -0.7 }, { token: ' 3', logprob: -1.2 }, { token: '4', logprob: -2 }], ['1', '2', '3', '4', '5'])
 * // logprobs[2] = log(e^-0.7 + e^-1.2); "1", "2", "5" floored at -2 - ln 2
 */
export function nextTokenScores(top: readonly TopLogprob[], choices: readonly string[]): NextTokenScores {
  return answerTokenScores([{ token: '', logprob: 0, top }], choices, 0);
}

/**
 * The choices' scores from the positions of a greedy answer, read up to the answer's first
 * real token ({@link answerPosition}); `read` overrides that position (0: the first only).
 *
 * @example
 * // Mistral answering " 4" as ▁ then 4, with a stray "2" beside ▁:
 * answerTokenScores([
 *   { token: ' ', logprob: -0.05, top: [{ token: ' ', logprob: -0.05 }, { token: '2', logprob: -4 }] },
 *   { token: '4', logprob: -0.1, top: [{ token: '4', logprob: -0.1 }, { token: '3', logprob: -3 }] },
 * ], [' 1', ' 2', ' 3', ' 4', ' 5']);
 * // "4" ≈ -0.15 wins; "2" is only the stray -4
 */
export function answerTokenScores(positions: readonly GeneratedPosition[], choices: readonly string[], read = answerPosition(positions)): NextTokenScores {
  const last = Math.min(read, positions.length - 1);
  const paths: number[][] = choices.map(() => []);
  const atRead: boolean[] = choices.map(() => false);
  let prefix = 0;
  let floor = -100;
  for (let i = 0; i <= last; i++) {
    const position = positions[i] as GeneratedPosition;
    const finite = position.top.filter((t) => Number.isFinite(t.logprob));
    choices.forEach((raw, index) => {
      const choice = raw.trim();
      for (const t of finite) {
        const text = textOf(t.token);
        if (text === choice || text === ` ${choice}`) {
          paths[index]?.push(prefix + t.logprob);
          if (i === last) atRead[index] = true;
        }
      }
    });
    if (i === last) floor = prefix + (finite.length > 0 ? Math.min(...finite.map((t) => t.logprob)) : -100) - Math.LN2;
    prefix += position.logprob;
  }
  const floored: number[] = [];
  const logprobs = paths.map((found, index) => {
    if (found.length === 0) {
      floored.push(index);
      return floor;
    }
    return logSumExp(atRead[index] ? found : [...found, floor]);
  });
  return { logprobs, floored, floor, read: last, digitsAtRead: atRead.filter(Boolean).length };
}

function logSumExp(values: readonly number[]): number {
  const max = Math.max(...values);
  return max + Math.log(values.reduce((sum, v) => sum + Math.exp(v - max), 0));
}

const PROBE_CHOICES = ['1', '2', '3', '4', '5'];

/**
 * Why next-token scoring cannot be trusted on this server, or undefined when it can: the
 * probe's answer must show a digit 1–5 among the top-k at the position scoring will read
 * (else every choice would be floored and the prediction would be noise).
 *
 * @example
 * nextTokenDistrust([{ token: 'Il', logprob: -0.1, top: [{ token: 'Il', logprob: -0.1 }, { token: 'La', logprob: -2 }] }]);
 * // 'no digit 1–5 among the top 2 alternatives of the answer\'s first real token (position 0, "Il")…'
 */
export function nextTokenDistrust(positions: readonly GeneratedPosition[]): string | undefined {
  const scores = answerTokenScores(positions, PROBE_CHOICES);
  // The position read, not a stray digit beside a lead-in: scores come from there.
  if (scores.digitsAtRead > 0) return undefined;
  const at = positions[scores.read] as GeneratedPosition;
  return `no digit 1–5 among the top ${at.top.length} alternatives of the answer's first real token (position ${scores.read}, ${JSON.stringify(textOf(at.token))}): next-token scores would all be guesses`;
}
