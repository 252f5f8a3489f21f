import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '#core/types.ts';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { scratch, settledProcesses, sumTask } from './helpers.ts';

const dirs = scratch('hostile');
const CANARY = 'POLYEVAL_CANARY_7f3a';
let executor: SandboxExecutor;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  process.env[CANARY] = 'parent-secret';
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  executor = await createSandboxExecutor({ concurrency: 2, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
}, 600_000);

afterAll(async () => {
  await executor?.close();
  server?.close();
  delete process.env[CANARY];
  rmSync(dirs.root, { recursive: true, force: true });
});

const outside = () => [`${dirs.cacheDir}/pe_evil`, `${dirs.root}/pe_evil`, '/usr/pe_evil', '/tmp/pe_evil_host'];

type Case = [name: string, language: 'python' | 'c', code: () => string, verdicts: Verdict[]];

const ANSWER_PY = 'a, b = map(int, input().split())\nprint(a + b)\n';
const cases: Case[] = [
  ['fork bomb', 'python', () => 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n', ['TLE', 'RE']],
  ['fork bomb', 'c', () => '#include <unistd.h>\nint main(void){for(;;)fork();}\n', ['TLE', 'RE']],
  ['memory bomb', 'python', () => 'x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n', ['MLE']],
  ['memory bomb', 'c', () => '#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char*p=malloc(1<<20);if(!p)return 1;memset(p,1,1<<20);}}\n', ['MLE']],
  ['infinite loop', 'python', () => 'while True:\n    pass\n', ['TLE']],
  ['sleep forever', 'python', () => 'import time\ntime.sleep(10**6)\n', ['TLE']],
  ['sleep forever', 'c', () => '#include <unistd.h>\nint main(void){for(;;)pause();}\n', ['TLE']],
  ['1 GB to stdout', 'python', () => 'import sys\nchunk = "x" * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\n', ['OLE']],
  ['1 GB to stdout', 'c', () => '#include <stdio.h>\n#include <string.h>\nint main(void){static char b[1<<20];memset(b,120,sizeof b);for(int i=0;i<1024;i++)fwrite(b,1,sizeof b,stdout);return 0;}\n', ['OLE']],
  ['disk fill', 'python', () => 'f = open("fill.bin", "wb")\nwhile True:\n    f.write(b"x" * (1 << 20))\n', ['OLE']],
  ['disk fill', 'c', () => '#include <stdio.h>\nint main(void){static char b[1<<20];FILE*f=fopen("fill.bin","wb");for(;;)fwrite(b,1,sizeof b,f);}\n', ['OLE']],
  ['a background child outliving its parent', 'python', () => `import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(10**6)\n${ANSWER_PY}`, ['OK']],
  ['a background child outliving its parent', 'c', () => '#include <stdio.h>\n#include <unistd.h>\nint main(void){if(fork()==0){setsid();for(;;)pause();}int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n', ['OK']],
  ['a TCP connection attempt', 'python', () => `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("connected")\nexcept OSError:\n    ${ANSWER_PY.replaceAll('\n', '\n    ')}`, ['OK']],
  ['reading the parent environment', 'python', () => `import os\nleak = "${CANARY}" in os.environ\nfor pid in ["1", str(os.getppid())]:\n    try:\n        leak = leak or b"${CANARY}" in open(f"/proc/{pid}/environ", "rb").read()\n    except OSError:\n        pass\n# Python coerces the C locale by setting LC_CTYPE itself (PEP 538); nothing else may be there.\nif leak or set(os.environ) - {"LC_CTYPE"}:\n    print("leak", dict(os.environ))\nelse:\n    ${ANSWER_PY.replaceAll('\n', '\n    ')}`, ['OK']],
  ['killing the parent', 'python', () => 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(-1, signal.SIGKILL)\n', ['RE']],
  ['killing the parent', 'c', () => '#include <signal.h>\n#include <unistd.h>\nint main(void){kill(getppid(),SIGKILL);kill(-1,SIGKILL);return 0;}\n', ['RE']],
  ['writing outside the working directory', 'python', () => `import os\nwrote = []\nfor p in ${JSON.stringify(outside())} + [os.path.join(os.path.dirname(os.path.abspath(__file__)), "pe_evil")]:\n    try:\n        open(p, "w").write("x")\n        wrote.append(p)\n    except OSError:\n        pass\n# Writes into the private /tmp may succeed; the test checks the host's file system.\n${ANSWER_PY}`, ['OK']],
  ['reading the expected output', 'python', () => 'import os\nfound = ""\nfor root in [".", "/tmp", ".."]:\n    for d, _, files in os.walk(root):\n        for f in files:\n            try:\n                if "EXPECTED_" + "SECRET" in open(os.path.join(d, f), errors="ignore").read():\n                    found = "EXPECTED_" + "SECRET"\n            except OSError:\n                pass\nprint(found or "nothing")\n', ['WA']],
];

describe('hostile programs', () => {
  it('runs under bubblewrap on this machine', () => {
    expect(executor.isolation).toBe('bwrap');
  });

  it.each(cases)('contains %s in %s', async (name, language, code, verdicts) => {
    const task = name === 'reading the expected output' ? sumTask({ tests: [{ input: '1 2\n', output: 'EXPECTED_SECRET\n' }] }) : sumTask({ tests: [{ input: '1 2\n', output: '3\n' }] });
    const outcome = await executor.execute({ scorer: 'io-tests', task, language, code: code() });
    expect(verdicts).toContain(outcome.verdict);
    expect(await settledProcesses(dirs.cacheDir)).toEqual([]);
    expect(readdirSync(dirs.workRoot)).toEqual([]);
    for (const path of outside()) expect(existsSync(path)).toBe(false);
    for (const build of readdirSync(`${dirs.cacheDir}/builds`)) expect(existsSync(`${dirs.cacheDir}/builds/${build}/pe_evil`)).toBe(false);
    expect(connections).toBe(0);
  }, 120_000);

  it('keeps the harness responsive afterwards', async () => {
    const outcome = await executor.execute({ scorer: 'io-tests', task: sumTask(), language: 'python', code: ANSWER_PY });
    expect(outcome.verdict).toBe('OK');
  });
});
