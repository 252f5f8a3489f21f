/**
 * Python 3: RoCode's default language and MXEval-format Python files, whose completions stop
 * at HumanEval's stops (a new top-level `def`, `class`, `if __name__`, `print(`, `#`).
 */
import { PY_KEYWORDS, pythonDeclarations } from './identifiers.ts';
import type { LanguageSpec } from './spec.ts';

/** HumanEval's stops for Python completions. */
const PYTHON_STOPS = ['\ndef ', '\nclass ', '\nif __name__', '\nprint(', '\n#'];

/** Python's spec. */
export const pythonSpec: LanguageSpec = {
  id: 'python',
  aliases: ['python', 'python3', 'py', 'py3'],
  aliasPattern: /^py/,
  fenceTags: ['python', 'python3', 'py', 'py3'],
  codeStart:
    /^\s*(async\s|match\s|case\s|import\s|global\s|nonlocal\s|assert\s|raise\s|yield\s|from\s+\S+\s+import|def\s|class\s|if\s|elif\s|else\s*:|finally\s*:|for\s|while\s|with\s|try\s*:|except|return\b|print\s*\(|#!|@)/,
  mxevalPrefixes: [],
  stops: PYTHON_STOPS,
  // The stop itself is kept by the cut: it belongs to what follows the function.
  cleanCompletion: (code) => code.replace(/(\ndef |\nclass |\nif __name__|\nprint\(|\n#)$/, ''),
  declarations: pythonDeclarations,
  keywords: PY_KEYWORDS,
  executor: { image: 'python', memoryMb: 1769, samplesPerRunnerInvocation: 2.59 }, // from measured peaks: layers/app/cloud/function-memory.ts RUNNER_MEMORY
  // samples per invocation: `npm run bench cloud-scale -- --items 10000 --language python --detail` at generate's default batch of 12, 3,867 runner invocations (2026-12-07)
};
