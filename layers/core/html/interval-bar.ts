/**
 * An estimate with its 95% interval as a small inline SVG on a shared axis, so bars in one
 * column (one benchmark, one comparison) can be read against each other.
 */

/** The axis of a column of interval bars: [min, max] in metric units. */
export interface Axis {
  min: number;
  max: number;
}

/**
 * The smallest axis holding every value and interval end, widened to include `base`
 * (typically [0, 1], or 0 alone for differences); never empty.
 * @example
 * axisFor([{ value: 0.4, ci_low: 0.3, ci_high: 0.5 }], [0, 1]); // { min: 0, max: 1 }
 */
export function axisFor(points: readonly { value: number | null; ci_low: number | null; ci_high: number | null }[], base: readonly number[]): Axis {
  const values = [...base];
  for (const p of points) for (const v of [p.value, p.ci_low, p.ci_high]) if (v !== null && Number.isFinite(v)) values.push(v);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return max > min ? { min, max } : { min: min - 1, max: max + 1 };
}

/**
 * The bar: a line at `mark` (zero for differences), the interval as a band and the
 * estimate as a dot. Empty when the value is absent.
 */
export function intervalBar(
  p: { value: number | null; ci_low: number | null; ci_high: number | null },
  axis: Axis,
  options: { width?: number; mark?: number; color?: string; className?: string; track?: boolean } = {},
): string {
  if (p.value === null) return '';
  const width = options.width ?? 160;
  const x = (v: number): number => 4 + ((v - axis.min) / (axis.max - axis.min)) * (width - 8);
  const lo = x(p.ci_low ?? p.value);
  const hi = x(p.ci_high ?? p.value);
  const mark =
    options.mark !== undefined && options.mark >= axis.min && options.mark <= axis.max
      ? `<line x1="${x(options.mark).toFixed(1)}" x2="${x(options.mark).toFixed(1)}" y1="0" y2="14" stroke="#bbb"/>`
      : '';
  const label = `${p.value.toFixed(3)}${p.ci_low !== null && p.ci_high !== null ? ` [${p.ci_low.toFixed(3)}, ${p.ci_high.toFixed(3)}]` : ''}`;
  const track = options.track ? `<line x1="4" x2="${width - 4}" y1="7" y2="7" stroke="#dde"/>` : '';
  return `<svg class="${options.className ?? 'bar'}" width="${width}" height="14" role="img" aria-label="${label}"><title>${label}</title>${track}${mark}<rect x="${lo.toFixed(1)}" y="5" width="${Math.max(1, hi - lo).toFixed(1)}" height="4" fill="${options.color ?? '#8bb4c4'}"/><circle cx="${x(p.value).toFixed(1)}" cy="7" r="3.5" fill="#1f4e5f"/></svg>`;
}
