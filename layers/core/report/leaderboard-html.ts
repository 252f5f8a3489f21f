/**
 * The leaderboard as one offline, self-contained HTML file (inline CSS and SVG, no
 * scripts): one row per model, one column per board side by side, each cell the best
 * run's value with its 95% interval drawn on the column's shared axis; the full rows
 * (items, cost, date, run) follow in a table.
 */
import { escapeHtml } from './html.ts';
import { axisFor, intervalBar } from '../html/index.ts';
import { boardKey, boardLabel, type LeaderboardRow } from './leaderboard.ts';

const fmt = (v: number | null, digits = 3): string => (v === null ? '—' : v.toFixed(digits));

export const REPORT_CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.3rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}#runs{font-size:12px}.ci{color:#667;font-size:12px}.small{color:#667;font-size:12px}
.absent{color:#a55;font-style:italic}.bar{display:block;margin-top:2px}.best{font-weight:700}`;

/** A column of the side-by-side view. */
interface Board {
  key: string;
  label: string;
  metric: string;
  rows: LeaderboardRow[];
}

function boardsOf(rows: readonly LeaderboardRow[]): Board[] {
  const boards = new Map<string, Board>();
  for (const row of rows) {
    const key = boardKey(row);
    const board = boards.get(key) ?? { key, label: boardLabel(row), metric: row.metric, rows: [] };
    board.rows.push(row);
    boards.set(key, board);
  }
  return [...boards.values()];
}

function cell(row: LeaderboardRow | undefined, board: Board): string {
  if (!row) return '<td></td>';
  if (row.value === null) return `<td><span class="absent">absent: ${escapeHtml(row.reason ?? '')}</span></td>`;
  const axis = axisFor(board.rows, [0, 1]);
  const best = board.rows[0] === row ? ' class="best"' : '';
  return `<td><span${best}>${fmt(row.value)}</span> <span class="ci">[${fmt(row.ci_low)}, ${fmt(row.ci_high)}]</span>${intervalBar(row, axis, { mark: 0 })}<span class="small">${row.items} items · run ${escapeHtml(row.run_id)}</span></td>`;
}

/**
 * Renders the leaderboard rows (as {@link buildLeaderboard} orders them: best first per board).
 * @example
 * writeFile('leaderboard.html', renderLeaderboardHtml(rows, { generatedAt: new Date().toISOString() }));
 */
export function renderLeaderboardHtml(rows: readonly LeaderboardRow[], meta: { generatedAt: string }): string {
  const boards = boardsOf(rows);
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const head = boards.map((b) => `<th>${escapeHtml(b.label)}<br><span class="small">${escapeHtml(b.metric)}, 95% CI</span></th>`).join('');
  const body = models
    .map(
      (model) =>
        `<tr><th>${escapeHtml(model)}</th>${boards
          .map((b) =>
            cell(
              b.rows.find((r) => r.model === model),
              b,
            ),
          )
          .join('')}</tr>`,
    )
    .join('');
  const detail = rows
    .map(
      (r) =>
        `<tr><td>${escapeHtml(boardLabel(r))}</td><td>${escapeHtml(r.model)}</td><td>${escapeHtml(r.metric)}</td><td class="num">${fmt(r.value)}</td><td class="num">${r.value === null ? '' : `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`}</td><td class="num">${r.n}</td><td class="num">${r.items}</td><td class="num">$${r.cost_usd.toFixed(4)}</td><td>${escapeHtml(r.date)}</td><td>${escapeHtml(r.run_id)}</td><td class="num">${r.runs}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>polyeval leaderboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${REPORT_CSS}</style></head>
<body>
<h1>polyeval leaderboard</h1>
<p class="small">Best completed run per model on each benchmark (dataset and language), by the benchmark's headline metric unless another was asked for; intervals are seeded bootstrap 95% intervals. Generated ${escapeHtml(meta.generatedAt)}.</p>
${rows.length === 0 ? '<p>No completed runs.</p>' : `<table id="side-by-side"><thead><tr><th>model</th>${head}</tr></thead><tbody>${body}</tbody></table>`}
<h2>Runs</h2>
<table id="runs"><thead><tr><th>benchmark</th><th>model</th><th>metric</th><th>value</th><th>95% CI</th><th>n</th><th>items</th><th>cost</th><th>date</th><th>run</th><th>runs</th></tr></thead><tbody>${detail}</tbody></table>
</body></html>
`;
}
