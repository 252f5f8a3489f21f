/**
 * The executor images and the sample languages each one serves, from the language registry
 * (layers/core/languages): adding a language adds its image here without an edit.
 */
export { EXECUTOR_IMAGES, FARGATE_TASK, type ExecutorImage } from '../layers/core/languages/index.ts';

/** `EXECUTE_QUEUE_URL_<LANGUAGE>` — the env var naming a language's Lambda execute queue. */
export function executeQueueEnvName(language: string, lane: 'lambda' | 'fargate'): string {
  const suffix = language.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return lane === 'lambda' ? `EXECUTE_QUEUE_URL_${suffix}` : `EXECUTE_FARGATE_QUEUE_URL_${suffix}`;
}
