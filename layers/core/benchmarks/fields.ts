/**
 * Field readers for dataset rows: each names file, line and field when a value is wrong.
 */
import { InputError } from '../errors.ts';
import type { RowLocation } from './benchmark.ts';

type Row = Record<string, unknown>;

function fail(loc: RowLocation, field: string, message: string): never {
  throw new InputError(message, { file: loc.file, line: loc.line, field });
}

/** First present (non-empty) field among aliases. */
export function pick(row: Row, names: readonly string[]): { name: string; value: unknown } | undefined {
  for (const name of names) {
    const value = row[name];
    if (value !== undefined && value !== null && value !== '') return { name, value };
  }
  return undefined;
}

export function requiredString(row: Row, names: readonly string[], loc: RowLocation): string {
  const hit = pick(row, names);
  if (!hit) fail(loc, names[0] ?? '?', 'is missing');
  if (typeof hit.value === 'number') return String(hit.value);
  if (typeof hit.value !== 'string') fail(loc, hit.name, `must be a string, got ${kindOf(hit.value)}`);
  return hit.value;
}

/** What a value is, in words a dataset author recognises (a list, an object, a number…). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * A string, or a list of strings (Hugging Face `sequence: string` columns, e.g. Kotlin
 * HumanEval's `canonical_solution`): every element is one value, empty ones dropped.
 * Absent gives an empty list.
 */
export function stringList(row: Row, names: readonly string[], loc: RowLocation): string[] {
  const hit = pick(row, names);
  if (!hit) return [];
  if (typeof hit.value === 'string') return [hit.value];
  if (!Array.isArray(hit.value)) fail(loc, hit.name, `must be a string or a list of strings, got ${kindOf(hit.value)}`);
  return hit.value
    .map((v, i) => {
      if (typeof v !== 'string') fail(loc, `${hit.name}[${i}]`, `must be a string, got ${kindOf(v)}`);
      return v;
    })
    .filter((v) => v !== '');
}

export function optionalString(row: Row, names: readonly string[], loc: RowLocation): string | undefined {
  return pick(row, names) ? requiredString(row, names, loc) : undefined;
}

export function requiredNumber(row: Row, names: readonly string[], loc: RowLocation, range?: [number, number]): number {
  const hit = pick(row, names);
  if (!hit) fail(loc, names[0] ?? '?', 'is missing');
  const value = typeof hit.value === 'string' ? Number(hit.value.trim().replace(',', '.')) : hit.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(loc, hit.name, `must be a number, got ${JSON.stringify(hit.value)}`);
  if (range && (value < range[0] || value > range[1])) fail(loc, hit.name, `must be in [${range[0]}, ${range[1]}], got ${value}`);
  return value;
}

export function optionalNumber(row: Row, names: readonly string[], loc: RowLocation, range?: [number, number]): number | undefined {
  return pick(row, names) ? requiredNumber(row, names, loc, range) : undefined;
}
