/**
 * The report's sample browser section: filters (verdict, language, slice, task), a paged
 * list, and a detail pane per sample (prompt, raw answer, extracted program, compile output,
 * per-test verdict/time/memory with input, expected and actual output around the first
 * difference; ABRICOT: the five log-likelihoods).
 *
 * The page stays one offline file that opens on its answer: the section's markup sits in page
 * order, while its data ({@link sampleBrowserData}) goes at the end of the body, after every
 * section, as gzip-compressed base64 blocks the browser inflates with `DecompressionStream`
 * after the first paint — details in chunks, inflated when a sample of theirs is opened.
 */
import { gzipSync } from 'node:zlib';
import type { ItemDocument } from '../run/index.ts';
import { BROWSER_SCRIPT, DETAIL_CHUNK, PAGE_SIZE } from './browser-script.ts';
import { sampleData } from './sample-data.ts';

export const BROWSER_CSS = `[hidden]{display:none!important}
#pe-filters{display:flex;flex-wrap:wrap;gap:.5rem 1.2rem;align-items:center;margin:.5rem 0}
#pe-filters label{display:flex;gap:.3rem;align-items:center}#pe-rows tr{cursor:pointer}#pe-rows tr:hover,#pe-rows tr.open{background:#eef4f4}
#pe-rows td.err{color:#555;font-family:ui-monospace,monospace;font-size:12px;max-width:28rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#pe-detail{border:1px solid #cdd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0;background:#fbfdfd}
#pe-detail h3{margin:.3rem 0;display:inline-block}#pe-close{float:right}#pe-detail dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}
#pe-detail dt{color:#555}#pe-detail dd{margin:0;white-space:pre-wrap}#pe-detail pre{background:#f4f6f6;padding:.5rem;overflow:auto;max-height:24rem;white-space:pre-wrap;word-break:break-word}
.io-grid{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.5rem}.io h5{margin:.2rem 0;font-weight:500;color:#555}
mark{background:#fc6;outline:1px solid #c80}.muted{color:#777}#pe-likert tr.pred td{font-weight:600}`;

/** A value as gzip-compressed JSON in base64: text that is safe inside a `<script>` element. */
export function packedJson(value: unknown): string {
  return gzipSync(JSON.stringify(value)).toString('base64');
}

/** The `<script>` element that carries one packed block (not run: its type is not JavaScript). */
const dataBlock = (id: string, value: unknown): string => `<script type="application/gzip" id="${id}">${packedJson(value)}</script>`;

/** The section's markup, in page order: the filters, list and detail pane the script fills. */
export function sampleBrowser(): string {
  return `<div id="pe-browser" data-chunk="${DETAIL_CHUNK}" data-page="${PAGE_SIZE}" hidden>
<form id="pe-filters" onsubmit="return false">
<label>verdict <select id="pe-f-verdict"><option value="">all</option></select></label>
<label>language <select id="pe-f-language"><option value="">all</option></select></label>
<label>slice <select id="pe-f-slice"><option value="">all</option></select></label>
<label>task <input id="pe-f-task" type="search" placeholder="task id contains…"></label>
<span id="pe-count"></span>
</form>
<div id="pe-detail" hidden></div>
<table><thead><tr><th>task</th><th>sample</th><th>language</th><th>verdict</th><th>score</th><th>slices</th><th>detail</th></tr></thead><tbody id="pe-rows"></tbody></table>
<p><button type="button" id="pe-prev">‹ previous</button> <span id="pe-page"></span> <button type="button" id="pe-next">next ›</button></p>
</div>
<p id="pe-loading" class="muted" hidden>Loading the samples…</p>`;
}

/** The section's data and script, for the end of the body: index, task views, detail chunks. */
export function sampleBrowserData(docs: readonly ItemDocument[]): string {
  const data = sampleData(docs);
  const blocks = [dataBlock('pe-index', data.index), dataBlock('pe-tasks', data.tasks)];
  for (let i = 0; i * DETAIL_CHUNK < data.details.length; i++) {
    blocks.push(dataBlock(`pe-d-${i}`, data.details.slice(i * DETAIL_CHUNK, (i + 1) * DETAIL_CHUNK)));
  }
  return `${blocks.join('\n')}\n<script>${BROWSER_SCRIPT}</script>`;
}
