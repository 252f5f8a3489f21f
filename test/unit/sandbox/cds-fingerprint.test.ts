import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cdsFingerprint } from '../../../layers/sandbox/cds-fingerprint.ts';
import { serverHeapFlags } from '../../../layers/sandbox/kotlin-server/jvm-flags.ts';

let dir: string;
let java: string;
let jar: string;

/** A JDK laid out as Debian's (bin/java, lib/server/libjvm.so, lib/modules, release) and one jar. */
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pe-cds-'));
  mkdirSync(join(dir, 'jdk', 'bin'), { recursive: true });
  mkdirSync(join(dir, 'jdk', 'lib', 'server'), { recursive: true });
  java = join(dir, 'jdk', 'bin', 'java');
  writeFileSync(java, '#!/bin/sh\n');
  chmodSync(java, 0o755);
  writeFileSync(join(dir, 'jdk', 'lib', 'server', 'libjvm.so'), 'jvm 17.0.15');
  writeFileSync(join(dir, 'jdk', 'lib', 'modules'), 'modules');
  writeFileSync(join(dir, 'jdk', 'release'), 'JAVA_VERSION="17.0.15"\n');
  jar = join(dir, 'kotlin-compiler.jar');
  writeFileSync(jar, 'jar bytes');
  utimesSync(jar, 1_700_000_000, 1_700_000_000);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('cdsFingerprint', () => {
  it('is the same while neither the JDK nor the jars change', () => {
    expect(cdsFingerprint(java, [jar])).toBe(cdsFingerprint(java, [jar]));
  });

  it('changes when a reinstall rewrites a jar with the same bytes (the JVM checks its modification time)', () => {
    const before = cdsFingerprint(java, [jar]);
    writeFileSync(jar, 'jar bytes');
    utimesSync(jar, 1_800_000_000, 1_800_000_000);
    expect(cdsFingerprint(java, [jar])).not.toBe(before);
  });

  it('changes when the JDK is upgraded in place (libjvm.so or the release file)', () => {
    const before = cdsFingerprint(java, [jar]);
    writeFileSync(join(dir, 'jdk', 'lib', 'server', 'libjvm.so'), 'jvm 17.0.16 build');
    const afterJvm = cdsFingerprint(java, [jar]);
    expect(afterJvm).not.toBe(before);
    writeFileSync(join(dir, 'jdk', 'release'), 'JAVA_VERSION="17.0.16"\n');
    expect(cdsFingerprint(java, [jar])).not.toBe(afterJvm);
  });

  it('finds a bare java on PATH, through its links, as spawn would', () => {
    mkdirSync(join(dir, 'usr-bin'));
    const link = join(dir, 'usr-bin', 'java');
    // Debian's /usr/bin/java → /etc/alternatives/java → <jdk>/bin/java
    symlinkSync(java, link);
    const path = process.env['PATH'];
    process.env['PATH'] = join(dir, 'usr-bin');
    try {
      expect(cdsFingerprint('java', [jar])).toBe(cdsFingerprint(java, [jar]));
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('tells a missing jar from a present one', () => {
    expect(cdsFingerprint(java, [join(dir, 'gone.jar')])).toContain('gone.jar missing');
  });
});

describe('serverHeapFlags', () => {
  it('commits the whole heap and makes half of it young', () => {
    expect(serverHeapFlags(1024)).toEqual(['-Xmx1024m', '-Xms1024m', '-Xmn512m']);
    expect(serverHeapFlags(300)).toEqual(['-Xmx300m', '-Xms300m', '-Xmn150m']);
  });
});
