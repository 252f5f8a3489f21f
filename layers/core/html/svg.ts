/**
 * Small inline-SVG charts for the self-contained report.
 */
import type { Verdict } from '../types.ts';

const COLORS: Record<Verdict, string> = {
  OK: '#4a9a5b',
  WA: '#c8504a',
  TLE: '#8a63b8',
  MLE: '#6b4fa0',
  OLE: '#a58bd0',
  RE: '#e07b39',
  CE: '#d9a521',
  SE: '#999999',
};

export interface BubblePoint {
  x: number;
  y: number;
  count: number;
}

/** A 5×5 grid of bubbles sized by count (for 1–5 likert scales); the diagonal is perfect agreement. */
export function bubbleGrid(points: readonly BubblePoint[], labels: { xLabel: string; yLabel: string }): string {
  const size = 260;
  const pad = 36;
  const step = (size - pad) / 5;
  const cx = (v: number): number => pad + (v - 0.5) * step;
  const cy = (v: number): number => size - pad - (v - 0.5) * step + pad / 2;
  const max = Math.max(1, ...points.map((p) => p.count));
  const ticks = [1, 2, 3, 4, 5]
    .map(
      (v) =>
        `<text x="${cx(v)}" y="${size - 8}" font-size="11" text-anchor="middle">${v}</text><text x="${pad - 14}" y="${cy(v) + 4}" font-size="11" text-anchor="middle">${v}</text>`,
    )
    .join('');
  const bubbles = points
    .map(
      (p) =>
        `<circle cx="${cx(p.x)}" cy="${cy(p.y)}" r="${(4 + 14 * Math.sqrt(p.count / max)).toFixed(1)}" fill="#2b6f8f" fill-opacity="0.6"><title>gold ${p.x}, predicted ${p.y}: ${p.count}</title></circle><text x="${cx(p.x)}" y="${cy(p.y) + 4}" font-size="10" text-anchor="middle" fill="#fff">${p.count}</text>`,
    )
    .join('');
  return `<svg width="${size}" height="${size + 16}" role="img" aria-label="${labels.yLabel} vs ${labels.xLabel}">
<line x1="${cx(0.5)}" y1="${cy(0.5)}" x2="${cx(5.5)}" y2="${cy(5.5)}" stroke="#ccc" stroke-dasharray="4 3"/>${ticks}${bubbles}
<text x="${size / 2 + pad / 2}" y="${size + 10}" font-size="11" text-anchor="middle" fill="#555">${labels.xLabel}</text>
<text x="10" y="${size / 2}" font-size="11" text-anchor="middle" fill="#555" transform="rotate(-90 10 ${size / 2})">${labels.yLabel}</text></svg>`;
}

export interface Bar {
  label: string;
  counts: Partial<Record<Verdict, number>>;
}

/** Horizontal stacked bars of verdict shares, one per group (with a legend unless told not to). */
export function stackedBars(bars: readonly Bar[], order: readonly Verdict[], opts: { width?: number; labelWidth?: number; legend?: boolean } = {}): string {
  const width = opts.width ?? 420;
  const labelW = opts.labelWidth ?? 110;
  const rowH = 22;
  const rows = bars
    .map((bar, i) => {
      const total = order.reduce((s, v) => s + (bar.counts[v] ?? 0), 0) || 1;
      let x = labelW;
      const segments = order
        .filter((v) => bar.counts[v])
        .map((v) => {
          const w = ((bar.counts[v] ?? 0) / total) * (width - labelW - 10);
          const seg = `<rect x="${x.toFixed(1)}" y="${i * rowH + 4}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${COLORS[v]}"><title>${v}: ${bar.counts[v]}</title></rect>`;
          x += w;
          return seg;
        })
        .join('');
      return `<text x="0" y="${i * rowH + 16}" font-size="12">${bar.label.replace(/[<&]/g, '')}</text>${segments}`;
    })
    .join('');
  if (opts.legend === false) return `<svg width="${width}" height="${bars.length * rowH}" role="img" aria-label="verdict shares">${rows}</svg>`;
  const legend = order
    .map(
      (v, i) =>
        `<rect x="${labelW + i * 38}" y="${bars.length * rowH + 6}" width="10" height="10" fill="${COLORS[v]}"/><text x="${labelW + 13 + i * 38}" y="${bars.length * rowH + 15}" font-size="10">${v}</text>`,
    )
    .join('');
  return `<svg width="${width}" height="${bars.length * rowH + 24}" role="img" aria-label="verdict shares">${rows}${legend}</svg>`;
}
