/**
 * The one line of a sample's error worth printing beside a disagreement: the compiler's
 * first `error:` line when there is one (kotlinc and gcc print warnings first, e.g.
 * kotlinc's "language version 2.0 is deprecated"), else the first non-empty line.
 */

/**
 * @example
 * errorLine('warning: language version 2.0 is deprecated\nMain.kt:3:5: error: unresolved reference') // 'Main.kt:3:5: error: unresolved reference'
 */
export function errorLine(error: string | null | undefined): string {
  const lines = (error ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.find((l) => /(^|\s)error:/iu.test(l)) ?? lines[0] ?? '';
}
