/**
 * A call's cost before it is made, for local runs, cloud workers and `--dry-run` alike:
 * prompt tokens estimated from the text the provider sends (chars/4), completion tokens at
 * max_tokens — an upper estimate the engine's cost guard reserves.
 */
import type { Prompt } from '#core/models/provider.ts';
import { promptText } from '#core/models/prompt-text.ts';
import type { RunContext } from '#core/run/engine.ts';
import { estimateTokens } from '#providers/index.ts';

/** Estimated tokens of a prompt: of the exact text a raw-text endpoint is sent. */
export function estimatePromptTokens(prompt: Prompt): number {
  return estimateTokens(promptText(prompt));
}

/** The projection the engine reserves before each call, from the run's cost function. */
export function projectionOf(costOf: NonNullable<RunContext['costOf']>): NonNullable<RunContext['projectCost']> {
  return (prompt, maxTokens, calls) => costOf({ promptTokens: estimatePromptTokens(prompt) * calls, completionTokens: maxTokens }) ?? 0;
}
