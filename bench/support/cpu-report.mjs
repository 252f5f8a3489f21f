// Loaded into every node process of a timed run (NODE_OPTIONS=--import, measure-run.ts): on exit
// each appends its own CPU seconds (/proc/self/stat utime + stime) and its command line to the
// file named by POLYEVAL_BENCH_CPU_FILE, so the bench can tell polyeval's own process from npx.
import { appendFileSync, readFileSync } from 'node:fs';

const file = process.env.POLYEVAL_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    const cpuS = (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, argv: process.argv.slice(1), cpuS })}\n`);
  });
}
