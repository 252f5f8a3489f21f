/**
 * What a person reading a sample needs to know about its task: the prompt exactly as the
 * model received it, and the task's own facts as its scorer names them (ABRICOT: sentence,
 * target word, gold; code: limits, entry point, tests). Stored once per task (with sample 0) in the item document,
 * so the report can show it without the dataset.
 */
import type { Prompt } from '../models/index.ts';
import { scorerOf, type Scorer } from '../scorers/index.ts';
import type { Task } from '../types.ts';

export interface TaskView {
  /** The prompt as sent: completion text, or the system and messages with their roles. */
  prompt: string;
  fields: { label: string; value: string }[];
}

/** The prompt as a person reads it: each part under its role. */
export function displayPrompt(prompt: Prompt): string {
  if (prompt.style === 'completion' && prompt.completion !== undefined) return prompt.completion;
  const parts = prompt.system ? [`[system]\n${prompt.system}`] : [];
  for (const m of prompt.messages) parts.push(`[${m.role}]\n${m.content}`);
  return parts.join('\n\n');
}

/**
 * @example
 * taskView(abricotTask, prompt).fields // [{ label: 'sentence', value: 'Ho acceso la lampada…' }, …]
 */
export function taskView(task: Task, prompt: Prompt, scorer: Scorer = scorerOf(task)): TaskView {
  const fields: { label: string; value: string }[] = [];
  const add = (label: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') fields.push({ label, value: String(value) });
  };
  for (const [label, value] of scorer.viewFields(task)) add(label, value);
  add('split', task.split);
  add('difficulty', task.difficulty);
  return { prompt: displayPrompt(prompt), fields };
}
