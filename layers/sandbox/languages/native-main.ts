/**
 * Finds the `main` a C or C++ unit test defines, whatever its form: `int main()`,
 * `int main(void)`, `int main(int argc, char* argv[])` (every MBCPP and HumanEval-C++ test),
 * `char** argv`, with `envp`, `signed main()`, `auto main() -> int`, after helper templates.
 *
 * The search runs on a masked copy of the source in which comments, string and character
 * literals and preprocessor lines are blanked (same length, newlines kept), so that braces
 * and parentheses inside them never count.
 */

/** Where the test's `main` is and how it is called. */
export interface NativeMain {
  /** How many parameters it declares: none, (argc, argv) or (argc, argv, envp). */
  params: 0 | 2 | 3;
  /** Offset of the `}` that closes its body. */
  bodyEnd: number;
}

/** Blanks comments, literals and preprocessor lines, keeping offsets and newlines. */
export function maskNative(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let lineStart = true;
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (lineStart && c === '#') {
      let end = i;
      while (end < source.length && (source[end] !== '\n' || source[end - 1] === '\\')) end++;
      blank(i, end);
      i = end;
      continue;
    }
    if (c !== ' ' && c !== '\t' && c !== '\r') lineStart = false;
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' && source[i - 1] === 'R' && /^[^\s()\\"]{0,16}\(/u.test(source.slice(i + 1, i + 18))) {
      // A raw string R"delim( … )delim".
      const open = source.indexOf('(', i);
      const delimiter = source.slice(i + 1, open);
      const end = source.indexOf(`)${delimiter}"`, open);
      const stop = end < 0 ? source.length : end + delimiter.length + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || (c === "'" && !/[0-9]/u.test(source[i - 1] ?? ''))) {
      let end = i + 1;
      while (end < source.length && source[end] !== c && source[end] !== '\n') end += source[end] === '\\' ? 2 : 1;
      blank(i, end + 1);
      i = end + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** The offset of the bracket closing the one at `open`, in masked text; -1 when unbalanced. */
function closing(masked: string, open: number): number {
  const o = masked[open];
  const c = o === '(' ? ')' : '}';
  let depth = 0;
  for (let k = open; k < masked.length; k++) {
    if (masked[k] === o) depth++;
    else if (masked[k] === c && --depth === 0) return k;
  }
  return -1;
}

/** How many parameters a parameter list declares (`()` and `(void)` declare none). */
function paramCount(list: string): number {
  const text = list.trim();
  if (text === '' || text === 'void') return 0;
  let depth = 0;
  let count = 1;
  for (const ch of text) {
    if ('(<['.includes(ch)) depth++;
    else if (')>]'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) count++;
  }
  return count;
}

/**
 * The global `main` defined in `source`, or undefined when there is none (or it takes a
 * parameter list no C/C++ entry point has).
 */
export function findNativeMain(source: string): NativeMain | undefined {
  const masked = maskNative(source);
  let depth = 0;
  for (let i = 0; i < masked.length; i++) {
    const ch = masked[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    if (depth !== 0 || ch !== 'm' || !masked.startsWith('main', i)) continue;
    if (/[\w.>:]/u.test(masked[i - 1] ?? '') || /\w/u.test(masked[i + 4] ?? '')) continue;
    const open = masked.slice(i + 4).search(/\S/u) + i + 4;
    if (masked[open] !== '(') continue;
    const close = closing(masked, open);
    if (close < 0) return undefined;
    // After the parameters: an optional trailing return type or specifiers, then the body.
    const rest = /^[^{};]*/u.exec(masked.slice(close + 1))?.[0] ?? '';
    const bodyStart = close + 1 + rest.length;
    if (masked[bodyStart] !== '{') continue; // a declaration or a call
    const bodyEnd = closing(masked, bodyStart);
    if (bodyEnd < 0) return undefined;
    const params = paramCount(masked.slice(open + 1, close));
    if (params !== 0 && params !== 2 && params !== 3) return undefined;
    return { params, bodyEnd };
  }
  return undefined;
}
