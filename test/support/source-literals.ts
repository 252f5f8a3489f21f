/**
 * The string literals and property names of the project's TypeScript sources (comments and
 * JSDoc left out), read with the TypeScript compiler's parser: what the extension-point tests
 * scan for registrations of a benchmark or a provider outside its own file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface SourceLiteral {
  /** Path relative to the repository root. */
  file: string;
  line: number;
  text: string;
  /** An identifier property name (`{ reference: … }`) rather than a string. */
  property?: true;
}

/** Every `.ts` file under `dirs` (relative to `root`), as paths relative to `root`. */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      if (e.name === 'node_modules' || e.name === 'cdk.out' || e.name.startsWith('.')) return [];
      const path = join(dir, e.name);
      return e.isDirectory() ? walk(path) : e.name.endsWith('.ts') ? [relative(root, path)] : [];
    });
  return dirs.flatMap((d) => walk(join(root, d))).sort();
}

/** String literals, template pieces and identifier property names of one file. */
export function literalsOf(root: string, file: string): SourceLiteral[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: SourceLiteral[] = [];
  const add = (node: ts.Node, value: string, property = false): void => {
    out.push({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      text: value,
      ...(property ? { property: true as const } : {}),
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      add(node, node.text);
    else if ((ts.isPropertyAssignment(node) || ts.isPropertySignature(node) || ts.isShorthandPropertyAssignment(node)) && ts.isIdentifier(node.name))
      add(node.name, node.name.text, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
