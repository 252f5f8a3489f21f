// Builds the CLI bundle once before the suite, so e2e tests run exactly what `npx polyeval` runs.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
