import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

// The report's browser scripts are text imports (`import script from './report.js' with { type:
// 'text' }`, layers/core/report/browser-script.ts): esbuild inlines them in dist/ and the Lambda
// bundles, but Vite ignores the attribute and would run the file, so here they load as text.
const reportBrowserScriptsAsText: Plugin = {
  name: 'polyeval-report-browser-scripts-as-text',
  enforce: 'pre',
  load(id) {
    if (!/\/layers\/core\/report\/browser\/[^/]+\.js$/.test(id)) return null;
    return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
  },
};

// Test tiers, one vitest project each. `npm test` runs them all; `npm run test:unit` runs the
// unit tier alone (no CLI bundle build, no servers, no compilers) for the inner loop; `npx
// vitest run --project <tier>` runs any one tier. Only the e2e tier builds the CLI bundle.
const tier = (name: string, globalSetup: string[] = []) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup: ['test/global-setup.ts', ...globalSetup] },
});

export default defineConfig({
  plugins: [reportBrowserScriptsAsText],
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: sandbox tests measure CPU time, so keep parallel files modest.
    maxWorkers: 2,
    projects: [tier('unit'), tier('integration'), tier('sandbox'), tier('infra'), tier('e2e', ['test/build-cli-setup.ts'])],
  },
});
