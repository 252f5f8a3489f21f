/**
 * JavaScript (Node.js, CommonJS) in MXEval's format (MBJSP, HumanEval-JavaScript): the
 * prompt is a JSDoc comment and `function name(args) {`; the completion closes the function;
 * the test is top-level statements that `throw` on a wrong result, comparing with lodash's
 * `_.isEqual` (`const _ = require("lodash")`).
 */
import { closeBlocks, dropRepeatedSignature, openBraces } from './brace-blocks.ts';
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import { BRACE_STOPS, type LanguageSpec } from './spec.ts';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** JavaScript's spec. */
export const javascriptSpec: LanguageSpec = {
  id: 'javascript',
  aliases: ['javascript', 'js', 'node', 'nodejs', 'node.js', 'ecmascript'],
  fenceTags: ['javascript', 'js', 'node', 'nodejs', 'cjs', 'mjs', 'jsx'],
  codeStart:
    /^\s*(const\s|let\s|var\s|function[\s*]|async\s|class\s|return\b|if\s*\(|for\s*\(|while\s*\(|module\.exports|require\(|'use strict'|"use strict")/u,
  mxevalPrefixes: ['MBJSP', 'HumanEval_javascript', 'HumanEval-javascript'],
  stops: BRACE_STOPS,
  cleanCompletion(code, task) {
    const name = escape(task.entryPoint);
    // `function name(`, `async function name(`, `const name = (…) => {`, `const name = function (`;
    // never `let name = 1;` (a body may name a variable after its function).
    const signature = new RegExp(
      `^\\s*(?:export\\s+)?(?:(?:async\\s+)?function\\s*\\*?\\s*${name}\\s*\\(|(?:const|let|var)\\s+${name}\\s*=\\s*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*=>|[\\w$]+\\s*=>))`,
      'u',
    );
    const before = /^\s*(['"]use strict['"];?|(?:const|let|var)\s+\w+\s*=\s*require\([^)]*\);?)\s*$/u;
    const body = dropRepeatedSignature(
      code,
      (l) => signature.test(l),
      (l) => before.test(l),
    );
    return closeBlocks(body, openBraces(task.prompt));
  },
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  executor: { image: 'javascript', memoryMb: 2048 },
};
