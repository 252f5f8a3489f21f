// The hostile-program suite's programs, one per attack and language: bundled, so the
// deployed self-test (suite.ts, `polyeval remote selftest`) and the sandbox tests
// (test/sandbox/hostile*.test.ts, rlimits.test.ts) run the same programs. Probes that look for
// something they must not reach print the sum only when they failed to reach it, so a breach
// shows as WA, not as a silent pass.
import type { Verdict } from '../types.ts';
import { JAVA_JS_CASES, JAVA_JS_EARLY_EXIT } from './hostile-java-javascript.ts';

export type HostileLanguage = 'python' | 'c' | 'cpp' | 'kotlin' | 'java' | 'javascript';

/** A UDP address a probe sends a DNS query to. */
export interface DnsServer {
  host: string;
  port: number;
}

/** What a program may mention: the test server's port, the secret's name, host paths to attack. */
export interface Probe {
  port: number;
  secretName: string;
  outside: string[];
  /** DNS servers to query besides {@link DNS_SERVERS} (a test's own listener). */
  dns?: readonly DnsServer[];
}

/** The public name the DNS probe looks up: resolving it means a name left the sandbox. */
export const DNS_PROBE_NAME = 'aws.amazon.com';

/**
 * The resolvers a runner could ask: the Amazon DNS server at 169.254.169.253 and at the runner
 * VPC's base address plus two (infra/runner-network.ts; EC2 API reference, ModifyVpcAttribute
 * `EnableDnsSupport`). Security groups and network ACLs do not filter either.
 */
export const RUNNER_VPC_CIDR = '10.43.0.0/16';
export const DNS_SERVERS: readonly DnsServer[] = [
  { host: '169.254.169.253', port: 53 },
  { host: '10.43.0.2', port: 53 },
];

const dnsServers = (p: Probe): DnsServer[] => [...DNS_SERVERS, ...(p.dns ?? [])];
/** A DNS query (RFC 1035 §4.1: header with RD set, one question, QTYPE A, QCLASS IN) for {@link DNS_PROBE_NAME}, as bytes. */
const DNS_QUERY = [
  ...[0x70, 0x65, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
  ...DNS_PROBE_NAME.split('.').flatMap((label) => [label.length, ...[...label].map((ch) => ch.charCodeAt(0))]),
  ...[0x00, 0x00, 0x01, 0x00, 0x01],
];

export interface HostileCase {
  attack: string;
  language: HostileLanguage;
  code: (p: Probe) => string;
  verdicts: Verdict[];
  /** Which scorer runs it (default io-tests on one `1 2` → `3` test). */
  scorer?: 'unit-tests';
  /** The io test's CPU limit when not the default 1 s (see MEMORY_BOMB_CPU_MS). */
  timeLimitMs?: number;
}

/**
 * A memory bomb's CPU limit. Filling memory is page faults, and on a loaded VM a first touch
 * of a page can cost 40× its idle time (seen here: 1 s of CPU for 125 MB), so under the 1 s
 * default a bomb can run out of CPU (TLE) just short of its memory limit. With 4 s it
 * reaches the limit and gets the verdict under test, MLE.
 */
export const MEMORY_BOMB_CPU_MS = 4000;

const PY_SUM = 'a, b = map(int, input().split())\nprint(a + b)\n';
const indent = (code: string) => code.replaceAll('\n', '\n    ');
const C_SUM = 'int a,b;if(scanf("%d %d",&a,&b)==2)printf("%d\\n",a+b);';
const CPP_SUM = 'long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";';
const KT_SUM = 'val (a, b) = readLine()!!.trim().split(" ").map { it.toInt() }; println(a + b)';
const C_HEAD =
  '#include <dirent.h>\n#include <fcntl.h>\n#include <netdb.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <arpa/inet.h>\n#include <sys/socket.h>\n#include <sys/time.h>\n';
const CPP_HEAD = `${C_HEAD}#include <bits/stdc++.h>\n`;
const cList = (paths: string[]) => `{${paths.map((p) => JSON.stringify(p)).join(',')}}`;

/** Native probes shared by C and C++ (the C subset compiles as both). */
const native = {
  forkBomb: () => 'int main(void){for(;;)fork();}',
  memoryBomb: () => 'int main(void){for(;;){char*p=(char*)malloc(1<<20);if(!p)return 1;memset(p,1,1<<20);}}',
  loop: () => 'int main(void){volatile unsigned long x=0;for(;;)x++;}',
  sleep: () => 'int main(void){for(;;)pause();}',
  flood: () => 'int main(void){static char b[1<<20];memset(b,120,sizeof b);for(int i=0;i<1024;i++)fwrite(b,1,sizeof b,stdout);return 0;}',
  diskFill: () => 'int main(void){static char b[1<<20];FILE*f=fopen("fill.bin","wb");for(;;)fwrite(b,1,sizeof b,f);}',
  orphan: (sum: string) => `int main(void){if(fork()==0){setsid();for(;;)pause();}${sum}return 0;}`,
  tcp: (sum: string, p: Probe) =>
    `int main(void){int s=socket(AF_INET,SOCK_STREAM,0);struct sockaddr_in sa;memset(&sa,0,sizeof sa);sa.sin_family=AF_INET;sa.sin_port=htons(${p.port});sa.sin_addr.s_addr=htonl(0x7f000001);if(s>=0&&connect(s,(struct sockaddr*)&sa,sizeof sa)==0){puts("connected");return 0;}${sum}return 0;}`,
  // Scans its own environment and every /proc/<pid>/environ it can see, its parent's included.
  environment: (sum: string, p: Probe) =>
    `extern char **environ;\nstatic int leaks(const char*path){static char b[1<<16];int fd=open(path,O_RDONLY);if(fd<0)return 0;ssize_t n=read(fd,b,sizeof b-1);close(fd);if(n<=0)return 0;for(ssize_t i=0;i+(ssize_t)strlen("${p.secretName}")<=n;i++)if(memcmp(b+i,"${p.secretName}",strlen("${p.secretName}"))==0)return 1;return 0;}\nint main(void){int leak=environ[0]!=0;char path[64];snprintf(path,sizeof path,"/proc/%d/environ",(int)getppid());leak|=leaks(path);DIR*d=opendir("/proc");struct dirent*e;while(d&&(e=readdir(d))){if(e->d_name[0]<'0'||e->d_name[0]>'9')continue;snprintf(path,sizeof path,"/proc/%s/environ",e->d_name);leak|=leaks(path);}if(leak){printf("leak %s\\n",environ[0]?environ[0]:"proc");return 0;}${sum}return 0;}`,
  // A lookup of a public name through the C library, then a raw query to each resolver: any answer is a name that left.
  dns: (sum: string, p: Probe) =>
    `static const unsigned char q[]={${DNS_QUERY.join(',')}};static const char*hosts[]=${cList(dnsServers(p).map((d) => d.host))};static const int ports[]={${dnsServers(
      p,
    )
      .map((d) => d.port)
      .join(
        ',',
      )}};\nint main(void){int reached=0;struct addrinfo*ai=0;if(getaddrinfo("${DNS_PROBE_NAME}","443",0,&ai)==0)reached=1;for(unsigned i=0;i<sizeof ports/sizeof*ports;i++){int s=socket(AF_INET,SOCK_DGRAM,0);if(s<0)continue;struct timeval tv={0,300000};setsockopt(s,SOL_SOCKET,SO_RCVTIMEO,&tv,sizeof tv);struct sockaddr_in sa;memset(&sa,0,sizeof sa);sa.sin_family=AF_INET;sa.sin_port=htons(ports[i]);inet_pton(AF_INET,hosts[i],&sa.sin_addr);char r[512];if(sendto(s,q,sizeof q,0,(struct sockaddr*)&sa,sizeof sa)==(ssize_t)sizeof q&&recv(s,r,sizeof r,0)>0)reached=1;close(s);}if(reached){puts("resolved");return 0;}${sum}return 0;}`,
  killParent: () => 'int main(void){kill(getppid(),SIGKILL);kill(-1,SIGKILL);return 0;}',
  writeOutside: (sum: string, p: Probe) =>
    `int main(void){const char*paths[]=${cList([...p.outside, '../pe_evil'])};for(unsigned i=0;i<sizeof paths/sizeof*paths;i++){FILE*f=fopen(paths[i],"w");if(f){fputs("x",f);fclose(f);}}${sum}return 0;}`,
  // The expected output is not in the working directory, /tmp or the parent directory.
  readExpected: () =>
    'static int found;\nstatic void scan(const char*dir,int depth){DIR*d=opendir(dir);struct dirent*e;char p[4096];static char b[1<<16];if(!d||depth>3)return;while((e=readdir(d))){if(e->d_name[0]==\'.\')continue;snprintf(p,sizeof p,"%s/%s",dir,e->d_name);if(e->d_type==DT_DIR){scan(p,depth+1);continue;}int fd=open(p,O_RDONLY);if(fd<0)continue;ssize_t n=read(fd,b,sizeof b-1);close(fd);if(n>0){b[n]=0;if(strstr(b,"EXPECTED_" "SECRET"))found=1;}}closedir(d);}\nint main(void){scan(".",0);scan("/tmp",0);scan("..",0);puts(found?"EXPECTED_" "SECRET":"nothing");return 0;}',
};

function nativeCases(language: 'c' | 'cpp'): HostileCase[] {
  const head = language === 'c' ? C_HEAD : CPP_HEAD;
  const sum = language === 'c' ? C_SUM : CPP_SUM;
  const c = (attack: string, body: (p: Probe) => string, verdicts: Verdict[]): HostileCase => ({
    attack,
    language,
    code: (p) => `${head}${body(p)}\n`,
    verdicts,
  });
  return [
    c('fork bomb', native.forkBomb, ['TLE', 'RE']),
    c('memory bomb', native.memoryBomb, ['MLE']),
    c('infinite loop', native.loop, ['TLE']),
    c('sleep forever', native.sleep, ['TLE']),
    c('1 GB to stdout', native.flood, ['OLE']),
    c('disk fill', native.diskFill, ['OLE']),
    c('a background child outliving its parent', () => native.orphan(sum), ['OK']),
    c('a TCP connection to a listening loopback port', (p) => native.tcp(sum, p), ['OK']),
    c('reading the parent environment and /proc/<pid>/environ', (p) => native.environment(sum, p), ['OK']),
    c('a DNS lookup of a public name', (p) => native.dns(sum, p), ['OK']),
    c('killing the parent', native.killParent, ['RE', 'WA']),
    c('writing outside the working directory', (p) => native.writeOutside(sum, p), ['OK']),
    c('reading the expected output', native.readExpected, ['WA']),
  ];
}

const python: HostileCase[] = [
  ['fork bomb', () => 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n', ['TLE', 'RE']],
  ['memory bomb', () => 'x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n', ['MLE']],
  ['infinite loop', () => 'while True:\n    pass\n', ['TLE']],
  ['sleep forever', () => 'import time\ntime.sleep(10**6)\n', ['TLE']],
  ['1 GB to stdout', () => 'import sys\nchunk = "x" * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\n', ['OLE']],
  ['disk fill', () => 'f = open("fill.bin", "wb")\nwhile True:\n    f.write(b"x" * (1 << 20))\n', ['OLE']],
  ['a background child outliving its parent', () => `import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\n${PY_SUM}`, ['OK']],
  [
    'a TCP connection to a listening loopback port',
    (p: Probe) =>
      `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${p.port}), timeout=2)\n    print("connected")\nexcept OSError:\n    ${indent(PY_SUM)}`,
    ['OK'],
  ],
  [
    'reading the parent environment and /proc/<pid>/environ',
    (p: Probe) =>
      `import os\nleak = "${p.secretName}" in os.environ\nfor pid in [d for d in os.listdir("/proc") if d.isdigit()] + [str(os.getppid())]:\n    try:\n        leak = leak or b"${p.secretName}" in open(f"/proc/{pid}/environ", "rb").read()\n    except OSError:\n        pass\n# Python coerces the C locale by setting LC_CTYPE itself (PEP 538); nothing else may be there.\nif leak or set(os.environ) - {"LC_CTYPE"}:\n    print("leak", dict(os.environ))\nelse:\n    ${indent(PY_SUM)}`,
    ['OK'],
  ],
  [
    'a DNS lookup of a public name',
    (p: Probe) =>
      `import socket\nreached = []\ntry:\n    reached.append(socket.getaddrinfo("${DNS_PROBE_NAME}", 443)[0][4][0])\nexcept OSError:\n    pass\nfor server in ${JSON.stringify(dnsServers(p).map((d) => [d.host, d.port]))}:\n    try:\n        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n        s.settimeout(0.3)\n        s.sendto(bytes(${JSON.stringify(DNS_QUERY)}), tuple(server))\n        s.recv(512)\n        reached.append(server[0])\n    except OSError:\n        pass\nif reached:\n    print("resolved", reached)\nelse:\n    ${indent(PY_SUM)}`,
    ['OK'],
  ],
  // The supervisor is the PID namespace's init, which ignores the program's signals: no output, WA.
  ['killing the parent', () => 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(-1, signal.SIGKILL)\n', ['RE', 'WA']],
  [
    'writing outside the working directory',
    (p: Probe) =>
      `import os\nfor path in ${JSON.stringify(p.outside)} + [os.path.join(os.path.dirname(os.path.abspath(__file__)), "pe_evil"), "../pe_evil"]:\n    try:\n        open(path, "w").write("x")\n    except OSError:\n        pass\n${PY_SUM}`,
    ['OK'],
  ],
  [
    'reading the expected output',
    () =>
      'import os\nfound = ""\nfor root in [".", "/tmp", ".."]:\n    for d, _, files in os.walk(root):\n        for f in files:\n            try:\n                if "EXPECTED_" + "SECRET" in open(os.path.join(d, f), errors="ignore").read():\n                    found = "EXPECTED_" + "SECRET"\n            except OSError:\n                pass\nprint(found or "nothing")\n',
    ['WA'],
  ],
].map(([attack, code, verdicts]) => ({ attack, language: 'python', code, verdicts }) as HostileCase);

const kt = (attack: string, body: (p: Probe) => string, verdicts: Verdict[]): HostileCase => ({
  attack,
  language: 'kotlin',
  code: (p) => `fun main() {\n${body(p)}\n}\n`,
  verdicts,
});
const kotlin: HostileCase[] = [
  kt('infinite loop', () => '    var x = 0L\n    while (true) { x++; if (x == -1L) println(x) }', ['TLE']),
  kt('memory bomb', () => '    val keep = ArrayList<ByteArray>()\n    while (true) keep.add(ByteArray(1 shl 20) { 1 })', ['MLE']),
  kt('1 GB to stdout', () => '    val chunk = ByteArray(1 shl 20) { 120 }\n    repeat(1024) { System.out.write(chunk) }\n    System.out.flush()', ['OLE']),
  kt('thread bomb', () => '    while (true) { try { Thread { Thread.sleep(1_000_000) }.start() } catch (e: Throwable) { } }', ['TLE', 'RE', 'MLE']),
  kt(
    'process spawning via ProcessBuilder',
    () => `    repeat(8) { try { ProcessBuilder("/usr/bin/sleep", "1000000").start() } catch (e: Throwable) { } }\n    ${KT_SUM}`,
    ['OK'],
  ),
  kt(
    'a TCP connection to a listening loopback port',
    (p) => `    try { java.net.Socket("127.0.0.1", ${p.port}).close(); println("connected"); return } catch (e: Exception) { }\n    ${KT_SUM}`,
    ['OK'],
  ),
  kt(
    'a DNS lookup of a public name',
    (p) =>
      `    val reached = mutableListOf<String>()\n    try { reached.add(java.net.InetAddress.getByName("${DNS_PROBE_NAME}").hostAddress) } catch (e: Exception) { }\n    val q = byteArrayOf(${DNS_QUERY.join(', ')})\n    for ((host, port) in listOf(${dnsServers(
        p,
      )
        .map((d) => `"${d.host}" to ${d.port}`)
        .join(
          ', ',
        )})) try { java.net.DatagramSocket().use { s -> s.soTimeout = 300; s.send(java.net.DatagramPacket(q, q.size, java.net.InetAddress.getByName(host), port)); s.receive(java.net.DatagramPacket(ByteArray(512), 512)); reached.add(host) } } catch (e: Exception) { }\n    if (reached.isNotEmpty()) { println("resolved " + reached); return }\n    ${KT_SUM}`,
    ['OK'],
  ),
  kt(
    'reading the parent environment and /proc/<pid>/environ',
    (p) =>
      `    // The JVM runtime sets MALLOC_ARENA_MAX (jvm.ts) and nothing else.\n    var leak = System.getenv().keys.any { it != "MALLOC_ARENA_MAX" }\n    val pids = java.io.File("/proc").list()!!.filter { n -> n.all { it.isDigit() } } + ProcessHandle.current().parent().map { it.pid().toString() }.orElse("1")\n    for (pid in pids) try { if (java.io.File("/proc/$pid/environ").readText().contains("${p.secretName}")) leak = true } catch (e: Exception) { }\n    if (leak) { println("leak " + System.getenv()); return }\n    ${KT_SUM}`,
    ['OK'],
  ),
  kt(
    'writing outside the working directory',
    (p) =>
      `    for (path in listOf(${[...p.outside, '../pe_evil'].map((x) => JSON.stringify(x)).join(', ')})) try { java.io.File(path).writeText("x") } catch (e: Exception) { }\n    ${KT_SUM}`,
    ['OK'],
  ),
];

/** Unit-test completions that exit 0 before the test's last assertion (must not pass). */
export const EARLY_EXIT: Record<HostileLanguage, { test: string; completion: string }> = {
  python: { test: 'def check(candidate):\n    assert candidate(2, 3) == 5\n', completion: 'import sys\ndef add(a, b):\n    sys.exit(0)\n' },
  c: {
    test: '#include <assert.h>\nint main(void){ assert(add(2,3)==5); return 0; }\n',
    completion: '#include <stdlib.h>\nint add(int a, int b){ exit(0); }\n',
  },
  cpp: {
    test: '#include <cassert>\nint main(){ assert(add(2,3)==5); return 0; }\n',
    completion: '#include <cstdlib>\nint add(int a, int b){ std::exit(0); }\n',
  },
  kotlin: {
    test: 'fun main() {\n    if (add(2, 3) != 5) throw AssertionError("2+3")\n}\n',
    completion: 'fun add(a: Int, b: Int): Int { kotlin.system.exitProcess(0) }\n',
  },
  ...JAVA_JS_EARLY_EXIT,
};

const early = (Object.keys(EARLY_EXIT) as HostileLanguage[]).map((language): HostileCase => ({
  attack: 'exiting early to fake a pass',
  language,
  code: () => EARLY_EXIT[language].completion,
  verdicts: ['WA'],
  scorer: 'unit-tests',
}));

export const HOSTILE_CASES: HostileCase[] = [...python, ...nativeCases('c'), ...nativeCases('cpp'), ...kotlin, ...JAVA_JS_CASES, ...early].map((c) =>
  /memory bomb/u.test(c.attack) ? { ...c, timeLimitMs: MEMORY_BOMB_CPU_MS } : c,
);
