/**
 * The executor images and the sample languages each one serves. One image per toolchain:
 * the C++ image (gcc/g++) also serves C. Adding a language = one entry here, one Dockerfile in
 * `layers/images/<image>/`, one runtime in `layers/sandbox/languages/`.
 */

/** One executor image: its build context folder under `layers/images/` and its languages. */
export interface ExecutorImage {
  /** Folder name under `layers/images/` and suffix of the queue and function ids. */
  id: string;
  /** Sample languages (`RunRecord.language`) routed to this image's queue. */
  languages: string[];
  /** Memory of the Lambda executor in MB (Kotlin's compile server needs a JVM heap). */
  memoryMb: number;
}

/** Executor images, in a fixed order so synth is deterministic. */
export const EXECUTOR_IMAGES: readonly ExecutorImage[] = [
  { id: 'python', languages: ['python'], memoryMb: 2048 },
  { id: 'cpp', languages: ['c', 'cpp'], memoryMb: 2048 },
  { id: 'kotlin', languages: ['kotlin'], memoryMb: 4096 },
  { id: 'java', languages: ['java'], memoryMb: 3072 },
  { id: 'javascript', languages: ['javascript'], memoryMb: 2048 },
];

/** `EXECUTE_QUEUE_URL_<LANGUAGE>` — the env var naming a language's Lambda execute queue. */
export function executeQueueEnvName(language: string, lane: 'lambda' | 'fargate'): string {
  const suffix = language.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return lane === 'lambda' ? `EXECUTE_QUEUE_URL_${suffix}` : `EXECUTE_FARGATE_QUEUE_URL_${suffix}`;
}
