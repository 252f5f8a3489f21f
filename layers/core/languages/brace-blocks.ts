/**
 * Lexical helpers for languages with C-like blocks (Java, JavaScript): comments and literals
 * blanked, braces counted, a completion closed at the brace that ends the prompt's open
 * blocks, and a repeated signature dropped. Lexical, not a parser: regular-expression
 * literals in JavaScript are not recognised (a `/` inside one that starts `//` or `/*` is
 * rare in function bodies and only shifts where a cut falls).
 */

/**
 * `code` with comments and string/char/template literals replaced by spaces (same length,
 * newlines kept), so that braces inside them never count.
 * @example
 * maskCFamily('f("{") // }') // 'f("   )     '.length === 11
 */
export function maskCFamily(code: string): string {
  const out = code.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (code.startsWith('//', i)) {
      const end = code.indexOf('\n', i);
      const stop = end < 0 ? code.length : end;
      blank(i, stop);
      i = stop;
    } else if (code.startsWith('/*', i)) {
      const end = code.indexOf('*/', i + 2);
      const stop = end < 0 ? code.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (code.startsWith('"""', i)) {
      // A Java text block.
      const end = code.indexOf('"""', i + 3);
      const stop = end < 0 ? code.length : end + 3;
      blank(i + 1, stop - 1);
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      let end = i + 1;
      // Template literals span lines; quoted strings end at the line's end at the latest.
      while (end < code.length && code[end] !== c && (c === '`' || code[end] !== '\n')) end += code[end] === '\\' ? 2 : 1;
      blank(i + 1, end);
      i = end + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** How many `{` the code leaves open (a prompt that ends inside a method body: 2 in Java). */
export function openBraces(code: string): number {
  let depth = 0;
  for (const ch of maskCFamily(code)) {
    if (ch === '{') depth++;
    else if (ch === '}' && depth > 0) depth--;
  }
  return depth;
}

/**
 * Keeps a completion to the blocks its prompt left open: cuts after the brace that closes
 * the last of them (a model running on into its own test or `main`), or appends the
 * closing braces a stop sequence removed (servers drop the stop text).
 * @example
 * closeBlocks('  return 1;\n}\nconsole.log(f())\n', 1) // '  return 1;\n}\n'
 */
export function closeBlocks(completion: string, open: number): string {
  if (open <= 0) return completion;
  const masked = maskCFamily(completion);
  let depth = open;
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] === '{') depth++;
    else if (masked[i] === '}' && --depth === 0) return `${completion.slice(0, i + 1)}\n`;
  }
  return `${completion.replace(/\s+$/u, '')}${'\n}'.repeat(depth)}\n`;
}

/**
 * Drops a repeated declaration: when the answer restates the prompt's signature (a chat
 * model rewriting the whole function, or class), and only `allowedBefore` lines (imports,
 * blank lines, a class header…) precede it, keeps what follows the `{` opening its body.
 * Otherwise the answer is returned unchanged.
 * @param isSignature whether a masked line declares the entry point
 * @param allowedBefore whether a line (as written) may precede the signature
 */
export function dropRepeatedSignature(answer: string, isSignature: (line: string) => boolean, allowedBefore: (line: string) => boolean): string {
  const masked = maskCFamily(answer);
  const lines = masked.split('\n');
  const originals = answer.split('\n');
  let offset = 0;
  for (const [n, line] of lines.entries()) {
    if (isSignature(line)) {
      const brace = masked.indexOf('{', offset);
      if (brace < 0) return answer;
      const rest = answer.slice(brace + 1);
      return rest.startsWith('\n') ? rest.slice(1) : rest;
    }
    // Comment lines are blank once masked; the others are judged as written (`'use strict'`).
    if (line.trim() !== '' && !allowedBefore(originals[n] ?? '')) return answer;
    offset += line.length + 1;
  }
  return answer;
}
