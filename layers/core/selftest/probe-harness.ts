// The MXEval tests that carry an io probe (a whole program reading `1 2` and printing `3`)
// through the unit-tests judge: the probe's program becomes the function `selftestProbe`,
// and the test runs it with `1 2` as its standard input, passes what it prints on to the real
// standard output (so a flood still meets the output limit: OLE), keeps the first 4 KB, and
// throws unless the probe printed exactly `3`. So the test passes (OK) only when the probe
// ran to its end having reached nothing, as the io judge's `3` does: a probe that printed
// what it reached fails the test (RE), one that exited early never lets the runtime print
// the execution's token (WA), and the bombs end as they do on io tests (TLE, MLE, OLE).

/** The function an io probe's program becomes (the rows' `entry_point`). */
export const PROBE_FUNCTION = 'selftestProbe';

/** Kotlin: `System.in`/`System.out` swapped around the call (`readLine()` and `println` read them per call). */
export const KOTLIN_PROBE_TEST = `fun main() {
    val real = System.out
    val seen = java.io.ByteArrayOutputStream()
    val tee = object : java.io.OutputStream() {
        override fun write(b: Int) { real.write(b); if (seen.size() < 4096) seen.write(b) }
        override fun write(b: ByteArray, off: Int, len: Int) { real.write(b, off, len); seen.write(b, off, minOf(len, maxOf(0, 4096 - seen.size()))) }
        override fun flush() { real.flush() }
    }
    System.setIn("1 2\\n".byteInputStream())
    System.setOut(java.io.PrintStream(tee, true))
    try { ${PROBE_FUNCTION}() } finally { System.out.flush(); System.setOut(real) }
    val printed = seen.toString().trim()
    if (printed != "3") throw AssertionError("the probe printed: " + printed.take(300))
}
`;

/** Java: MXEval's `class Main` test, around the probe class's static method. */
export const JAVA_PROBE_TEST = `class Main {
    public static void main(String[] args) throws Exception {
        final java.io.PrintStream real = System.out;
        final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        java.io.OutputStream tee = new java.io.OutputStream() {
            @Override public void write(int b) { real.write(b); if (seen.size() < 4096) seen.write(b); }
            @Override public void write(byte[] b, int off, int len) { real.write(b, off, len); seen.write(b, off, Math.min(len, Math.max(0, 4096 - seen.size()))); }
            @Override public void flush() { real.flush(); }
        };
        System.setIn(new java.io.ByteArrayInputStream("1 2\\n".getBytes()));
        System.setOut(new java.io.PrintStream(tee, true));
        try { SelftestProbe.${PROBE_FUNCTION}(); } finally { System.out.flush(); System.setOut(real); }
        String printed = seen.toString().trim();
        if (!printed.equals("3")) throw new AssertionError("the probe printed: " + printed.substring(0, Math.min(300, printed.length())));
    }
}
`;

/**
 * JavaScript: standard input is fd 0 read with `readFileSync`, and a probe may answer from a
 * callback (the TCP probe), after the runtime has printed the token following the test's last
 * statement. So the test holds that line back (the first printed after its last statement,
 * in the same turn) and prints it only once the event loop is empty (`beforeExit`, which
 * `process.exit` skips) and the probe has printed `3`; otherwise it says what the probe printed
 * and exits 1 (a thrown error would bury that under its source line).
 */
export const JAVASCRIPT_PROBE_TEST = `const selftestFs = require('node:fs');
const selftestRead = selftestFs.readFileSync;
selftestFs.readFileSync = (file, ...rest) => (file === 0 || file === '/dev/stdin' ? '1 2\\n' : selftestRead(file, ...rest));
const selftestLog = console.log;
const selftestSeen = [];
let selftestEnded = false;
let selftestToken;
console.log = (...args) => {
  const line = args.join(' ');
  if (selftestEnded && selftestToken === undefined) selftestToken = line;
  else {
    selftestSeen.push(line);
    selftestLog(...args);
  }
};
${PROBE_FUNCTION}();
process.once('beforeExit', () => {
  const printed = selftestSeen.join('\\n').trim();
  if (printed === '3') {
    if (selftestToken !== undefined) selftestLog(selftestToken);
    return;
  }
  process.stderr.write('the probe printed: ' + printed.slice(0, 300) + '\\n');
  process.exitCode = 1;
});
selftestEnded = true;
`;
