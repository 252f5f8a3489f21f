// The hostile suite's Java and JavaScript programs (hostile-programs.ts adds them to
// HOSTILE_CASES and EARLY_EXIT). Same convention: a probe prints the sum only when it
// failed to reach what it looked for, so a breach shows as WA.
import type { Verdict } from '../types.ts';
import type { HostileCase, Probe } from './hostile-programs.ts';

const JAVA_SUM = 'java.util.Scanner in = new java.util.Scanner(System.in); System.out.println(in.nextLong() + in.nextLong());';
const JS_SUM = "const [a, b] = require('node:fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number); console.log(a + b);";
const list = (p: Probe): string => [...p.outside, '../pe_evil'].map((x) => JSON.stringify(x)).join(', ');

const jv = (attack: string, body: (p: Probe) => string, verdicts: Verdict[]): HostileCase => ({
  attack,
  language: 'java',
  code: (p) => `public class Main {\n    public static void main(String[] args) throws Exception {\n${body(p)}\n    }\n}\n`,
  verdicts,
});
const java: HostileCase[] = [
  jv('infinite loop', () => '        long x = 0; while (true) { x++; if (x == -1) System.out.println(x); }', ['TLE']),
  jv('memory bomb', () => '        java.util.List<byte[]> keep = new java.util.ArrayList<>(); while (true) keep.add(new byte[1 << 20]);', ['MLE']),
  // Memory outside the heap -Xmx caps: RLIMIT_AS (heap + what the JVM reserves) stops it;
  // without that bound these reservations run on until the CPU limit (TLE).
  jv(
    'native memory bomb',
    () =>
      '        java.lang.reflect.Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe"); f.setAccessible(true); sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null); while (true) u.allocateMemory(1 << 20);',
    ['MLE'],
  ),
  jv(
    '1 GB to stdout',
    () =>
      '        byte[] chunk = new byte[1 << 20]; java.util.Arrays.fill(chunk, (byte) 120); for (int i = 0; i < 1024; i++) System.out.write(chunk); System.out.flush();',
    ['OLE'],
  ),
  jv(
    'disk fill',
    () => '        try (java.io.FileOutputStream f = new java.io.FileOutputStream("fill.bin")) { byte[] b = new byte[1 << 20]; while (true) f.write(b); }',
    ['OLE', 'RE'],
  ),
  jv(
    'thread bomb',
    () =>
      '        while (true) { try { new Thread(() -> { try { Thread.sleep(1_000_000); } catch (InterruptedException e) { } }).start(); } catch (Throwable e) { } }',
    ['TLE', 'RE', 'MLE'],
  ),
  jv(
    'process spawning via ProcessBuilder',
    () => `        for (int i = 0; i < 8; i++) try { new ProcessBuilder("/usr/bin/sleep", "1000000").start(); } catch (Throwable e) { }\n        ${JAVA_SUM}`,
    ['OK'],
  ),
  jv(
    'a TCP connection to a listening loopback port',
    (p) =>
      `        try { new java.net.Socket("127.0.0.1", ${p.port}).close(); System.out.println("connected"); return; } catch (Exception e) { }\n        ${JAVA_SUM}`,
    ['OK'],
  ),
  jv(
    'reading the parent environment and /proc/<pid>/environ',
    (p) =>
      `        // The JVM runtime sets MALLOC_ARENA_MAX (jvm.ts) and nothing else.\n        boolean leak = !System.getenv().keySet().stream().allMatch(k -> k.equals("MALLOC_ARENA_MAX"));\n        for (String pid : new java.io.File("/proc").list()) { if (!pid.matches("\\\\d+")) continue; try { if (new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/proc/" + pid + "/environ"))).contains("${p.secretName}")) leak = true; } catch (Exception e) { } }\n        if (leak) { System.out.println("leak " + System.getenv()); return; }\n        ${JAVA_SUM}`,
    ['OK'],
  ),
  jv(
    'writing outside the working directory',
    (p) =>
      `        for (String path : new String[] { ${list(p)} }) try { java.nio.file.Files.write(java.nio.file.Paths.get(path), new byte[] { 120 }); } catch (Exception e) { }\n        ${JAVA_SUM}`,
    ['OK'],
  ),
];

const js = (attack: string, code: (p: Probe) => string, verdicts: Verdict[]): HostileCase => ({ attack, language: 'javascript', code, verdicts });
const javascript: HostileCase[] = [
  js('infinite loop', () => 'let x = 0; for (;;) { x++; }\n', ['TLE']),
  js('sleep forever', () => 'setInterval(() => {}, 1 << 30);\n', ['TLE']),
  // Buffers live outside V8's heap: RLIMIT_AS (heap cap + what V8 reserves) stops them. On a
  // loaded machine the page faults of filling that much memory can spend the CPU budget
  // first (SIGXCPU, TLE; seen in CI under load): either verdict means the bomb was contained.
  js('memory bomb', () => 'const keep = []; for (;;) keep.push(Buffer.alloc(1 << 20, 1));\n', ['MLE', 'TLE']),
  // V8 collects garbage harder and harder as its heap nears the cap; on a loaded machine the
  // CPU budget can run out in those collections before V8 gives up (SIGXCPU, TLE). Both
  // verdicts mean the bomb was contained; java-javascript.test.ts pins MLE for larger arrays.
  js('heap bomb', () => 'const keep = []; for (;;) keep.push(new Array(1 << 16).fill({ a: 1 }));\n', ['MLE', 'TLE']),
  js('1 GB to stdout', () => "const chunk = 'x'.repeat(1 << 20); for (let i = 0; i < 1024; i++) require('node:fs').writeSync(1, chunk);\n", ['OLE']),
  js(
    'disk fill',
    () => "const fs = require('node:fs'); const fd = fs.openSync('fill.bin', 'w'); const b = Buffer.alloc(1 << 20); for (;;) fs.writeSync(fd, b);\n",
    ['OLE', 'RE'],
  ),
  js(
    'a background child outliving its parent',
    () => `require('node:child_process').spawn('/usr/bin/sleep', ['1000000'], { detached: true, stdio: 'ignore' }).unref();\n${JS_SUM}\n`,
    ['OK'],
  ),
  js(
    'a TCP connection to a listening loopback port',
    (p) =>
      `const s = require('node:net').connect(${p.port}, '127.0.0.1');\ns.on('connect', () => { console.log('connected'); process.exit(0); });\ns.on('error', () => { ${JS_SUM} });\n`,
    ['OK'],
  ),
  js(
    'reading the parent environment and /proc/<pid>/environ',
    (p) =>
      `const fs = require('node:fs');\n// The runtime sets NODE_PATH (where lodash is) and nothing else.\nlet leak = Object.keys(process.env).some((k) => k !== 'NODE_PATH');\nfor (const pid of fs.readdirSync('/proc').filter((d) => /^\\d+$/.test(d))) { try { if (fs.readFileSync('/proc/' + pid + '/environ', 'latin1').includes('${p.secretName}')) leak = true; } catch {} }\nif (leak) console.log('leak', JSON.stringify(process.env)); else { ${JS_SUM} }\n`,
    ['OK'],
  ),
  js('killing the parent', () => "process.kill(process.ppid, 'SIGKILL');\ntry { process.kill(-1, 'SIGKILL'); } catch {}\n", ['RE', 'WA']),
  js(
    'writing outside the working directory',
    (p) => `for (const path of [${list(p)}, __dirname + '/pe_evil']) { try { require('node:fs').writeFileSync(path, 'x'); } catch {} }\n${JS_SUM}\n`,
    ['OK'],
  ),
  js(
    'reading the expected output',
    () =>
      "const fs = require('node:fs'); const path = require('node:path'); let found = '';\nconst scan = (dir, depth) => { if (depth > 3) return; let names = []; try { names = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; } for (const e of names) { if (e.name.startsWith('.')) continue; const p = path.join(dir, e.name); if (e.isDirectory()) { scan(p, depth + 1); continue; } try { if (fs.readFileSync(p, 'latin1').includes('EXPECTED_' + 'SECRET')) found = 'EXPECTED_' + 'SECRET'; } catch {} } };\nfor (const root of ['.', '/tmp', '..']) scan(root, 0);\nconsole.log(found || 'nothing');\n",
    ['WA'],
  ),
];

export const JAVA_JS_CASES: HostileCase[] = [...java, ...javascript];

/** Unit-test completions that exit 0 before the test's last assertion (must not pass). */
export const JAVA_JS_EARLY_EXIT = {
  java: {
    test: '\n\nclass Main {\n    public static void main(String[] args) throws Exception {\n        if (Add.add(2, 3) != 5) throw new Exception("2+3");\n    }\n}\n',
    completion: 'class Add {\n    static int add(int a, int b) {\n        System.exit(0);\n        return a + b;\n    }\n}\n',
  },
  javascript: {
    test: '\nif (add(2, 3) !== 5) throw new Error("2+3");\n',
    completion: 'function add(a, b) {\n  process.exit(0);\n}\n',
  },
};
