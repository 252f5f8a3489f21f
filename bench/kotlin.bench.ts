/**
 * Bench (a) of issue 3: Kotlin compile time per sample, cold `kotlinc` per compilation vs
 * the warm compile server, over 22 small hand-written programs (each also run once, so a
 * fast but wrong compile cannot count). Target: warm ≥ 8× faster per sample.
 *
 * Cold compiles run one at a time (that is what a per-sample `kotlinc` costs); warm ones
 * run one at a time after the server's start-up, which is reported on its own line, then
 * once more with two in flight for throughput.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createKotlinCompiler, type KotlinCompiler } from '../layers/sandbox/languages/kotlin-compiler.ts';

const exec = promisify(execFile);

interface BenchTask {
  id: string;
  body: string;
  expected: string;
}

/** Each body is the inside of `fun main()`, plus optional top-level declarations after `//--`. */
const TASKS: BenchTask[] = [
  { id: 'sum', body: 'println((1..100).sum())', expected: '5050' },
  {
    id: 'fizz',
    body: 'println((1..15).joinToString(",") { if (it % 15 == 0) "FB" else if (it % 3 == 0) "F" else if (it % 5 == 0) "B" else "$it" })',
    expected: '1,2,F,4,B,F,7,8,F,B,11,F,13,14,FB',
  },
  { id: 'fib', body: 'var a = 0L; var b = 1L\nrepeat(50) { val t = a + b; a = b; b = t }\nprintln(a)', expected: '12586269025' },
  {
    id: 'primes',
    body: 'println((2..50).filter { n -> (2 until n).none { n % it == 0 } }.joinToString(" "))',
    expected: '2 3 5 7 11 13 17 19 23 29 31 37 41 43 47',
  },
  { id: 'reverse', body: 'println("polyeval".reversed())', expected: 'laveylop' },
  { id: 'palindrome', body: 'val w = listOf("ana", "mere", "cojoc", "pere")\nprintln(w.filter { it == it.reversed() })', expected: '[ana, cojoc]' },
  { id: 'gcd', body: 'println(gcd(1071, 462))\n//--\ntailrec fun gcd(a: Int, b: Int): Int = if (b == 0) a else gcd(b, a % b)', expected: '21' },
  { id: 'data-class', body: 'val p = Point(3, 4)\nprintln(p.copy(y = 7))\n//--\ndata class Point(val x: Int, val y: Int)', expected: 'Point(x=3, y=7)' },
  {
    id: 'sealed',
    body: 'val shapes = listOf(Sq(2.0), Circle(1.0))\nprintln(shapes.sumOf { area(it) }.toInt())\n//--\nsealed interface Shape\nclass Sq(val s: Double) : Shape\nclass Circle(val r: Double) : Shape\nfun area(s: Shape): Double = when (s) { is Sq -> s.s * s.s\n is Circle -> 3.14159 * s.r * s.r }',
    expected: '7',
  },
  { id: 'map-count', body: 'val counts = "abracadabra".groupingBy { it }.eachCount().toSortedMap()\nprintln(counts)', expected: '{a=5, b=2, c=1, d=1, r=2}' },
  {
    id: 'sort-by',
    body: 'val people = listOf("Ion" to 31, "Ana" to 25, "Dan" to 40)\nprintln(people.sortedBy { it.second }.map { it.first })',
    expected: '[Ana, Ion, Dan]',
  },
  {
    id: 'string-builder',
    body: 'val sb = StringBuilder()\nfor (i in 1..5) sb.append(i).append(if (i < 5) "+" else "=")\nsb.append((1..5).sum())\nprintln(sb)',
    expected: '1+2+3+4+5=15',
  },
  { id: 'matrix', body: 'val m = Array(3) { i -> IntArray(3) { j -> i * 3 + j } }\nprintln((0 until 3).sumOf { m[it][it] })', expected: '12' },
  { id: 'binary-search', body: 'val xs = (0 until 100 step 3).toList()\nprintln(xs.binarySearch(42))', expected: '14' },
  { id: 'extension', body: 'println(7.squared() + 1)\n//--\nfun Int.squared(): Int = this * this', expected: '50' },
  { id: 'lambda-fold', body: 'val f: (Int) -> Int = { it * 2 }\nprintln(listOf(1, 2, 3).map(f).fold(1) { acc, x -> acc * x })', expected: '48' },
  { id: 'nullable', body: 'val xs = listOf("1", "x", "3", null)\nprintln(xs.mapNotNull { it?.toIntOrNull() }.sum())', expected: '4' },
  {
    id: 'enum',
    body: 'println(Color.values().joinToString { it.name.lowercase() + it.ordinal })\n//--\nenum class Color { RED, GREEN, BLUE }',
    expected: 'red0, green1, blue2',
  },
  { id: 'sequence', body: 'println(generateSequence(1) { it * 3 }.takeWhile { it < 1000 }.toList())', expected: '[1, 3, 9, 27, 81, 243, 729]' },
  {
    id: 'interface',
    body: 'val a: Animal = Dog()\nprintln(a.speak())\n//--\ninterface Animal { fun speak(): String = "..." }\nclass Dog : Animal { override fun speak() = "Ham" }',
    expected: 'Ham',
  },
  {
    id: 'when-range',
    body: 'println(listOf(3, 15, 70).map { when (it) { in 0..9 -> "mic"\n in 10..49 -> "mediu"\n else -> "mare" } })',
    expected: '[mic, mediu, mare]',
  },
  { id: 'object-counter', body: 'repeat(4) { Counter.tick() }\nprintln(Counter.n)\n//--\nobject Counter { var n = 0\n fun tick() { n++ } }', expected: '4' },
];

function source(task: BenchTask): string {
  const [body, decls] = task.body.split('\n//--\n');
  return `fun main() {\n${body}\n}\n${decls ?? ''}\n`;
}

/** Compiles every task (`inFlight` at once) and checks each program's output; returns compile seconds (wall, program runs excluded). */
async function compileAll(compiler: KotlinCompiler, tasks: BenchTask[], root: string, tag: string, inFlight: number): Promise<number> {
  let next = 0;
  let verifying = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < tasks.length; i = next++) {
      const task = tasks[i] as BenchTask;
      const outDir = join(root, `${tag}-${task.id}`);
      const result = await compiler.compile({ sources: [{ name: 'Main.kt', content: source(task) }], outDir });
      if (!result.ok) throw new Error(`${tag} compile of ${task.id} failed:\n${result.diagnostics}`);
      const t0 = performance.now();
      const { stdout } = await exec('java', ['-cp', `${outDir}:${compiler.stdlibJar()}`, 'MainKt']);
      verifying += inFlight === 1 ? performance.now() - t0 : 0;
      if (stdout.trim() !== task.expected) throw new Error(`${tag} ${task.id}: printed ${stdout.trim()}, expected ${task.expected}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (performance.now() - started - verifying) / 1000;
}

/**
 * Runs the bench. `coldSamples` limits how many tasks the (slow) cold path compiles;
 * by default all of them.
 */
export async function run(opts: { coldSamples?: number } = {}): Promise<{ name: string; value: number; unit: string; note?: string }[]> {
  const root = await mkdtemp(join(tmpdir(), 'polyeval-kotlin-bench-'));
  const coldTasks = TASKS.slice(0, opts.coldSamples ?? TASKS.length);
  try {
    const cold = createKotlinCompiler({ mode: 'cold', maxInFlight: 1 });
    const coldTotal = await compileAll(cold, coldTasks, root, 'cold', 1);
    await cold.close();

    const warm = createKotlinCompiler({ mode: 'warm', maxInFlight: 2 });
    const startT0 = performance.now();
    await warm.warmUp();
    const startup = (performance.now() - startT0) / 1000;
    if (warm.stats().fallbackReason) throw new Error(`warm server did not start: ${warm.stats().fallbackReason}`);
    const warmTotal = await compileAll(warm, TASKS, root, 'warm', 1);
    const warmPairTotal = await compileAll(warm, TASKS, root, 'warm2', 2);
    await warm.close();

    const coldPer = coldTotal / coldTasks.length;
    const warmPer = warmTotal / TASKS.length;
    const note = 'compile wall time; each program then runs once to check its output';
    return [
      { name: 'kotlin cold kotlinc per sample', value: round(coldPer), unit: 's', note: `${coldTasks.length} tasks, ${note}` },
      { name: 'kotlin warm server per sample', value: round(warmPer), unit: 's', note: `${TASKS.length} tasks, ${note}` },
      { name: 'kotlin warm speed-up (cold / warm)', value: round(coldPer / warmPer), unit: 'x', note: 'target ≥ 8' },
      {
        name: 'kotlin warm per sample, 2 in flight',
        value: round(warmPairTotal / TASKS.length),
        unit: 's',
        note: 'second pass, wall time incl. the program runs',
      },
      {
        name: 'kotlin warm server start-up',
        value: round(startup),
        unit: 's',
        note: 'JVM boot + 4 warm-up compilations, once per server (recycled ones start in the background)',
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
