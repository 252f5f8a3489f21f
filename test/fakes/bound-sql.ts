/**
 * A statement as the engine runs it once its parameters are bound: each `?` (outside quotes)
 * replaced, in order, by its value as a quoted SQL literal. Athena's ExecutionParameters are
 * positional literals bound before planning (Athena user guide, "Use parameterized queries":
 * positional `?`, string values in single quotes), so rules that look at literals in the
 * WHERE clause — injected partition projection — see the bound form.
 */
import type { SqlStatement } from '#core/ports.ts';

export function boundSql(query: string | SqlStatement): string {
  if (typeof query === 'string') return query;
  const values = [...query.params];
  let out = '';
  let quoted = false;
  for (const c of query.text) {
    if (c === "'") quoted = !quoted;
    if (c === '?' && !quoted) {
      const value = values.shift();
      if (value === undefined) throw new Error(`more placeholders than the ${query.params.length} parameters`);
      out += `'${value.replaceAll("'", "''")}'`;
    } else out += c;
  }
  if (values.length > 0) throw new Error(`${values.length} parameters left unbound`);
  return out;
}
