// DESIGN §2's claim as a test: what varies by scorer kind is declared by the kind's own file
// in layers/core/scorers/, so no other source compares a value with a scorer kind's id
// (`task.kind === 'likert'`, `benchmark.scorer !== 'io-tests'`, `case 'unit-tests':`).
// Read with the TypeScript parser, so comments and strings that merely name a kind pass.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SCORERS } from '#core/scorers/index.ts';
import { sourceFiles } from '../../support/source-literals.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const SCORER_DIR = 'layers/core/scorers/';
const SCANNED = ['layers', 'functions', 'bin', 'infra', 'bench'];
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** `file:line text` of every comparison with, or `case` on, one of `kinds` in a source text. */
function kindBranches(file: string, text: string, kinds: ReadonlySet<string>): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const isKind = (node: ts.Node): boolean => ts.isStringLiteralLike(node) && kinds.has(node.text);
  const report = (node: ts.Node): void => {
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.getText(source)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind) && (isKind(node.left) || isKind(node.right))) report(node);
    if (ts.isCaseClause(node) && isKind(node.expression)) report(node.expression);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('scorer kinds', () => {
  const kinds = new Set<string>(SCORERS.map((s) => s.id));

  it('are the three the design names', () => {
    expect([...kinds]).toEqual(['io-tests', 'unit-tests', 'likert']);
  });

  it('are branched on only in their own files', () => {
    const files = sourceFiles(ROOT, SCANNED).filter((f) => !f.startsWith(SCORER_DIR) && !f.includes('/bundle/'));
    expect(files.length).toBeGreaterThan(100);
    const branches = files.flatMap((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      // Parse only what names a kind at all (the parser is the slow part).
      return [...kinds].some((k) => text.includes(k)) ? kindBranches(f, text, kinds) : [];
    });
    expect(branches).toEqual([]);
  });

  it('flags a comparison and a case on a kind, and passes a kind named in a string or comment', () => {
    const text = [
      "if (task.kind === 'likert') run();",
      "const x = 'io-tests' !== benchmark.scorer;",
      "switch (k) { case 'unit-tests': break; }",
      "const label = 'likert'; // task.kind === 'likert'",
      "if (checker.kind === 'program') run();",
    ].join('\n');
    expect(kindBranches('x.ts', text, kinds)).toEqual(["x.ts:1 task.kind === 'likert'", "x.ts:2 'io-tests' !== benchmark.scorer", "x.ts:3 'unit-tests'"]);
  });
});
