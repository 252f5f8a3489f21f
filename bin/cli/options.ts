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
