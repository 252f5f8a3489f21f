/**
 * Issue 35: the peak memory of the runners (one per executor image: the runner's Node process,
 * the compile server JVM for Kotlin, and the sandboxed program) — the figures
 * layers/app/cloud/function-memory.ts sizes the runner functions from. Run in a fresh child
 * process per language, as a runner holds them: this repository's sandbox (createSandboxExecutor,
 * the compile cache, Kotlin's warm compile server with its default -Xmx/-Xms heap flags,
 * layers/sandbox/kotlin-server/jvm-flags.ts), compiling and running hand-written HumanEval-style
 * programs (Kotlin unit tests; Python and C++ stdin/stdout programs), then one program that fills
 * its per-test memory limit.
 *
 * What it reads (proc(5)): the Node process's own peak resident set (VmHWM), the compile server
 * JVM's (its VmHWM, read before the runner ends it, and its utime+stime against the wall time of
 * the compilations: how many cores a compilation keeps busy), and each program's peak the
 * sandbox reports (`peakMemoryKb`). The runner's peak is taken as the sum of the three peaks,
 * an upper figure (they need not peak at once).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MEASURED_RUNNERS = ['python', 'cpp', 'kotlin'] as const;
export type MeasuredRunner = (typeof MEASURED_RUNNERS)[number];

export interface RunnerPeak {
  runner: MeasuredRunner;
  /** The runner's Node process (sandbox, compile cache, protocol), MB. */
  node_mb: number;
  /** Kotlin: the compile server JVM's peak resident set, MB (0 for the others). */
  compile_server_mb: number;
  /** Kotlin: the compile server's CPU time over the compilations' wall time (cores a compilation keeps busy). */
  compile_server_cpu_per_wall: number | null;
  /** The largest peak of a realistic program, MB. */
  program_mb: number;
  /** A program filling its per-test memory limit: its peak, MB, and the limit it ran under. */
  limit_program_mb: number;
  program_limit_mb: number;
  /** node_mb + compile_server_mb + the larger program peak. */
  peak_mb: number;
  programs: number;
}

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MB = 1024;
/** Makes every measuring run's programs new to the compile cache (a cached build is not a compilation). */
const NONCE = `${process.pid}-${Date.now()}`;

/** Hand-written HumanEval-style Kotlin completions (prompt + completion + a `main` test), the kind MBKP's are. */
const KOTLIN_PROGRAMS: { prompt: string; completion: string; test: string; entryPoint: string }[] = [
  {
    prompt: '/** Cuvintele distincte, sortate după frecvență. */\nfun frecvente(text: String): List<Pair<String, Int>> {\n',
    completion:
      '    val counts = HashMap<String, Int>()\n    for (w in text.lowercase().split(Regex("[^a-zăâîșț]+")).filter { it.isNotEmpty() }) counts[w] = (counts[w] ?: 0) + 1\n' +
      '    return counts.entries.sortedWith(compareByDescending<Map.Entry<String, Int>> { it.value }.thenBy { it.key }).map { it.key to it.value }\n}\n',
    test: '\nfun main() {\n    val r = frecvente("a b a c b a")\n    if (r.first() != ("a" to 3)) throw Exception("greșit")\n    if (r.size != 3) throw Exception("greșit")\n}\n',
    entryPoint: 'frecvente',
  },
  {
    prompt: '/** Al n-lea număr prim. */\nfun prim(n: Int): Int {\n',
    completion:
      '    val sieve = BooleanArray(200_000) { true }\n    var found = 0\n    for (i in 2 until sieve.size) {\n        if (!sieve[i]) continue\n        found++\n' +
      '        if (found == n) return i\n        var j = i.toLong() * i\n        while (j < sieve.size) { sieve[j.toInt()] = false; j += i }\n    }\n    return -1\n}\n',
    test: '\nfun main() {\n    if (prim(1) != 2) throw Exception("greșit")\n    if (prim(10_000) != 104729) throw Exception("greșit")\n}\n',
    entryPoint: 'prim',
  },
  {
    prompt: '/** Intervalele care se suprapun, unite. */\ndata class Interval(val a: Int, val b: Int)\nfun uneste(xs: List<Interval>): List<Interval> {\n',
    completion:
      '    val out = mutableListOf<Interval>()\n    for (x in xs.sortedBy { it.a }) {\n        val last = out.lastOrNull()\n' +
      '        if (last != null && x.a <= last.b) out[out.size - 1] = Interval(last.a, maxOf(last.b, x.b)) else out.add(x)\n    }\n    return out\n}\n',
    test: '\nfun main() {\n    if (uneste(listOf(Interval(1, 3), Interval(2, 6), Interval(8, 10))) != listOf(Interval(1, 6), Interval(8, 10))) throw Exception("greșit")\n}\n',
    entryPoint: 'uneste',
  },
  {
    prompt: '/** Șirul inversat pe cuvinte, fiecare cuvânt cu majusculă. */\nfun inverseaza(s: String): String {\n',
    completion: '    return s.trim().split(" ").filter { it.isNotBlank() }.reversed().joinToString(" ") { w -> w.replaceFirstChar { it.uppercase() } }\n}\n',
    test: '\nfun main() {\n    if (inverseaza(" ana are mere ") != "Mere Are Ana") throw Exception("greșit")\n}\n',
    entryPoint: 'inverseaza',
  },
];

/** Kotlin: fills most of its heap (-Xmx is the per-test limit), touching every page. */
const KOTLIN_FILL = {
  prompt: '/** Umple memoria. */\nfun umple(mb: Int): Long {\n',
  completion:
    '    val chunks = ArrayList<LongArray>()\n    var sum = 0L\n    repeat(mb) { val a = LongArray(131_072) { i -> i.toLong() }; sum += a[131_071]; chunks.add(a) }\n    return sum + chunks.size\n}\n',
  test: (mb: number) => `\nfun main() {\n    if (umple(${mb}) <= 0L) throw Exception("greșit")\n}\n`,
  entryPoint: 'umple',
};

/** Python and C++ programs: the sum of n numbers on stdin, a sort, and one that fills `mb` MB. */
const SOURCE_PROGRAMS: Record<'python' | 'cpp', { realistic: string[]; fill: (mb: number) => string }> = {
  python: {
    realistic: [
      'import sys\nd = sys.stdin.read().split()\nn = int(d[0])\nprint(sum(int(x) for x in d[1:1 + n]))\n',
      'import sys\nfrom collections import Counter\nd = sys.stdin.read().split()\nc = Counter(d)\nprint(sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0])\nxs = sorted(range(200000), key=lambda i: (i * 7919) % 10007)\nprint(xs[0])\n',
    ],
    fill: (mb) => `b = bytearray(${mb} * 1024 * 1024)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint(len(b))\n`,
  },
  cpp: {
    realistic: [
      '#include <bits/stdc++.h>\nint main(){long long n,s=0,x;std::cin>>n;for(int i=0;i<n;i++){std::cin>>x;s+=x;}std::cout<<s<<"\\n";}\n',
      '#include <bits/stdc++.h>\nint main(){std::vector<int> v(1000000);for(int i=0;i<1000000;i++)v[i]=(i*7919)%10007;std::sort(v.begin(),v.end());std::map<int,int> m;for(int x:v)m[x]++;std::cout<<m.size()<<"\\n";}\n',
    ],
    // Every page written through a volatile pointer, so the compiler cannot drop the buffer.
    fill: (mb) =>
      `#include <cstdio>\n#include <cstdlib>\nint main(){size_t n=(size_t)${mb}<<20;volatile char*p=(volatile char*)malloc(n);if(!p)return 1;for(size_t i=0;i<n;i+=4096)p[i]=(char)i;long s=0;for(size_t i=0;i<n;i+=4096)s+=p[i];std::printf("%ld\\n",s);}\n`,
  },
};

function statusKb(pid: number | 'self', field: 'VmHWM' | 'VmRSS'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** utime + stime of `pid` in ms (proc(5) /proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The compile server JVM among this process's descendants (its command line names the server's main class). */
function compileServerPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (cmd.includes('KotlinCompileServer') && ppid === process.pid) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** In a child: one runner's work in this process, as a runner function holds it. */
async function measureInChild(runner: MeasuredRunner, programLimitMb: number): Promise<RunnerPeak> {
  const { createSandboxExecutor } = await import('#sandbox/index.ts');
  const workRoot = await mkdtemp(join(tmpdir(), 'pe-runner-mem-'));
  const executor = await createSandboxExecutor({ concurrency: 1, workRoot });
  const limits = { cpuMs: 10_000, wallMs: 30_000, memoryMb: programLimitMb };
  let programKb = 0;
  let limitKb = 0;
  let programs = 0;
  let serverMb = 0;
  let cpuPerWall: number | null = null;
  try {
    if (runner === 'kotlin') {
      let compileWallMs = 0;
      let serverPid: number | undefined;
      let serverCpuBefore = 0;
      // Several rounds, so the server's young generation cycles and its heap is touched as a long-lived runner's is.
      for (let round = 0; round < 6; round++)
        for (const p of KOTLIN_PROGRAMS) {
          // A fresh body each time, in every measuring run: the compile cache would otherwise answer without compiling.
          const source = { language: 'kotlin' as const, ...p, test: `${p.test}// ${NONCE} ${round}\n` };
          const started = performance.now();
          const prep = await executor.host.prepareUnitTest(source);
          const wall = performance.now() - started;
          serverPid ??= compileServerPid();
          if (round === 0 && p === KOTLIN_PROGRAMS[0]) serverCpuBefore = serverPid === undefined ? 0 : cpuMsOf(serverPid);
          else compileWallMs += wall;
          if (!prep.ok) throw new Error(`a measuring program did not compile: ${prep.diagnostics}`);
          const run = await prep.program.run({ stdin: '', args: ['tok'], limits });
          if (run.termination !== 'exited') throw new Error(`a measuring program ended ${run.termination}: ${run.stderr.slice(0, 400)}`);
          programKb = Math.max(programKb, run.peakMemoryKb ?? 0);
          programs += 1;
        }
      if (serverPid !== undefined) {
        // The first compilation (the server's start and warm-up) is left out: the ratio is a warm compilation's.
        cpuPerWall = compileWallMs > 0 ? (cpuMsOf(serverPid) - serverCpuBefore) / compileWallMs : null;
        serverMb = statusKb(serverPid, 'VmHWM') / MB;
      }
      const fill = await executor.host.prepareUnitTest({
        language: 'kotlin',
        prompt: KOTLIN_FILL.prompt,
        completion: KOTLIN_FILL.completion,
        test: KOTLIN_FILL.test(Math.floor(programLimitMb * 0.85)),
        entryPoint: KOTLIN_FILL.entryPoint,
      });
      if (!fill.ok) throw new Error(`the filling program did not compile: ${fill.diagnostics}`);
      const run = await fill.program.run({ stdin: '', args: ['tok'], limits });
      limitKb = run.peakMemoryKb ?? 0;
      if (serverPid !== undefined) serverMb = Math.max(serverMb, statusKb(serverPid, 'VmHWM') / MB);
    } else {
      const set = SOURCE_PROGRAMS[runner];
      const stdin = `5 1 2 3 4 5\n${'ana are mere '.repeat(2000)}\n`;
      for (let round = 0; round < 3; round++)
        for (const code of set.realistic) {
          const prep = await executor.host.prepare(runner, `${code}${runner === 'python' ? '#' : '//'} ${NONCE} ${round}\n`);
          if (!prep.ok) throw new Error(`a measuring program did not compile: ${prep.diagnostics}`);
          const run = await prep.program.run({ stdin, limits });
          if (run.termination !== 'exited') throw new Error(`a measuring program ended ${run.termination}: ${run.stderr.slice(0, 400)}`);
          programKb = Math.max(programKb, run.peakMemoryKb ?? 0);
          programs += 1;
        }
      // Filling all but 32 MB of the limit (the interpreter's or the C runtime's own share of it).
      const prep = await executor.host.prepare(runner, set.fill(programLimitMb - 32));
      if (!prep.ok) throw new Error(`the filling program did not compile: ${prep.diagnostics}`);
      const run = await prep.program.run({ stdin: '', limits });
      if (run.termination !== 'exited') throw new Error(`the filling program ended ${run.termination}: ${run.stderr.slice(0, 400)}`);
      limitKb = run.peakMemoryKb ?? 0;
    }
  } finally {
    await executor.close();
    await rm(workRoot, { recursive: true, force: true });
  }
  const nodeMb = Math.round(statusKb('self', 'VmHWM') / MB);
  const program = Math.round(programKb / MB);
  const limitProgram = Math.round(limitKb / MB);
  const server = Math.round(serverMb);
  return {
    runner,
    node_mb: nodeMb,
    compile_server_mb: server,
    compile_server_cpu_per_wall: cpuPerWall === null ? null : Number(cpuPerWall.toFixed(2)),
    program_mb: program,
    limit_program_mb: limitProgram,
    program_limit_mb: programLimitMb,
    peak_mb: nodeMb + server + Math.max(program, limitProgram),
    programs,
  };
}

/** Each runner's peak with a program at `programLimitMb`, each measured in a fresh child process (see the module comment). */
export function measureRunnerPeaks(runners: readonly { runner: MeasuredRunner; programLimitMb: number }[]): RunnerPeak[] {
  return runners.map(({ runner, programLimitMb }) => {
    if (!Number.isInteger(programLimitMb) || programLimitMb < 64) throw new Error(`programLimitMb must be an integer of at least 64, got ${programLimitMb}`);
    const text = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', runner, String(programLimitMb)], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as RunnerPeak;
  });
}

if (process.argv[2] === '--child') {
  const [runner, limit] = process.argv.slice(3) as [MeasuredRunner, string];
  const peak = await measureInChild(runner, Number(limit));
  process.stdout.write(`\n${JSON.stringify(peak)}\n`);
}
