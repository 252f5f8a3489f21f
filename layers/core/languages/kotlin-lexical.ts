/**
 * Lexical helpers of Kotlin's spec (the Kotlin HumanEval card's cleaning recipe): comments
 * removed outside literals, a repeated signature dropped, a completion closed at the brace
 * that ends its function. Lexical, not a parser.
 */

/**
 * Kotlin source with comments removed, lexically: `//` and (nested) `/* … *\/` outside string,
 * raw-string (`"""`) and char literals, string templates (`${…}`) included. A block comment
 * becomes a space, or the newlines it spanned, so tokens never merge and lines keep their numbers.
 */
export function stripKotlinComments(code: string): string {
  let out = '';
  let i = 0;
  /** Copies a string literal starting at `i` (on its opening quote), templates included. */
  const copyString = (): void => {
    const raw = code.startsWith('"""', i);
    const close = raw ? '"""' : '"';
    out += close;
    i += close.length;
    while (i < code.length) {
      if (!raw && code[i] === '\\') {
        out += code.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (code.startsWith(close, i)) {
        // A raw string may end with extra quotes: `""""` closes after the first of them.
        while (raw && code.startsWith('""""', i)) {
          out += '"';
          i++;
        }
        out += close;
        i += close.length;
        return;
      }
      if (code.startsWith('${', i)) {
        out += '${';
        i += 2;
        copyCode(true);
        continue;
      }
      out += code[i];
      i++;
    }
  };
  /** Copies code until the end, or until the `}` closing a template when `inTemplate`. */
  const copyCode = (inTemplate: boolean): void => {
    let depth = 0;
    while (i < code.length) {
      const c = code[i];
      if (code.startsWith('//', i)) {
        while (i < code.length && code[i] !== '\n') i++;
      } else if (code.startsWith('/*', i)) {
        let nest = 0;
        let newlines = '';
        do {
          if (code.startsWith('/*', i)) {
            nest++;
            i += 2;
          } else if (code.startsWith('*/', i)) {
            nest--;
            i += 2;
          } else {
            if (code[i] === '\n') newlines += '\n';
            i++;
          }
        } while (nest > 0 && i < code.length);
        out += newlines === '' ? ' ' : newlines;
      } else if (c === '"') {
        copyString();
      } else if (c === "'") {
        const m = /^'(\\u[0-9a-fA-F]{4}|\\.|[^\\'\n])'/.exec(code.slice(i, i + 8));
        const lit = m?.[0] ?? c;
        out += lit;
        i += lit.length;
      } else {
        if (inTemplate && c === '{') depth++;
        if (inTemplate && c === '}') {
          if (depth === 0) {
            out += c;
            i++;
            return;
          }
          depth--;
        }
        out += c;
        i++;
      }
    }
  };
  copyCode(false);
  return out;
}

/**
 * The Kotlin HumanEval cleaning recipe (card): remove comments, then drop a repeated
 * signature — when the answer starts again with a line beginning `fun ` (after blank, import
 * or annotation lines), keep what follows it. A signature spread over several lines is
 * dropped up to the line holding its `{`. Lines that held only a comment disappear.
 */
export function cleanKotlinCompletion(text: string): string {
  const stripped = stripKotlinComments(text);
  const before = text.split('\n');
  const lines = stripped.split('\n').filter((line, i) => {
    const original = before[i];
    return !(line.trim() === '' && original !== undefined && original.trim() !== '');
  });
  const first = lines.findIndex((l) => !/^\s*$|^\s*import\s|^\s*@/.test(l));
  if (first >= 0 && lines[first]?.startsWith('fun ') === true) {
    let open = first;
    while (open < lines.length - 1 && lines[open]?.includes('{') !== true) open++;
    return lines.slice(open + 1).join('\n');
  }
  return lines.join('\n');
}

/**
 * Keeps a Kotlin completion to the function it completes: appends the closing braces a
 * stop sequence removed (servers drop the stop text) and cuts anything after the brace that
 * closes the function (a model running on into its own `main`).
 */
export function closeKotlinFunction(completion: string): string {
  const code = stripKotlinComments(completion);
  let depth = 1;
  let inString: string | null = null;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (inString) {
      if (c === '\\') i++;
      else if (code.startsWith(inString, i)) {
        i += inString.length - 1;
        inString = null;
      }
      continue;
    }
    if (code.startsWith('"""', i)) {
      inString = '"""';
      i += 2;
    } else if (c === '"' || c === "'") inString = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return `${code.slice(0, i + 1)}\n`;
  }
  return `${code.replace(/\s+$/, '')}${'\n}'.repeat(depth)}\n`;
}
