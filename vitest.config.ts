import { defineConfig } from 'vitest/config';

// Test tiers, one vitest project each. `npm test` runs them all; `npm run test:unit` runs the
// unit tier alone (no CLI bundle build, no servers, no compilers) for the inner loop; `npx
// vitest run --project <tier>` runs any one tier. Only the e2e tier builds the CLI bundle.
const tier = (name: string, globalSetup: string[] = []) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], globalSetup: ['test/global-setup.ts', ...globalSetup] },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: sandbox tests measure CPU time, so keep parallel files modest.
    maxWorkers: 2,
    projects: [tier('unit'), tier('integration'), tier('sandbox'), tier('infra'), tier('e2e', ['test/build-cli-setup.ts'])],
  },
});
