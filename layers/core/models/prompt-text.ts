/**
 * The flat text of a prompt: what endpoints that take raw text are sent (TGI `inputs`,
 * OpenAI `/completions`, Bedrock's single user turn) and what token estimates are made from,
 * so a cost estimate sees exactly the text a real call sends. A completion-style prompt is
 * used verbatim; a chat prompt becomes its system text and messages joined by blank lines —
 * no chat template is applied, since the harness cannot know the served model's.
 */
import type { Prompt } from './provider.ts';

/**
 * The prompt as one string.
 * @example
 * promptText({ style: 'chat', system: 'Be brief.', messages: [{ role: 'user', content: '2+2?' }] }); // 'Be brief.\n\n2+2?'
 */
export function promptText(prompt: Prompt): string {
  if (prompt.completion !== undefined) return prompt.completion;
  const parts = prompt.system ? [prompt.system] : [];
  for (const m of prompt.messages) parts.push(m.content);
  return parts.join('\n\n');
}
