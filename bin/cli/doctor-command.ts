/**
 * `polyeval doctor`: which toolchains and isolation features this machine has.
 */
import { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { table, toJson } from './format.ts';
import { nodeSupport, SUPPORTED_NODE_MAJORS } from './node-support.ts';

function version(cmd: string, args: string[]): string | null {
  try {
    const out = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    if (out.error) throw out.error;
    // `java -version` answers on stderr.
    return `${out.stdout.toString()}${out.stderr.toString()}`.split('\n')[0]?.trim() || 'present';
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().split('\n')[0]?.trim();
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : stderr || null;
  }
}

export function doctorCommand(): Command {
  return new Command('doctor')
    .description('check toolchains and sandbox isolation on this machine')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const sandbox = await import('#sandbox/index.ts');
      const executor = await sandbox.createSandboxExecutor({});
      // Probed with the supervisor, so seccomp/Landlock and the exposures they leave are known.
      const isolation = executor.isolationReport;
      const toolchains = await executor.toolchains();
      await executor.close();
      const java = version('java', ['-version']);
      const node = nodeSupport(process.version);
      const result = {
        node: process.version,
        node_support: { status: node.status, supported_majors: [...SUPPORTED_NODE_MAJORS], detail: node.detail },
        isolation,
        toolchains: [...toolchains, { language: 'jvm', compiler: 'java', version: java ?? undefined, available: java !== null }],
      };
      if (flags.json) {
        process.stdout.write(`${toJson(result)}\n`);
        return;
      }
      const verdict =
        isolation.exposures.length === 0
          ? 'model-written code runs'
          : `model-written code is refused unless --trust-generated-code (exposed: ${isolation.exposures.join(', ')})`;
      process.stdout.write(
        `node ${process.version}: ${node.detail}\n\nisolation: ${isolation.level}\n${isolation.details.map((d: string) => `  - ${d}`).join('\n')}\n  => ${verdict}\n\n`,
      );
      process.stdout.write(
        `${table(result.toolchains.map((t) => ({ language: t.language, available: t.available ? 'yes' : 'NO', compiler: t.compiler ?? '', version: t.version ?? '', flags: (('flags' in t ? t.flags : undefined) ?? []).join(' '), detail: ('detail' in t ? t.detail : '') ?? '' })))}\n`,
      );
    });
}
