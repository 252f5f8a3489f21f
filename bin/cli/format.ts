/**
 * Terminal output: aligned tables, JSON that survives BigInt (DuckDB counts), and CSV.
 */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

export function toJson(value: unknown): string {
  return JSON.stringify(plain(value), null, 2);
}

function cell(value: unknown): string {
  const v = plain(value);
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An aligned text table; cells wider than `maxWidth` (default 60) are cut with `…`. */
export function table(rows: readonly Record<string, unknown>[], columns?: readonly string[], options: { maxWidth?: number } = {}): string {
  const maxWidth = options.maxWidth ?? 60;
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (cols.length === 0) return '(no rows)';
  const cells = rows.map((r) => cols.map((c) => cell(r[c]).replace(/\s*\n\s*/g, ' ')));
  // A fold, not Math.max(...cells): spreading a query's 100,000 rows as arguments overflows the stack.
  const widths = cols.map((c, i) =>
    Math.min(
      maxWidth,
      cells.reduce((w, row) => Math.max(w, (row[i] ?? '').length), c.length),
    ),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => (v.length > (widths[i] ?? 0) ? `${v.slice(0, (widths[i] ?? 1) - 1)}…` : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  if (rows.length === 0) out.push('(no rows)');
  return out.join('\n');
}

export function csv(rows: readonly Record<string, unknown>[], columns?: readonly string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const esc = (v: unknown): string => {
    const p = plain(v);
    const s = p === null || p === undefined ? '' : typeof p === 'object' ? JSON.stringify(p) : String(p);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => esc(r[c])).join(','))].join('\n');
}

export function fmtValue(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}
