/**
 * The flat text of a prompt, for endpoints that take raw text (TGI `inputs`, OpenAI
 * `/completions`). A completion-style prompt is used verbatim; a chat prompt becomes its
 * system text and messages joined by blank lines — no chat template is applied, since
 * the harness cannot know the served model's.
 */
import type { Prompt } from '#core/models/provider.ts';

/** The prompt as one string. */
export function promptText(prompt: Prompt): string {
  if (prompt.completion !== undefined) return prompt.completion;
  const parts = prompt.system ? [prompt.system] : [];
  for (const m of prompt.messages) parts.push(m.content);
  return parts.join('\n\n');
}

/** Seed for sample `sample` when a base seed is set: distinct per sample, reproducible per run. */
export function sampleSeed(seed: number | undefined, sample: number): number | undefined {
  return seed === undefined ? undefined : seed + sample;
}
