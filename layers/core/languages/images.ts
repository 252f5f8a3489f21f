/**
 * Executor images from language specs: one image per `executor.image` (the C++ image also
 * serves C), in the specs' order, its Lambda memory the largest its languages ask for.
 * `EXECUTOR_IMAGES` (index.ts) applies it to the registry; infra (Lambda and Fargate lanes,
 * runner functions), scripts/bundle-images.mjs, layers/images/prebuild.ts and the tests all
 * read that one list.
 */
import type { LanguageSpec } from './spec.ts';

/** One executor image: its build context folder under `layers/images/` and its languages. */
export interface ExecutorImage {
  /** Folder name under `layers/images/` and suffix of the queue and function ids. */
  id: string;
  /** Sample languages (`RunRecord.language`) routed to this image's queue. */
  languages: string[];
  /** Memory of the Lambda executor in MB (Kotlin's compile server needs a JVM heap). */
  memoryMb: number;
}

/**
 * The images the specs name, first-named first.
 * @example
 * executorImages([cSpec, cppSpec]) // [{ id: 'cpp', languages: ['c', 'cpp'], memoryMb: 2048 }]
 */
export function executorImages(specs: readonly LanguageSpec[]): ExecutorImage[] {
  const images: ExecutorImage[] = [];
  for (const spec of specs) {
    const image = images.find((i) => i.id === spec.executor.image);
    if (image) {
      image.languages.push(spec.id);
      image.memoryMb = Math.max(image.memoryMb, spec.executor.memoryMb);
    } else {
      images.push({ id: spec.executor.image, languages: [spec.id], memoryMb: spec.executor.memoryMb });
    }
  }
  return images;
}
