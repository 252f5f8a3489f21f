/**
 * The report's only script, `browser/report.js`: the sample browser (filter, page, open a
 * sample), written and linted as the browser code it is and embedded in the page as text.
 * The import is a text import: esbuild's text loader inlines the file in `dist/` and in the
 * Lambda bundles; under vitest a plugin (`vitest.config.ts`) and under `npm run bench` a
 * module hook (`bench/support/text-imports.mjs`) do the same.
 */
import script from './browser/report.js' with { type: 'text' };

/** Samples per embedded detail chunk (`<script type="application/gzip" id="pe-d-N">`). */
export const DETAIL_CHUNK = 250;
/** Rows per page of the list. */
export const PAGE_SIZE = 50;

/** The script's source, safe inside a `<script>` element (it never says `</script`). */
export const BROWSER_SCRIPT: string = script;
