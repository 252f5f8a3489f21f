/*
 * The HTML report's only script: the sample browser (filter, page, open a sample). Plain
 * ES2020 for a file:// page with no network; `layers/core/report/browser-script.ts` embeds this
 * file's text in the page (esbuild's text loader). Every text that came from a model or a
 * dataset is inserted with `textContent`, never as HTML, so a hostile answer cannot script the
 * report. The data blocks are gzip-compressed base64 (`sample-browser.ts`): the script starts
 * after the page's first paint, inflates the index and task views with the browser's own
 * `DecompressionStream`, and inflates a detail chunk only when a sample of it is opened.
 */
(() => {
  'use strict';
  // Samples per detail chunk and rows per page, as the page's generator set them.
  const CHUNK = Number(document.getElementById('pe-browser').dataset.chunk);
  const PAGE = Number(document.getElementById('pe-browser').dataset.page);
  const $ = (id) => document.getElementById(id);
  const inflate = async (id) => {
    const text = atob($(id).textContent);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  };
  let index = [],
    tasks = {};
  const chunks = new Map();
  const detail = async (i) => {
    const c = Math.floor(i / CHUNK);
    if (!chunks.has(c)) chunks.set(c, inflate('pe-d-' + c));
    return (await chunks.get(c))[i - c * CHUNK];
  };
  const el = (tag, props, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === 'text') e.textContent = v;
      else if (k === 'cls') e.className = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  };
  const count = (values) => {
    const m = new Map();
    for (const v of values) m.set(v, (m.get(v) || 0) + 1);
    return [...m].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  };
  const fill = (select, pairs) => {
    for (const [value, n] of pairs) select.append(el('option', { value, text: value + ' (' + n + ')' }));
  };
  const ORDER = ['OK', 'WA', 'TLE', 'MLE', 'OLE', 'RE', 'CE', 'SE'];
  let rows = [],
    page = 0,
    open = -1;
  const apply = () => {
    const v = $('pe-f-verdict').value,
      l = $('pe-f-language').value,
      s = $('pe-f-slice').value;
    const t = $('pe-f-task').value.trim().toLowerCase();
    rows = [];
    index.forEach((r, i) => {
      if (v && r[3] !== v) return;
      if (l && r[2] !== l) return;
      if (s && !r[6].includes(s)) return;
      if (t && !r[0].toLowerCase().includes(t)) return;
      rows.push(i);
    });
    page = 0;
    render();
  };
  const render = () => {
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    page = Math.min(page, pages - 1);
    $('pe-count').textContent = rows.length + ' of ' + index.length + ' samples';
    $('pe-page').textContent = 'page ' + (page + 1) + ' of ' + pages;
    $('pe-prev').disabled = page === 0;
    $('pe-next').disabled = page >= pages - 1;
    const body = $('pe-rows');
    body.replaceChildren(
      ...rows.slice(page * PAGE, page * PAGE + PAGE).map((i) => {
        const r = index[i];
        const score = r[8] !== null || r[9] !== null ? 'pred ' + (r[8] === null ? '—' : r[8]) + ' / gold ' + (r[9] === null ? '—' : r[9]) : r[4] + '/' + r[5];
        const tr = el(
          'tr',
          { 'data-i': String(i), tabindex: '0', cls: i === open ? 'open' : '' },
          el('td', { text: r[0] }),
          el('td', { cls: 'num', text: String(r[1]) }),
          el('td', { text: r[2] }),
          el('td', { cls: 'v-' + r[3], text: r[3] }),
          el('td', { cls: 'num', text: score }),
          el('td', { text: r[6].join(' ') }),
          el('td', { cls: 'err', text: r[7] }),
        );
        tr.addEventListener('click', () => show(i));
        tr.addEventListener('keydown', (e) => {
          if (e.key === 'Enter') show(i);
        });
        return tr;
      }),
    );
  };
  const size = (bytes) => (bytes < 1024 ? bytes + ' B' : bytes < 1048576 ? (bytes / 1024).toFixed(1) + ' KiB' : (bytes / 1048576).toFixed(1) + ' MiB');
  const excerptBox = (label, e, cls) => {
    if (!e) return el('div', { cls: 'io ' + cls }, el('h5', { text: label }), el('p', { cls: 'muted', text: 'not recorded' }));
    const pre = el('pre', { cls: 'io-text' });
    if (e.mark !== undefined) {
      const rest = e.text.slice(e.mark),
        len = rest.search(/\s/);
      const end = e.mark + (len < 0 ? rest.length : len);
      pre.append(e.text.slice(0, e.mark), el('mark', { title: 'first difference', text: e.text.slice(e.mark, end) || '∅' }), e.text.slice(end));
    } else pre.textContent = e.text;
    const note = e.complete ? size(e.bytes) : size(e.bytes) + ', showing characters ' + e.start + '–' + (e.start + e.text.length);
    return el('div', { cls: 'io ' + cls }, el('h5', { text: label + ' · ' + note }), pre);
  };
  const section = (title, id, text) => (text ? el('section', { id }, el('h4', { text: title }), el('pre', { text })) : null);
  const show = async (i) => {
    open = i;
    const r = index[i],
      d = await detail(i),
      view = tasks[r[0]];
    if (open !== i) return;
    const program = d.program_at ? d.raw.slice(d.program_at[0], d.program_at[1]) : d.program;
    const facts = el('dl');
    const fact = (k, v) => {
      if (v !== undefined && v !== null && v !== '') facts.append(el('dt', { text: k }), el('dd', { text: String(v) }));
    };
    if (view) for (const f of view.fields) fact(f.label, f.value);
    if (r[5] && !d.likert) fact('tests passed', r[4] + ' / ' + r[5]);
    if (d.compile_ms !== undefined) fact('compile', d.compile_ms + ' ms');
    if (d.run_ms !== undefined) fact('run (all tests)', d.run_ms + ' ms');
    if (d.peak_memory_kb) fact('peak memory', size(d.peak_memory_kb * 1024));
    if (d.usage) fact('tokens', d.usage.prompt + ' prompt + ' + d.usage.completion + ' completion');
    if (d.latency_ms !== undefined) fact('latency', d.latency_ms + ' ms');
    if (d.attempts > 1) fact('provider calls', d.attempts);
    const parts = [
      el('h3', {}, r[0] + ' · sample ' + r[1] + (r[2] ? ' · ' + r[2] + ' ' : ' '), el('span', { cls: 'v-' + r[3], text: r[3] })),
      el('button', { type: 'button', id: 'pe-close', text: 'close' }),
      facts,
      view ? section('Prompt', 'pe-prompt', view.prompt) : el('p', { cls: 'muted', text: 'Prompt: recorded with sample 0 of this task.' }),
    ];
    if (d.likert) {
      const table = el(
        'table',
        { id: 'pe-likert' },
        el('thead', {}, el('tr', {}, el('th', { text: 'choice' }), el('th', { text: 'log-likelihood' }), el('th', { text: '' }))),
      );
      const body = el('tbody');
      const lps = d.likert.logprobs || [];
      for (let c = 1; c <= Math.max(5, lps.length); c++) {
        const tags = [c === d.likert.predicted ? 'predicted' : '', c === d.likert.gold ? 'gold' : ''].filter(Boolean).join(', ');
        body.append(
          el(
            'tr',
            { cls: c === d.likert.predicted ? 'pred' : '' },
            el('td', { cls: 'num', text: String(c) }),
            el('td', { cls: 'num', text: lps[c - 1] === undefined ? '—' : lps[c - 1].toFixed(4) }),
            el('td', { text: tags }),
          ),
        );
      }
      table.append(body);
      parts.push(el('section', { id: 'pe-choices' }, el('h4', { text: 'Choices (' + (d.likert.mode || 'mode unknown') + ')' }), table));
    }
    if (!d.likert || d.likert.mode !== 'likelihood') parts.push(section('Raw answer', 'pe-raw', d.raw));
    parts.push(section('Extracted program', 'pe-program', program));
    parts.push(section(r[3] === 'CE' ? 'Compile output' : 'Error', 'pe-error', d.error));
    if (d.tests && d.tests.length) {
      const body = el('tbody');
      for (const t of d.tests) {
        body.append(
          el(
            'tr',
            {},
            el('td', { text: t.name }),
            el('td', { cls: 'v-' + t.verdict, text: t.verdict }),
            el('td', { cls: 'num', text: t.run_ms + ' ms' }),
            el('td', { cls: 'num', text: t.cpu_ms === undefined ? '' : t.cpu_ms + ' ms' }),
            el('td', { cls: 'num', text: t.peak_memory_kb ? size(t.peak_memory_kb * 1024) : '' }),
            el('td', { text: t.detail || '' }),
          ),
        );
        if (t.io)
          body.append(
            el(
              'tr',
              { cls: 'io-row' },
              el(
                'td',
                { colspan: '6' },
                el(
                  'div',
                  { cls: 'io-grid' },
                  excerptBox('input', t.io.input, 'in'),
                  excerptBox('expected', t.io.expected, 'exp'),
                  excerptBox('actual', t.io.actual, 'act'),
                ),
              ),
            ),
          );
      }
      parts.push(
        el(
          'section',
          { id: 'pe-tests' },
          el('h4', { text: 'Tests' }),
          el('table', {}, el('thead', {}, el('tr', {}, ...['test', 'verdict', 'wall', 'cpu', 'memory', 'detail'].map((h) => el('th', { text: h })))), body),
        ),
      );
    }
    const box = $('pe-detail');
    box.replaceChildren(...parts.filter(Boolean));
    box.hidden = false;
    $('pe-close').addEventListener('click', () => {
      open = -1;
      box.hidden = true;
      history.replaceState(null, '', '#');
      render();
    });
    history.replaceState(null, '', '#sample-' + i);
    render();
    box.scrollIntoView({ block: 'nearest' });
  };
  const start = async () => {
    [index, tasks] = await Promise.all([inflate('pe-index'), inflate('pe-tasks')]);
    fill(
      $('pe-f-verdict'),
      count(index.map((r) => r[3])).sort((a, b) => ORDER.indexOf(a[0]) - ORDER.indexOf(b[0])),
    );
    fill($('pe-f-language'), count(index.map((r) => r[2]).filter(Boolean)));
    fill($('pe-f-slice'), count(index.flatMap((r) => r[6])));
    if ($('pe-f-language').options.length <= 1) $('pe-f-language').parentElement.hidden = true;
    if ($('pe-f-slice').options.length <= 1) $('pe-f-slice').parentElement.hidden = true;
    for (const id of ['pe-f-verdict', 'pe-f-language', 'pe-f-slice']) $(id).addEventListener('change', apply);
    $('pe-f-task').addEventListener('input', apply);
    $('pe-prev').addEventListener('click', () => {
      page--;
      render();
    });
    $('pe-next').addEventListener('click', () => {
      page++;
      render();
    });
    $('pe-loading').hidden = true;
    $('pe-browser').hidden = false;
    apply();
    const m = /^#sample-(\d+)$/.exec(location.hash);
    if (m && index[Number(m[1])]) await show(Number(m[1]));
  };
  const loading = $('pe-loading');
  loading.hidden = false;
  const fail = (e) => {
    loading.textContent = 'The samples could not be shown in this browser (' + e + '); the metrics above are complete.';
  };
  if (typeof DecompressionStream !== 'function') fail('it lacks DecompressionStream');
  // After the next paint: a requestAnimationFrame callback runs just before it, its timeout just after.
  else requestAnimationFrame(() => setTimeout(() => start().catch(fail)));
})();
