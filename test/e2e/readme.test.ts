/**
 * The README and the docs/ pages cannot drift from the CLI: every `npx polyeval …` command
 * any of them shows names a real command and real flags, every page is linked from the
 * README, every link between them lands on a page and heading that exist, and the quick
 * start's main job (`npm start`) works.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempHome } from '../support/cli.ts';
import { anchorOf, docPages, headings, readDoc } from '../support/docs.ts';

const readme = readDoc('README.md');
const pages = docPages();
const commands = pages.flatMap((page) =>
  [...readDoc(page).matchAll(/npx polyeval ([a-z]+)([^\n`|]*)/g)].map((m) => ({ page, command: m[1] as string, rest: m[2] as string })),
);

/** Every relative markdown link of a page: the page it names (resolved) and its anchor. */
function links(page: string): { target: string; anchor: string; text: string }[] {
  return [...readDoc(page).matchAll(/\]\(([^)\s]*)\)/g)]
    .map((m) => m[1] as string)
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [file = '', anchor = ''] = href.split('#');
      return { target: file ? normalize(join(dirname(page), file)) : page, anchor, text: href };
    });
}

describe('README', () => {
  it('shows both quick-start commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('fits on a few screens (at most 300 lines) and links every docs/ page', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(pages.length).toBeGreaterThan(5);
    const linked = new Set(links('README.md').map((l) => l.target));
    for (const page of pages.slice(1)) expect(linked, page).toContain(page);
  });

  it.each(pages)('%s: every relative link lands on a page and heading that exist', (page) => {
    for (const link of links(page)) {
      expect(existsSync(join(ROOT, link.target)), `${page} → ${link.text}`).toBe(true);
      if (link.anchor && link.target.endsWith('.md')) {
        expect(
          headings(readDoc(link.target)).map((h) => anchorOf(h.title)),
          `${page} → ${link.text}`,
        ).toContain(link.anchor);
      }
    }
  });

  it('shows commands on every page that has them (the check below is not vacuous)', () => {
    for (const page of ['README.md', 'docs/cli.md', 'docs/benchmarks.md'])
      expect(
        commands.some((c) => c.page === page),
        page,
      ).toBe(true);
  });

  it.each([...new Set(commands.map((c) => c.command))])('documents `polyeval %s` with flags the CLI accepts', async (command) => {
    const help = await runCli([command, '--help']);
    expect(help.code, `polyeval ${command} --help: ${help.stderr}`).toBe(0);
    const uses = commands.filter((c) => c.command === command);
    // A command with subcommands (`remote report …`): its flags are the subcommand's or the parent's.
    const subHelp = new Map<string, string>();
    for (const use of uses) {
      const sub = /^\s*([a-z][a-z-]*)/.exec(use.rest)?.[1];
      const isSub = sub !== undefined && new RegExp(`^\\s+${sub}\\b`, 'm').test(help.stdout.split(/^Commands:$/m)[1] ?? '');
      if (isSub && !subHelp.has(sub)) subHelp.set(sub, (await runCli([command, sub, '--help'])).stdout);
      const accepted = `${help.stdout}\n${isSub ? (subHelp.get(sub) ?? '') : ''}`;
      for (const m of use.rest.matchAll(/(?:^|\s)(--?[a-z][a-z-]*)/g)) expect(accepted, `${use.page}: ${command} ${m[1]}`).toContain(m[1]);
    }
  });

  it('runs the main job: every bundled suite with the reference model, tables and HTML reports', async () => {
    const home = tempHome();
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...process.env, POLYEVAL_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(result.code, result.stderr).toBe(0);
    for (const suite of ['abricot', 'rocode', 'kotlin-humaneval']) expect(result.stdout).toMatch(new RegExp(`^${suite} · reference · run `, 'm'));
    expect(result.stdout).not.toMatch(/ (WA|RE|CE|TLE|MLE|OLE|SE) \d/);
    const reports = readdirSync(join(home, 'store', 'reports'));
    expect(reports.length).toBe(5); // abricot, rocode × 3 languages, kotlin-humaneval
    for (const r of reports) expect(existsSync(join(home, 'store', 'reports', r))).toBe(true);
  }, 900_000);
});
