/**
 * Where the Kotlin toolchain lives on this machine: the npm package `kotlin-compiler`
 * (compiler jars, stdlib, the `kotlinc` script), the JDK's `java`/`javac`, and the cache
 * directory the compile server is built into. Also the environment every JVM we start
 * gets: only what a JVM needs, never the parent's credentials.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { HarnessError } from '../../core/errors.ts';

/** Absolute paths of the Kotlin distribution shipped by the `kotlin-compiler` package. */
export interface KotlinHome {
  /** The package root (holds `bin/`, `lib/`, `build.txt`). */
  home: string;
  lib: string;
  compilerJar: string;
  stdlibJar: string;
  kotlinc: string;
}

let cachedHome: KotlinHome | undefined;

/** Locates the `kotlin-compiler` package; throws a HarnessError naming what is missing. */
export function kotlinHome(): KotlinHome {
  if (cachedHome) return cachedHome;
  let home: string;
  try {
    home = dirname(createRequire(import.meta.url).resolve('kotlin-compiler/package.json'));
  } catch (cause) {
    throw new HarnessError('the npm package "kotlin-compiler" is not installed', { cause });
  }
  const lib = join(home, 'lib');
  const found: KotlinHome = {
    home,
    lib,
    compilerJar: join(lib, 'kotlin-compiler.jar'),
    stdlibJar: join(lib, 'kotlin-stdlib.jar'),
    kotlinc: join(home, 'bin', 'kotlinc'),
  };
  for (const path of [found.compilerJar, found.stdlibJar, found.kotlinc]) {
    if (!existsSync(path)) throw new HarnessError(`Kotlin toolchain incomplete: ${path} is missing`);
  }
  cachedHome = found;
  return found;
}

/** The compiler version as the distribution states it (`build.txt`, e.g. "2.4.20"). */
export function kotlinVersion(): string {
  const file = join(kotlinHome().home, 'build.txt');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (cause) {
    throw new HarnessError(`cannot read the Kotlin version from ${file}`, { cause });
  }
}

/** `java`, `javac` or `jar` from JAVA_HOME when it has one, else from PATH. */
export function jdkTool(name: 'java' | 'javac' | 'jar'): string {
  const javaHome = process.env['JAVA_HOME'];
  if (javaHome) {
    const candidate = join(javaHome, 'bin', name);
    if (existsSync(candidate)) return candidate;
  }
  return name;
}

/** polyeval's per-machine cache: `$POLYEVAL_CACHE`, else `$XDG_CACHE_HOME/polyeval`, else `~/.cache/polyeval`. */
export function cacheDir(): string {
  const explicit = process.env['POLYEVAL_CACHE'];
  if (explicit) return explicit;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg || join(homedir(), '.cache'), 'polyeval');
}

/**
 * The whole environment of a JVM we start: a PATH (the `kotlinc` script needs bash and
 * coreutils), a UTF-8 locale and JAVA_HOME when set. Nothing else of the parent's passes
 * through, so no AWS_* or other secret reaches the compiler.
 */
export function jvmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] || '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
  };
  const javaHome = process.env['JAVA_HOME'];
  if (javaHome) env['JAVA_HOME'] = javaHome;
  return env;
}
