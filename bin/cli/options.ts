/** Option parsers that reject bad numbers with the flag's name. */
import { InvalidArgumentError } from 'commander';

export function intOption(flag: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${flag} must be an integer ≥ ${min}, got "${value}"`);
    return n;
  };
}

export function numberOption(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new InvalidArgumentError(`${flag} must be a number, got "${value}"`);
    return n;
  };
}

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size: bytes, or with a binary unit `K`, `M`, `G`, `T` (`500M`, `1.5G`, `2GB`). */
export function sizeOption(flag: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(value.trim());
    if (!m) throw new InvalidArgumentError(`${flag} must be a size like 500M or 2G, got "${value}"`);
    return Math.floor(Number(m[1]) * (UNITS[(m[2] ?? '').toLowerCase()] ?? 1));
  };
}

/** `1.5 GB`, `340 MB`, `12 KB`, `80 B` (binary units). */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['TB', 1024 ** 4],
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} B`;
}
