/** Defaults shared by every function: runtime, Powertools settings and local esbuild bundling. */
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Architecture } from '../config.ts';

/** One Node.js runtime everywhere: the executor images use the matching `nodejs:22` base image. */
export const NODE_RUNTIME = lambda.Runtime.NODEJS_22_X;

/** Namespace of every Powertools metric. */
export const METRICS_NAMESPACE = 'polyeval';

/** Maps the config's architecture onto Lambda's. */
export function lambdaArchitecture(architecture: Architecture): lambda.Architecture {
  return architecture === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64;
}

/** Powertools for AWS Lambda settings (logger, metrics, tracer) for one service. */
export function powertoolsEnvironment(service: string): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: service,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    POWERTOOLS_LOGGER_LOG_EVENT: 'false',
    POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
    NODE_OPTIONS: '--enable-source-maps',
  };
}

/**
 * esbuild bundling on this machine, ESM output, the AWS SDK bundled in (STYLE: never a shared
 * layer). `forceDockerBundling: false` plus esbuild in devDependencies means CDK bundles locally;
 * a missing esbuild would make CDK try Docker, which the synth test forbids (CDK_DOCKER unset to
 * a binary that fails).
 */
/** Packages that read data files next to their module at run time. */
export const FILE_READING_PACKAGES = ['dictionary-ro', 'dictionary-en'] as const;

export function localBundlingOptions(): nodejs.BundlingOptions {
  return {
    format: nodejs.OutputFormat.ESM,
    target: 'node22',
    mainFields: ['module', 'main'],
    // ESM bundles of CommonJS dependencies still call require(): give them one.
    banner: "import { createRequire as __polyevalCreateRequire } from 'node:module'; const require = __polyevalCreateRequire(import.meta.url);",
    // The hunspell dictionaries read their .aff/.dic files beside their own module: they stay
    // packages (copied below), imported only when RoCode's code-switching metric is computed.
    // node-llama-cpp (gguf:, imported on first use) runs models on the user's machine only; its
    // optional per-platform builds are not installed, so esbuild could not bundle it.
    externalModules: [...FILE_READING_PACKAGES, 'node-llama-cpp'],
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      // The bundled suites (`-b sample/…`) and the dictionary packages travel with every function.
      afterBundling: (inputDir: string, outputDir: string) => [
        `cp -r "${inputDir}/sample" "${outputDir}/sample"`,
        `mkdir -p "${outputDir}/node_modules"`,
        ...FILE_READING_PACKAGES.map((pkg) => `cp -r "${inputDir}/node_modules/${pkg}" "${outputDir}/node_modules/${pkg}"`),
      ],
    },
    minify: true,
    sourceMap: true,
    forceDockerBundling: false,
    logLevel: nodejs.LogLevel.ERROR,
  };
}
