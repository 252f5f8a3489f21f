/**
 * Chat templates polyeval renders itself, for prompts that reach a model as raw text (the
 * likelihood mode's `/completions` echo, TGI's `inputs`), when asked with `--chat-template`:
 * the ABRICOT authors' lm-eval runs applied none (nothing in the paper or their task says
 * otherwise), so none is the default; a template changes the log-likelihood of a choice, and
 * this is how to measure by how much. Chat endpoints (next-token, digit-parse) apply the
 * served model's own template instead; the run's manifest says which applied.
 *
 * Each template renders the messages as the model's Hugging Face `tokenizer_config.json`
 * template does with `add_generation_prompt=True`, except the leading BOS token: servers add
 * it to every raw-text prompt themselves (vLLM `/v1/completions` tokenizes with
 * `add_special_tokens=True`; llama.cpp's server prepends BOS), so writing it would double it.
 *
 * @example
 * renderChat(CHAT_TEMPLATES['llama-3.1'], [{ role: 'user', content: 'Ciao' }]);
 * // '<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nCiao<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n'
 */
import type { ChatMessage } from '../models/index.ts';

/** The template names `--chat-template` takes; `none` flattens the turns (blank lines between them). */
export const CHAT_TEMPLATE_NAMES = ['none', 'llama-3.1', 'mistral-instruct-v0.2'] as const;
export type ChatTemplateName = (typeof CHAT_TEMPLATE_NAMES)[number];

export interface ChatTemplate {
  name: Exclude<ChatTemplateName, 'none'>;
  /** Where the rendering comes from (model repository and file). */
  source: string;
  /** The conversation up to where the model's answer starts. */
  render(messages: readonly ChatMessage[]): string;
  /** What separates the rendered conversation from a scored choice ("" or " "). */
  choiceDelimiter: string;
}

/**
 * meta-llama/Llama-3.1-8B-Instruct `tokenizer_config.json` `chat_template` (also 70B): a system
 * block always written (the knowledge cut-off and the template's default date "26 Jul 2024"
 * when no `date_string` is given), every message `<|start_header_id|>role<|end_header_id|>\n\n`
 * + content trimmed + `<|eot_id|>`, then the assistant header; the answer follows the header's
 * blank line directly, so a choice is appended with no space.
 */
const llama31: ChatTemplate = {
  name: 'llama-3.1',
  source: 'meta-llama/Llama-3.1-8B-Instruct tokenizer_config.json chat_template (no tools, default date_string)',
  render(messages) {
    const header = (role: string) => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
    let out = `${header('system')}Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>`;
    for (const m of messages) out += `${header(m.role)}${m.content.trim()}<|eot_id|>`;
    return out + header('assistant');
  },
  choiceDelimiter: '',
};

/**
 * Mistral 7B Instruct v0.2 as its models were trained: user turns as `[INST] content [/INST]`
 * (mistralai/Mistral-7B-Instruct-v0.2 `tokenizer_config.json` `chat_template`), assistant turns
 * as ` content</s>` — one space after `[/INST]`, as mistral-common encodes an answer (its own
 * SentencePiece chunk, word-initial `▁`) and as Mistral's tokenization guide writes the V1
 * layout ("[INST] user message [/INST] assistant message</s>"). The Hub template's literal
 * `[/INST]2</s>` is not what the model saw, and it would show the few-shot answers (`]2`)
 * unlike the scored choice (`] 4`), which is appended after the same one space.
 */
const mistral: ChatTemplate = {
  name: 'mistral-instruct-v0.2',
  source: 'mistralai/Mistral-7B-Instruct-v0.2 tokenizer_config.json chat_template, answers spaced as mistral-common encodes them',
  render(messages) {
    return messages.map((m) => (m.role === 'user' ? `[INST] ${m.content} [/INST]` : ` ${m.content}</s>`)).join('');
  },
  choiceDelimiter: ' ',
};

/** The templates by name (an explicit registry). */
export const CHAT_TEMPLATES: Readonly<Record<Exclude<ChatTemplateName, 'none'>, ChatTemplate>> = {
  'llama-3.1': llama31,
  'mistral-instruct-v0.2': mistral,
};

/** `messages` rendered by `template` (see {@link ChatTemplate.render}). */
export function renderChat(template: ChatTemplate, messages: readonly ChatMessage[]): string {
  return template.render(messages);
}

/** The template of a name, or undefined for `none`. */
export function chatTemplateOf(name: ChatTemplateName | undefined): ChatTemplate | undefined {
  return name === undefined || name === 'none' ? undefined : CHAT_TEMPLATES[name];
}
