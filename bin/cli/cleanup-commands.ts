/**
 * `polyeval rm <run-id>…` and `polyeval gc`: free disk space, printing what was freed.
 */
import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openHome } from '#app/local/home.ts';
import { removeRuns, removeRunsOlderThan } from '#app/local/remove-runs.ts';
import { InputError } from '#core/errors.ts';
import { toJson } from './format.ts';
import { formatBytes, numberOption, sizeOption } from './options.ts';

export function rmCommand(): Command {
  return new Command('rm')
    .description("delete runs: items, summary, results tables' partitions, reports and ledger entry")
    .argument('<run-id...>')
    .option('--json', 'print JSON')
    .action(async (runIds: string[], flags: { json?: boolean }, command: Command) => {
      const home = openHome(command.optsWithGlobals<{ home?: string }>().home);
      const removed = await removeRuns(home, runIds);
      const freed = removed.reduce((a, r) => a + r.freed_bytes, 0);
      if (flags.json) process.stdout.write(`${toJson({ removed, freed_bytes: freed })}\n`);
      else
        process.stdout.write(
          `${removed.map((r) => `removed ${r.run_id} (${formatBytes(r.freed_bytes)})${r.cancelled_jobs ? `; cancelled its running batch job${r.cancelled_jobs.length > 1 ? 's' : ''} ${r.cancelled_jobs.join(', ')}` : ''}`).join('\n')}\nfreed ${formatBytes(freed)}\n`,
        );
    });
}

export function gcCommand(): Command {
  return new Command('gc')
    .description('delete runs older than N days and/or shrink the compile cache to a size; prints the space freed')
    .option('--older-than <days>', 'delete runs created more than this many days ago', numberOption('--older-than'))
    .option('--cache-max <size>', 'shrink the sandbox compile cache to this size, oldest builds first (e.g. 500M, 2G)', sizeOption('--cache-max'))
    .option('--cache-dir <dir>', "the sandbox cache holding builds/ (default: the sandbox's, <tmp>/polyeval-cache)")
    .option('--json', 'print JSON')
    .action(async (flags: { olderThan?: number; cacheMax?: number; cacheDir?: string; json?: boolean }, command: Command) => {
      if (flags.olderThan === undefined && flags.cacheMax === undefined)
        throw new InputError('nothing to collect: give --older-than <days> and/or --cache-max <size>', { field: 'older-than' });
      if (flags.olderThan !== undefined && flags.olderThan < 0)
        throw new InputError(`--older-than must be ≥ 0, got ${flags.olderThan}`, { field: 'older-than' });
      const home = openHome(command.optsWithGlobals<{ home?: string }>().home);
      const runs = flags.olderThan === undefined ? [] : await removeRunsOlderThan(home, flags.olderThan, new Date());
      const { defaultSandboxCacheDir, pruneBuilds } = await import('#sandbox/index.ts');
      if (flags.cacheDir !== undefined && existsSync(flags.cacheDir) && !statSync(flags.cacheDir).isDirectory()) {
        throw new InputError(`--cache-dir ${flags.cacheDir} is a file, not the sandbox cache folder (the one holding builds/)`, { field: 'cache-dir' });
      }
      const cacheDir = join(flags.cacheDir ?? defaultSandboxCacheDir(), 'builds');
      const cache = flags.cacheMax === undefined ? undefined : await pruneBuilds(cacheDir, flags.cacheMax);
      const runsFreed = runs.reduce((a, r) => a + r.freed_bytes, 0);
      const freed = runsFreed + (cache?.freedBytes ?? 0);
      if (flags.json) {
        process.stdout.write(
          `${toJson({ runs: { removed: runs, freed_bytes: runsFreed }, ...(cache ? { compile_cache: { dir: cacheDir, removed: cache.removed, freed_bytes: cache.freedBytes, kept: cache.kept, kept_bytes: cache.keptBytes } } : {}), freed_bytes: freed })}\n`,
        );
        return;
      }
      if (flags.olderThan !== undefined) process.stdout.write(`runs older than ${flags.olderThan} days: removed ${runs.length} (${formatBytes(runsFreed)})\n`);
      if (cache)
        process.stdout.write(
          `compile cache ${cacheDir}: removed ${cache.removed} builds (${formatBytes(cache.freedBytes)}); ${cache.kept} kept, ${formatBytes(cache.keptBytes)}\n`,
        );
      process.stdout.write(`freed ${formatBytes(freed)}\n`);
    });
}
