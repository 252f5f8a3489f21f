// Node module hooks for `npm run bench` (tsx runs the sources unbundled): a text import
// (`import script from './report.js' with { type: 'text' }`, as layers/core/report/browser-script.ts
// does) loads the file's text as the module's default export, as esbuild's text loader does in
// the bundles. Node itself has no `type: 'text'` (nodejs.org/api/module.html#customization-hooks:
// `resolve` may replace the import attributes, `load` may return any module source).
import { readFile } from 'node:fs/promises';
import { URL } from 'node:url';

const MARK = 'polyeval-text';

export async function resolve(specifier, context, next) {
  if (context.importAttributes?.type !== 'text') return next(specifier, context);
  const resolved = await next(specifier, { ...context, importAttributes: {} });
  const url = new URL(resolved.url);
  url.searchParams.set(MARK, '');
  return { url: url.href, importAttributes: {}, shortCircuit: true };
}

export async function load(url, context, next) {
  const parsed = new URL(url);
  if (!parsed.searchParams.has(MARK)) return next(url, context);
  parsed.search = '';
  return { format: 'module', source: `export default ${JSON.stringify(await readFile(parsed, 'utf8'))};`, shortCircuit: true };
}
