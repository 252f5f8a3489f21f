// `npm run bench`: runs every bench/*.bench.ts module's exported `run()` and prints one table.
import { readdirSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One measured figure. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

// Text imports (the report's browser script) load as esbuild's text loader loads them in the bundles.
register('./support/text-imports.mjs', import.meta.url);

const here = dirname(fileURLToPath(import.meta.url));
// `npm run bench [module] [-- flags]`: a first argument that is a flag (`--mxeval <dir>`) names no module.
const only = process.argv[2]?.startsWith('-') ? undefined : process.argv[2];
const benchFiles = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
// A name no bench file holds (a typo) is named with the benches there are, not run as an empty table.
if (only !== undefined && !benchFiles.some((f) => f.includes(only))) {
  process.stderr.write(`npm run bench: no bench named "${only}" (benches: ${benchFiles.map((f) => f.slice(0, -'.bench.ts'.length)).join(', ')})\n`);
  process.exit(2);
}
// A bench with its own command line (`npm run bench cloud-scale -- --items N`) owns its output.
const own = only === undefined ? undefined : readdirSync(here).find((f) => f === `${only}.bench.ts`);
const ownMain = own === undefined ? undefined : ((await import(pathToFileURL(join(here, own)).href)) as { main?: (argv: string[]) => Promise<void> }).main;
if (typeof ownMain === 'function') await ownMain(process.argv.slice(3));
else await runTable();

async function runTable(): Promise<void> {
  const rows: (BenchRow & { module: string })[] = [];
  for (const file of benchFiles) {
    if (only && !file.includes(only)) continue;
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<BenchRow[]> };
    if (typeof mod.run !== 'function') continue;
    try {
      for (const row of await mod.run()) rows.push({ module: file, ...row });
    } catch (error) {
      rows.push({ module: file, name: 'FAILED', value: Number.NaN, unit: '', note: String(error) });
    }
  }
  const widths = [24, 48, 12, 8];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' ');
  console.log(line(['module', 'measure', 'value', 'unit']) + ' note');
  for (const r of rows) console.log(line([r.module, r.name, Number.isFinite(r.value) ? r.value.toFixed(2) : 'n/a', r.unit]) + ` ${r.note ?? ''}`);
}
