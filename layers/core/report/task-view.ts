/**
 * What a person reading a sample needs to know about its task: the prompt exactly as the
 * model received it, and the task's own facts (ABRICOT: sentence, target word, gold; code:
 * limits, entry point, tests). Stored once per task (with sample 0) in the item document,
 * so the report can show it without the dataset.
 */
import type { Prompt } from '../models/provider.ts';
import type { Task } from '../types.ts';

export interface TaskView {
  /** The prompt as sent: completion text, or the system and messages with their roles. */
  prompt: string;
  fields: { label: string; value: string }[];
}

/** Characters kept of a task's longer texts (statements, test programs). */
const FIELD_CHARS = 4000;

const clip = (text: string): string => (text.length > FIELD_CHARS ? `${text.slice(0, FIELD_CHARS)}… (${text.length} characters)` : text);

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
export function taskView(task: Task, prompt: Prompt): TaskView {
  const fields: { label: string; value: string }[] = [];
  const add = (label: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') fields.push({ label, value: String(value) });
  };
  switch (task.kind) {
    case 'likert':
      add('subtask', task.subtask);
      add('sentence', task.text);
      add('target word', task.target);
      add('lemma', task.lemma);
      add('gold', task.gold);
      add('gold mean', task.goldMean);
      add('gold std', task.goldStd);
      break;
    case 'io-tests':
      add('file stem', task.name ?? 'none (stdin/stdout)');
      add('time limit', `${task.timeLimitMs} ms`);
      add('memory limit', `${task.memoryLimitMb} MB`);
      add('tests', task.tests.length);
      add('checker', task.checker.kind);
      break;
    case 'unit-tests':
      add('language', task.language);
      add('entry point', task.entryPoint);
      add('test program', clip(task.test));
      break;
    default: {
      const never: never = task;
      throw new Error(`unknown task kind ${(never as Task).kind}`);
    }
  }
  add('split', task.split);
  add('difficulty', task.difficulty);
  return { prompt: displayPrompt(prompt), fields };
}
