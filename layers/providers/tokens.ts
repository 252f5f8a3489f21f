/**
 * Token estimate for `--dry-run` and for servers that report no usage: one token per four
 * characters, rounded up — OpenAI's rule of thumb for English; Romanian and Italian text
 * and code tokenise somewhat denser, so treat it as a planning figure, not a bill.
 */
export const CHARS_PER_TOKEN = 4;

/** ceil(chars / 4); 0 for the empty string. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
