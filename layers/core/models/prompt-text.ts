/** The text a prompt sends, for token estimates: the completion text, or system + messages. */
import type { Prompt } from './provider.ts';

export function promptText(p: Prompt): string {
  return p.completion ?? [p.system ?? '', ...p.messages.map((m) => m.content)].join('\n');
}
