/**
 * Declared names per language family, for code-switching (RoCode paper §3.2): comments and
 * string literals blanked, then declaration patterns matched, so library names that are only
 * used (`heapq.heappush`, `printf`) never count. Lexical, not a parser. Each language's spec
 * points at its family's scanner and keywords.
 *
 * Longer than our usual file: the three declaration scanners (Python, Kotlin, C-like) share
 * the literal blanking and list helpers.
 */

/** Python's keywords (and soft keywords). */
export const PY_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except ' +
    'finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case'
  ).split(' '),
);
/** Kotlin's keywords (hard, soft and modifier words that read like names). */
export const KT_KEYWORDS = new Set(
  (
    'as break class continue do else false for fun if in interface is null object package return ' +
    'super this throw true try typealias typeof val var when while by catch constructor finally get set init it'
  ).split(' '),
);
const C_TYPES = new Set(
  (
    'int long short char float double void bool unsigned signed const static auto register volatile ' +
    'extern inline struct class enum union typename size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t ' +
    'uint32_t uint64_t ll ull FILE string vector map set multiset multimap unordered_map unordered_set pair tuple ' +
    'queue deque stack priority_queue list array bitset ifstream ofstream fstream istream ostream stringstream ' +
    'istringstream ostringstream std wchar_t'
  ).split(' '),
);
/** C and C++ keywords that are not types (also used for Java and JavaScript). */
export const C_KEYWORDS = new Set(
  (
    'if else for while do switch case default break continue return goto sizeof typedef new ' +
    'delete operator using namespace template public private protected friend virtual true false nullptr NULL ' +
    'throw try catch'
  ).split(' '),
);

/** Replaces comments and string/char literals with spaces (newlines kept). */
function blankLiterals(code: string, py: boolean): string {
  const pattern = py
    ? /#[^\n]*|[rRbBfFuU]{0,2}("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')/g
    : /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|^\s*#[^\n]*/gm;
  return code.replace(pattern, (m) => m.replace(/[^\n]/g, ' '));
}

/** Identifiers of a comma list such as `a, b=1, *c` (parameters, tuple targets). */
function namesInList(list: string, keywords: Set<string>): string[] {
  const names: string[] = [];
  let depth = 0;
  let part = '';
  const flush = (): void => {
    const m = /^\s*[*&]*\s*([\p{L}_][\p{L}\p{N}_]*)/u.exec(part);
    if (m?.[1] !== undefined && !keywords.has(m[1])) names.push(m[1]);
    part = '';
  };
  for (const ch of list) {
    if ('([{<'.includes(ch)) depth++;
    if (')]}>'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) flush();
    else part += ch;
  }
  flush();
  return names;
}

/** The text between the bracket at `open` and its match. */
function bracketed(code: string, open: number): string {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const opener = code[open] ?? '(';
  const closer = pairs[opener] ?? ')';
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === opener) depth++;
    if (code[i] === closer && --depth === 0) return code.slice(open + 1, i);
  }
  return code.slice(open + 1);
}

/** A declared name and whether it names a function or a variable (parameters are variables). */
export interface Declared {
  name: string;
  kind: 'function' | 'variable';
}

/** Collects names as variables, and (through `fn`) as functions. */
class Names {
  readonly all: Declared[] = [];
  push(...names: string[]): void {
    for (const name of names) this.all.push({ name, kind: 'variable' });
  }
  fn(name: string): void {
    this.all.push({ name, kind: 'function' });
  }
}

function pythonNames(code: string): Declared[] {
  const out = new Names();
  for (const m of code.matchAll(/\bdef\s+([\p{L}_][\p{L}\p{N}_]*)\s*\(/gu)) {
    out.fn(m[1] ?? '');
    out.push(...namesInList(bracketed(code, (m.index ?? 0) + m[0].length - 1), PY_KEYWORDS));
  }
  for (const m of code.matchAll(/\blambda\s+([^:]*):/g)) out.push(...namesInList(m[1] ?? '', PY_KEYWORDS));
  for (const m of code.matchAll(/\b(?:for|async\s+for)\s+\(?([^\n]*?)\)?\s+in\b/g)) out.push(...namesInList(m[1] ?? '', PY_KEYWORDS));
  for (const m of code.matchAll(/\bas\s+([\p{L}_][\p{L}\p{N}_]*)/gu)) {
    const before =
      code
        .slice(Math.max(0, (m.index ?? 0) - 200), m.index)
        .split('\n')
        .pop() ?? '';
    if (!/^\s*(import|from)\b/.test(before)) out.push(m[1] ?? '');
  }
  // Assignment targets at the start of a statement: `a = …`, `a, b = …`, `x += …`, `x: int = …`.
  for (const m of code.matchAll(
    /^[ \t]*([\p{L}_][\p{L}\p{N}_]*(?:\s*,\s*\*?[\p{L}_][\p{L}\p{N}_]*)*)\s*(?::[^=\n]+)?(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=(?!=)/gmu,
  )) {
    out.push(...namesInList(m[1] ?? '', PY_KEYWORDS));
  }
  for (const m of code.matchAll(/\(\s*([\p{L}_][\p{L}\p{N}_]*)\s*:=/gu)) out.push(m[1] ?? '');
  return out.all;
}

function kotlinNames(code: string): Declared[] {
  const out = new Names();
  for (const m of code.matchAll(/\bfun\s+(?:<[^>]*>\s*)?(?:[\p{L}_][\p{L}\p{N}_<>?,\s]*\.)?([\p{L}_][\p{L}\p{N}_]*)\s*\(/gu)) {
    out.fn(m[1] ?? '');
    for (const p of bracketed(code, (m.index ?? 0) + m[0].length - 1).matchAll(/(?:^|,)\s*(?:vararg\s+|val\s+|var\s+)?([\p{L}_][\p{L}\p{N}_]*)\s*:/gu)) {
      out.push(p[1] ?? '');
    }
  }
  for (const m of code.matchAll(/\b(?:val|var)\s+(?:([\p{L}_][\p{L}\p{N}_]*)|\(([^)]*)\))/gu)) {
    if (m[1] !== undefined) out.push(m[1]);
    else out.push(...namesInList((m[2] ?? '').replace(/:[^,]*/g, ''), KT_KEYWORDS));
  }
  for (const m of code.matchAll(/\bfor\s*\(\s*\(?([^)]*?)\)?\s+in\b/g)) out.push(...namesInList((m[1] ?? '').replace(/:[^,]*/g, ''), KT_KEYWORDS));
  for (const m of code.matchAll(/\{\s*(\(?[\p{L}_][\p{L}\p{N}_]*(?:\s*[,:]\s*[\p{L}_][\p{L}\p{N}_<>?]*)*\)?)\s*->/gu)) {
    out.push(...namesInList((m[1] ?? '').replace(/[()]/g, '').replace(/:[^,]*/g, ''), KT_KEYWORDS));
  }
  for (const m of code.matchAll(/\bcatch\s*\(\s*([\p{L}_][\p{L}\p{N}_]*)\s*:/gu)) out.push(m[1] ?? '');
  return out.all.filter((d) => !KT_KEYWORDS.has(d.name) && d.name !== '_');
}

/** C and C++: a declarator follows a type (builtin, std, or declared with struct/class/typedef/using). */
function cNames(code: string): Declared[] {
  const types = new Set(C_TYPES);
  for (const m of code.matchAll(/\b(?:struct|class|union|enum)\s+([A-Za-z_]\w*)/g)) types.add(m[1] ?? '');
  for (const m of code.matchAll(/\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;/g)) types.add(m[1] ?? '');
  for (const m of code.matchAll(/\busing\s+([A-Za-z_]\w*)\s*=/g)) types.add(m[1] ?? '');
  const tokens = [...code.matchAll(/[A-Za-z_]\w*|::|->|[^\sA-Za-z_]/g)].map((m) => m[0]);
  const out = new Names();
  // `name(` after a type is a function when its parentheses are followed by a body (or
  // `const`/`noexcept` then a body), or hold parameter declarations / nothing (a prototype);
  // otherwise it is a variable constructed with arguments (`vector<int> a(n);`).
  const isFunction = (open: number): boolean => {
    let depth = 0;
    let close = open;
    for (; close < tokens.length; close++) {
      if (tokens[close] === '(') depth++;
      if (tokens[close] === ')' && --depth === 0) break;
    }
    let after = close + 1;
    while (tokens[after] === 'const' || tokens[after] === 'noexcept' || tokens[after] === 'override') after++;
    if (tokens[after] === '{' || tokens[after] === '->') return true;
    const first = tokens[open + 1];
    return first === ')' || first === 'void' || types.has(first ?? '') || first === 'struct';
  };
  let i = 0;
  const skipTemplate = (): void => {
    if (tokens[i] !== '<') return;
    let depth = 0;
    do {
      if (tokens[i] === '<') depth++;
      if (tokens[i] === '>') depth--;
      i++;
    } while (depth > 0 && i < tokens.length);
  };
  while (i < tokens.length) {
    const prev = tokens[i - 1];
    if (!types.has(tokens[i] ?? '') || prev === '::' || prev === '.' || prev === '->') {
      i++;
      continue;
    }
    while (i < tokens.length && (types.has(tokens[i] ?? '') || tokens[i] === '::' || tokens[i] === '<')) {
      if (tokens[i] === '<') skipTemplate();
      else i++;
    }
    if (tokens[i - 1] === '::') continue; // `string::npos`: a qualified name, not a declaration
    // One or more declarators: `a = 1, *b[10], c`.
    for (;;) {
      while (tokens[i] === '*' || tokens[i] === '&') i++;
      if (tokens[i] === '[') {
        // structured binding: auto [x, y]
        i++;
        while (i < tokens.length && tokens[i] !== ']') {
          if (/^[A-Za-z_]/.test(tokens[i] ?? '')) out.push(tokens[i] ?? '');
          i++;
        }
        break;
      }
      const name = tokens[i] ?? '';
      if (!/^[A-Za-z_]\w*$/.test(name) || C_KEYWORDS.has(name) || types.has(name)) break;
      const next = tokens[i + 1];
      if (next === '::') break; // out-of-class definition or qualified call
      if (!['=', ';', ',', '(', '[', ')', '{', ':'].includes(next ?? '')) break;
      if (next === '(' && isFunction(i + 1)) out.fn(name);
      else out.push(name);
      i++;
      if (tokens[i] !== ',' && tokens[i] !== '=' && tokens[i] !== '[') break;
      let depth = 0; // skip the initializer / array size to the next top-level comma
      while (i < tokens.length) {
        const t = tokens[i];
        if (t === '(' || t === '[' || t === '{') depth++;
        if (t === ')' || t === ']' || t === '}') {
          if (depth === 0) break;
          depth--;
        }
        if ((t === ',' || t === ';') && depth === 0) break;
        i++;
      }
      if (tokens[i] !== ',') break;
      i++;
    }
  }
  return out.all;
}

/** Python's declared names (definitions, parameters, assignment and loop targets). */
export function pythonDeclarations(code: string): Declared[] {
  return pythonNames(blankLiterals(code, true));
}

/** Kotlin's declared names (functions, parameters, val/var, loop and lambda variables). */
export function kotlinDeclarations(code: string): Declared[] {
  return kotlinNames(blankLiterals(code, false));
}

/** Declared names of C-like code (C, C++; also Java and JavaScript): a declarator after a type. */
export function cDeclarations(code: string): Declared[] {
  return cNames(blankLiterals(code, false));
}
