import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.jetbrains.kotlin.cli.common.ExitCode;
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler;
import org.jetbrains.kotlin.config.KotlinCompilerVersion;

/**
 * polyeval's warm Kotlin compile server: one JVM that keeps the Kotlin compiler loaded and
 * JIT-compiled, serving compile requests over stdin/stdout.
 *
 * Protocol (UTF-8 lines, every free-text field base64-encoded so it never contains a space
 * or a newline):
 *   server → client, once:   READY <kotlin-version>      or   FAIL <b64 reason>
 *   client → server:         C <id> <b64 arg> <b64 arg> ...   (kotlinc arguments)
 *   server → client:         R <id> <exit-code> <ms> <heap-mb> <b64 diagnostics> <cpu-ms>
 *   client → server:         Q                            (exit now)
 * End of stdin also exits at once: the server never outlives its parent's pipe.
 *
 * Arguments: {@code <threads> <stack-mb> <heap-recheck-mb> <warm-ups>}. Requests run on a fixed pool
 * of threads; the compiler keeps per-compilation state in its own objects, and the shared
 * application environment is reference counted and locked by the compiler itself (the same
 * arrangement the Kotlin daemon relies on), so concurrent requests are safe.
 */
public final class KotlinCompileServer {
  private static final Base64.Encoder B64E = Base64.getEncoder();
  private static final Base64.Decoder B64D = Base64.getDecoder();

  private KotlinCompileServer() {}

  public static void main(String[] argv) throws Exception {
    int threads = argv.length > 0 ? Integer.parseInt(argv[0]) : 1;
    long stackBytes = (argv.length > 1 ? Long.parseLong(argv[1]) : 32L) << 20;
    long recheckMb = argv.length > 2 ? Long.parseLong(argv[2]) : Long.MAX_VALUE;
    int warmUps = argv.length > 3 ? Integer.parseInt(argv[3]) : 1;

    // The protocol owns the real stdout; anything the compiler prints goes to stderr.
    PrintStream proto = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err);

    try {
      for (int i = 0; i < Math.max(1, warmUps); i++) warmUp(i);
    } catch (Throwable t) {
      proto.println("FAIL " + b64(String.valueOf(t)));
      proto.flush();
      Runtime.getRuntime().halt(3);
    }
    proto.println("READY " + KotlinCompilerVersion.VERSION);
    proto.flush();

    AtomicInteger counter = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(null, r, "compile-" + counter.incrementAndGet(), stackBytes);
      t.setDaemon(true);
      return t;
    });

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("Q")) break;
      if (!line.startsWith("C ")) continue;
      String[] parts = line.split(" ");
      String id = parts[1];
      String[] args = new String[parts.length - 2];
      for (int i = 2; i < parts.length; i++) {
        args[i - 2] = new String(B64D.decode(parts[i]), StandardCharsets.UTF_8);
      }
      pool.execute(() -> {
        String reply = compile(id, args, recheckMb);
        synchronized (proto) {
          proto.println(reply);
          proto.flush();
        }
      });
    }
    // Halt rather than exit: in-flight compilations die with the server, by design.
    Runtime.getRuntime().halt(0);
  }

  private static String compile(String id, String[] args, long recheckMb) {
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(diagnostics, true, StandardCharsets.UTF_8);
    long t0 = System.nanoTime();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu0 = threads.getCurrentThreadCpuTime();
    String code;
    try {
      ExitCode exit = new K2JVMCompiler().execFullPathsInMessages(err, args);
      code = exit.name();
    } catch (Throwable t) {
      t.printStackTrace(err);
      code = "INTERNAL_ERROR";
    }
    long ms = (System.nanoTime() - t0) / 1_000_000L;
    // CPU time of this request's thread: what decides the compile limit on a loaded machine.
    long cpuMs = (threads.getCurrentThreadCpuTime() - cpu0) / 1_000_000L;
    err.flush();
    return "R " + id + " " + code + " " + ms + " " + heapMb(recheckMb) + " "
        + B64E.encodeToString(diagnostics.toByteArray()) + " " + cpuMs;
  }

  /** Heap in use; above the recheck level, measured again after a full GC so garbage does not count. */
  private static long heapMb(long recheckMb) {
    long used = usedMb();
    if (used < recheckMb) return used;
    System.gc();
    return usedMb();
  }

  private static long usedMb() {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return heap.getUsed() >> 20;
  }

  /**
   * A small compilation before READY: loads and JIT-warms the compiler (the first few
   * compilations of a fresh JVM are several times slower than later ones), and proves it works.
   */
  private static void warmUp(int round) throws Exception {
    Path dir = Files.createTempDirectory("polyeval-kt-warm-");
    try {
      Path src = dir.resolve("Warm.kt");
      Files.writeString(src, String.join("\n",
          "data class P" + round + "(val a: Int, val b: String)",
          "sealed interface S { object A : S; class B(val n: Int) : S }",
          "fun <T : Comparable<T>> top(xs: List<T>, k: Int): List<T> = xs.sortedDescending().take(k)",
          "fun f(s: S): Int = when (s) { is S.A -> 0; is S.B -> s.n * " + round + " }",
          "fun main() {",
          "  val m = mutableMapOf<String, Int>()",
          "  for (w in \"a b a c\".split(\" \")) m[w] = (m[w] ?: 0) + 1",
          "  val p = P" + round + "(1, \"x\").copy(b = \"y\")",
          "  println(top(listOf(3, 1, 2), 2).joinToString() + m + p + f(S.B(2)) + (1..9).filter { it % 2 == 0 }.sum())",
          "}", ""));
      ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
      PrintStream err = new PrintStream(diagnostics, true, StandardCharsets.UTF_8);
      ExitCode exit = new K2JVMCompiler().execFullPathsInMessages(
          err, new String[] {"-no-reflect", "-d", dir.resolve("out").toString(), src.toString()});
      if (exit != ExitCode.OK) {
        throw new IllegalStateException("warm-up compilation failed: " + exit + "\n"
            + diagnostics.toString(StandardCharsets.UTF_8));
      }
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static String b64(String s) {
    return B64E.encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
