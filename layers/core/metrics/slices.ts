/**
 * Slicing records: the whole run (`all`) and one slice per value of each dimension
 * (`difficulty=easy`, `language=cpp`, `subtask=abstractness`, …).
 */
import type { RunRecord } from '../types.ts';

/** A record column a metric can be sliced by. */
export type SliceDimension = 'difficulty' | 'split' | 'language' | 'subtask';

/** A named subset of a run's records. */
export interface Slice {
  /** `all` or `<dimension>=<value>`. */
  name: string;
  records: RunRecord[];
}

/** The name of the slice holding every record. */
export const ALL_SLICE = 'all';

/**
 * `all`, then for each dimension in the order given one slice per distinct non-empty value,
 * values sorted. Records without a value for a dimension appear only in `all` (for it).
 */
export function sliceRecords(records: readonly RunRecord[], dimensions: readonly SliceDimension[]): Slice[] {
  const slices: Slice[] = [{ name: ALL_SLICE, records: [...records] }];
  for (const dimension of dimensions) {
    const byValue = new Map<string, RunRecord[]>();
    for (const r of records) {
      const value = r[dimension];
      if (value === null || value === '') continue;
      const list = byValue.get(value);
      if (list) list.push(r);
      else byValue.set(value, [r]);
    }
    for (const value of [...byValue.keys()].sort()) {
      slices.push({ name: `${dimension}=${value}`, records: byValue.get(value) ?? [] });
    }
  }
  return slices;
}

/** Records grouped by task id, in first-seen order. */
export function groupByTask(records: readonly RunRecord[]): Map<string, RunRecord[]> {
  const groups = new Map<string, RunRecord[]>();
  for (const r of records) {
    const list = groups.get(r.task_id);
    if (list) list.push(r);
    else groups.set(r.task_id, [r]);
  }
  return groups;
}
