// Builds the CLI bundle once before the e2e tier, so e2e tests run exactly what `npx polyeval`
// runs. A failed build removes the old bundle (e2e tests then fail, loudly). The other tiers do
// not need the bundle, so `npm run test:unit` starts without building it.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export default function setup(): void {
  try {
    execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  } catch {
    rmSync('dist/polyeval.mjs', { force: true });
    process.stderr.write('build-cli-setup: the CLI bundle did not build; e2e tests will fail\n');
  }
}
