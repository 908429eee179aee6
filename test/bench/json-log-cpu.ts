// CPU per JSON access line, in a process of its own whose stderr is a pipe this process drains (or
// /dev/null with JLOG_DEVNULL=1), at a server's pace: JLOG_BURST lines every millisecond timer
// tick, as requests end, not in one loop (a loop outruns the reader, and what is measured is then
// the stalled pipe). The child's utime+stime over JLOG_LINES lines, less the same loop without the
// logger, divided by the lines. Several builds' json-log modules alternate round by round, so two
// builds compare on a busy machine, where the whole server's CPU per request is noise.
//   node dist/test/bench/json-log-cpu.js [json-log.js …]   (default this build's;
//                                                   env: JLOG_ROUNDS=3 JLOG_LINES=60000 JLOG_BURST=20)
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccessEvent } from '../../src/observe/access.js';
import { median } from './cpu-runs.js';

const here = fileURLToPath(import.meta.url);
const lines = Number(process.env.JLOG_LINES ?? 60000);
const burst = Number(process.env.JLOG_BURST ?? 20);

const event = (i: number): AccessEvent => ({
  id: `3f9a1c-${i.toString(36)}`, method: 'GET', route: '/tracks', status: 200, code: null, role: 'bench_anon',
  durationMs: 0.8123 + (i % 7) / 10, dbMs: 0.4312, bytes: 245, traceId: null,
});

if (process.argv[2] === 'child') {
  const { createJsonLogger } = (await import(pathToFileURL(process.argv[3]!).href)) as typeof import('../../src/observe/json-log.js');
  const log = createJsonLogger('info');
  const run = async (logging: boolean): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < lines; i++) {
      const e = event(i);
      if (logging) log.access(e);
      if (i % burst === 0) await sleep(1);
    }
    await sleep(250); // the last batch written
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  await run(true); // warm-up
  let on = 0;
  let off = 0;
  for (let r = 0; r < 2; r++) {
    off += await run(false);
    on += await run(true);
  }
  process.stdout.write(String((on - off) / (2 * lines)));
  log.flush();
} else {
  const modules = process.argv.length > 2 ? process.argv.slice(2).map((m) => path.resolve(m)) : [path.resolve(path.dirname(here), '../../src/observe/json-log.js')];
  const results = new Map<string, number[]>();
  for (let round = 0; round < Number(process.env.JLOG_ROUNDS ?? 3); round++) {
    for (const m of modules) {
      const us = await new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, [here, 'child', m], { stdio: ['ignore', 'pipe', process.env.JLOG_DEVNULL === '1' ? 'ignore' : 'pipe'] });
        let out = '';
        child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
        child.stderr?.on('data', () => undefined);
        child.on('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`${m}: exit ${code}`))));
      });
      results.set(m, [...(results.get(m) ?? []), us]);
      console.log(`round ${round + 1} ${path.relative(process.cwd(), m)}: ${us.toFixed(2)} µs CPU/line`);
    }
  }
  for (const [m, xs] of results) console.log(`median ${path.relative(process.cwd(), m)}: ${median(xs).toFixed(2)} µs CPU/line [${xs.map((x) => x.toFixed(2)).join(', ')}]`);
}
