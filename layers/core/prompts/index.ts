/** The benchmarks' prompts in their published forms (ABRICOT, RoCode, Kotlin HumanEval), and the chat templates polyeval renders itself. */
export {
  ABRICOT_SUBTASKS,
  TARGET_DELIMITER,
  abricotAuthorsPrompt,
  abricotCalamitaPrompt,
  abricotHarnessPrompt,
  abricotPaperPrompt,
  fewShotText,
  type AbricotSubtask,
} from './abricot-prompts.ts';
export { CHAT_TEMPLATE_NAMES, chatTemplateOf, type ChatTemplateName } from './chat-templates.ts';
export { KOTLIN_RECIPE, cardCompletion } from './kotlin.ts';
export { ROCODE_HUMAN_LANGUAGES, ROCODE_LANGUAGES, ROCODE_RECIPE, buildRocodePrompt, type RocodeLanguage } from './rocode-prompt.ts';
