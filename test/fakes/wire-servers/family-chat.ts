/**
 * A chat answer generated as a model of a real tokenizer family generates it, for the fakes'
 * chat routes (and TGI's `top_n_tokens`): the answer's token ids (real-tokenizers.ts
 * `encodeAnswer`: Mistral's " 4" is `▁` then `4`), each position's log-probability and its
 * top-k alternatives drawn from single tokens of that vocabulary, every token spelled as the
 * server spells it:
 *
 * - `decoded` — vLLM's chat `logprobs` (vllm/entrypoints/openai/serving_chat.py, later
 *   chat_completion/serving.py: `_create_chat_logprobs` and `_get_top_logprobs` spell every
 *   token through `_get_decoded_token`, the Logprob's `decoded_token` or else
 *   `tokenizer.decode(token_id)`: one id at a time, as for completions; real-tokenizers.ts
 *   `TokenStrings`): a lone SentencePiece `▁` decodes to "".
 * - `text` — the token's text as a piece: llama.cpp (tools/server/server-task.cpp
 *   `completion_token_output::probs_vector_to_json`: the chosen token's `text_to_send`, each
 *   alternative's piece text, SentencePiece `▁` written as a space), Ollama, which passes
 *   llama-server's strings on (ollama/ollama@fb30760 llm/llama_server.go `convertLogprobs`), and
 *   TGI (router/src/lib.rs `Token.text`, the token decoded in its context): `▁` is " ".
 */
import { describeTokens, encodeAnswer, encodeText, tokenText, type TokenizerName } from './real-tokenizers.ts';
import type { LogprobFn } from './tokenize.ts';

export type ChatSpelling = 'decoded' | 'text';

export interface FamilyPosition {
  /** The token as the server spells it. */
  token: string;
  /** Its text in context. */
  text: string;
  logprob: number;
  top: { token: string; text: string; logprob: number }[];
}

/** Texts whose single tokens stand as next-token alternatives: the digits, a space, a newline, words. */
const CANDIDATE_TEXTS = ['1', '2', '3', '4', '5', '\n', 'Il', 'La'];

const candidateCache = new Map<TokenizerName, number[]>();

/** Single-token candidates of a vocabulary: each text's last token, and the lone space (`▁`, `Ġ`). */
function candidates(name: TokenizerName): number[] {
  let ids = candidateCache.get(name);
  if (!ids) {
    const space = encodeAnswer(name, ' 4')[0] as number;
    ids = [...new Set([space, ...CANDIDATE_TEXTS.map((t) => encodeText(name, t).at(-1) as number)])];
    candidateCache.set(name, ids);
  }
  return ids;
}

function spell(name: TokenizerName, id: number, spelling: ChatSpelling): string {
  return spelling === 'text' ? tokenText(name, id) : (describeTokens(name, [id], 'decoded')[0]?.reported ?? '');
}

/**
 * The answer's first `max` tokens after `context` (the conversation's text), with their
 * log-probabilities from `logprob` and each position's best `k` alternatives.
 *
 * @example
 * familyChat('mistral-v3', 'Risposta:\n\n', ' 4', 3, 5, model, 'text'); // tokens " " then "4"
 */
export function familyChat(
  name: TokenizerName,
  context: string,
  answer: string,
  max: number,
  k: number,
  logprob: LogprobFn,
  spelling: ChatSpelling,
  /** How the alternatives are spelled, when not as the chosen tokens (TGI decodes them one id at a time). */
  topSpelling: ChatSpelling = spelling,
): { ids: number[]; positions: FamilyPosition[]; finish: 'stop' | 'length' } {
  const all = encodeAnswer(name, answer);
  const ids = all.slice(0, max);
  let before = context;
  const positions = ids.map((id) => {
    const text = tokenText(name, id);
    const top = candidates(name)
      .map((c) => ({ token: spell(name, c, topSpelling), text: tokenText(name, c), logprob: logprob(before, tokenText(name, c)) }))
      .sort((a, b) => b.logprob - a.logprob)
      .slice(0, k);
    const position = { token: spell(name, id, spelling), text, logprob: logprob(before, text), top };
    before += text;
    return position;
  });
  return { ids, positions, finish: ids.length < all.length ? 'length' : 'stop' };
}
