/**
 * Opens a file with the platform's opener, as `--open` promises: `open` on macOS, `start` (a
 * cmd.exe built-in) on Windows, `xdg-open` elsewhere. An opener that is missing or fails is
 * not an error of the command (the file is written): the answer says so and names the file.
 */
import { spawn } from 'node:child_process';

/** The opener's command line for `file` on `platform`. */
export function openerFor(platform: NodeJS.Platform, file: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [file] };
  // `start`'s first quoted argument is a window title: an empty one, so a quoted path is not taken for it.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', file] };
  return { command: 'xdg-open', args: [file] };
}

/**
 * Starts the opener and waits for it to exit, at most `waitMs` (xdg-open hands the file to
 * the desktop and returns; an opener still running then is taken to have opened it).
 * Resolves with undefined when it opened, else with a sentence for the user.
 */
export function openFile(file: string, options: { platform?: NodeJS.Platform; waitMs?: number } = {}): Promise<string | undefined> {
  const { command, args } = openerFor(options.platform ?? process.platform, file);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { stdio: 'ignore', detached: true });
    } catch (error) {
      resolve(`cannot start ${command} (${(error as Error).message}): open ${file} in a browser`);
      return;
    }
    const timer = setTimeout(() => {
      child.unref();
      resolve(undefined);
    }, options.waitMs ?? 3000);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(
        error.code === 'ENOENT'
          ? `no ${command} on this machine to open it: open ${file} in a browser`
          : `cannot start ${command} (${error.message}): open ${file} in a browser`,
      );
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : `${command} could not open it (${signal ?? `exit ${code ?? '?'}`}): open ${file} in a browser`);
    });
  });
}
