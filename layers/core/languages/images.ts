/**
 * Executor images from language specs: one image per `executor.image` (the C++ image also
 * serves C), in the specs' order, its runner's Lambda memory the largest its languages ask for.
 * `EXECUTOR_IMAGES` (index.ts) applies it to the registry; infra (Lambda and Fargate lanes,
 * runner functions), scripts/bundle-images.mjs, layers/images/prebuild.ts and the tests all
 * read that one list.
 */
import type { LanguageSpec } from './spec.ts';

/**
 * Lambda memory of a judge (the execute function): it reads tests, sends programs to the
 * language's runner and compares outputs, running only checker programs itself (at most
 * 1,024 MB each, `CHECKER_LIMITS`). It hands its runner off and mostly waits on storage, so its
 * GB-seconds fall with its memory: sized from its measured peak plus a checker at its limit
 * (layers/app/cloud/function-memory.ts JUDGE_MEMORY; was 2,048).
 */
export const JUDGE_MEMORY_MB = 1280;

/**
 * A Fargate-lane task: a judge like the Lambda one (its runners are Lambda functions), with
 * 2 vCPU for several items' comparisons at once and the least memory Fargate pairs with them.
 */
export const FARGATE_TASK = { cpu: 2048, memoryMiB: 4096 } as const;

/** One executor image: its stage of `layers/images/Dockerfile` and its languages. */
export interface ExecutorImage {
  /** Stage name in `layers/images/Dockerfile` (`FROM base AS <id>`) and suffix of the queue and function ids. */
  id: string;
  /** Sample languages (`RunRecord.language`) routed to this image's queue. */
  languages: string[];
  /** Memory of the image's runner Lambda in MB, where programs compile and run (Kotlin's compile server needs a JVM heap). */
  memoryMb: number;
  /** Memory of the image's judge Lambda in MB: {@link JUDGE_MEMORY_MB}, or the runner's when smaller. */
  judgeMemoryMb: number;
}

/**
 * The images the specs name, first-named first.
 * @example
 * executorImages([cSpec, cppSpec]) // [{ id: 'cpp', languages: ['c', 'cpp'], memoryMb: 1769, judgeMemoryMb: 1280 }]
 */
export function executorImages(specs: readonly LanguageSpec[]): ExecutorImage[] {
  const images: ExecutorImage[] = [];
  for (const spec of specs) {
    const image = images.find((i) => i.id === spec.executor.image);
    if (image) {
      image.languages.push(spec.id);
      image.memoryMb = Math.max(image.memoryMb, spec.executor.memoryMb);
    } else {
      images.push({ id: spec.executor.image, languages: [spec.id], memoryMb: spec.executor.memoryMb, judgeMemoryMb: 0 });
    }
  }
  for (const image of images) image.judgeMemoryMb = Math.min(image.memoryMb, JUDGE_MEMORY_MB);
  return images;
}
