// The bench's load generator, always in a process of its own (on a 2-core machine a generator in
// the bench's process competes with the servers it measures on unequal terms): wrk when it is on
// PATH (Debian package `wrk`), else autocannon in a child (autocannon-child.ts). BENCH_GENERATOR=wrk
// or =autocannon forces one.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ladderAt, QUANTILE_POINTS } from './percentiles.js';

export interface GenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface GenSpec {
  readonly port: number;
  readonly connections: number;
  readonly seconds: number;
  /** Cycled through by every connection. */
  readonly requests: ReadonlyArray<GenRequest>;
}

export interface GenResult {
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers that were not 2xx (wrk: not 2xx or 3xx). */
  readonly non2xx: number;
  /** Connection/read/write errors, timeouts not included. */
  readonly errors: number;
  readonly timeouts: number;
  readonly statusCodes: Record<string, number>;
  /** Latencies (ms) at percentiles.ts's QUANTILE_POINTS, to pool the rounds of a case. */
  readonly quantilesMs?: number[];
}

export type GeneratorName = 'wrk' | 'autocannon';

const here = path.dirname(fileURLToPath(import.meta.url)); // dist/test/bench
const TIMEOUT_S = 10;

export function chooseGenerator(): { name: GeneratorName; detail: string } {
  const forced = process.env.BENCH_GENERATOR?.trim().toLowerCase();
  if (forced && forced !== 'wrk' && forced !== 'autocannon') throw new Error(`BENCH_GENERATOR must be wrk or autocannon, got ${JSON.stringify(forced)}`);
  const wrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  const wrkFound = !wrk.error;
  if (forced === 'wrk' && !wrkFound) throw new Error('BENCH_GENERATOR=wrk but wrk is not on PATH (Debian: apt-get install wrk)');
  if (forced === 'wrk' || (!forced && wrkFound)) {
    const version = /wrk\s+(\S+)/.exec((wrk.stdout ?? '') + (wrk.stderr ?? ''))?.[1] ?? '?';
    const threads = Math.max(1, Math.min(2, os.cpus().length));
    return { name: 'wrk', detail: `wrk ${version}, ${threads} threads, own process` };
  }
  return { name: 'autocannon', detail: 'autocannon in a child process' };
}

let current: ChildProcess | null = null;

/** Stops a run in progress (cleanup on abort). */
export function stopGenerator(): void {
  current?.kill('SIGTERM');
}

/** Runs one load; requests wrk's script cannot carry (not printable ASCII) go to autocannon. */
export function runGenerator(name: GeneratorName, spec: GenSpec): Promise<GenResult> {
  return name === 'wrk' && spec.requests.every(asciiOnly) ? runWrk(spec) : runAutocannon(spec);
}

const asciiOnly = (r: GenRequest) => !/[^\x20-\x7e]/.test(r.path + (r.body ?? '') + JSON.stringify(r.headers ?? {}));

function runChild(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    current = proc;
    let out = '';
    let err = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    proc.once('error', (e) => {
      current = null;
      reject(e);
    });
    proc.once('exit', (code, signal) => {
      current = null;
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} exited ${signal ?? code}: ${err.trim() || out.trim().slice(-500)}`));
    });
  });
}

async function runAutocannon(spec: GenSpec): Promise<GenResult> {
  const arg = JSON.stringify({ url: `http://127.0.0.1:${spec.port}`, connections: spec.connections, seconds: spec.seconds, timeoutS: TIMEOUT_S, requests: spec.requests });
  const out = await runChild(process.execPath, [path.join(here, 'autocannon-child.js'), arg]);
  const line = out.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as GenResult;
}

const lua = (s: string) => JSON.stringify(s); // a JSON string literal is a valid Lua string literal for our ASCII requests

/** A wrk script cycling through the requests and printing the figures as one JSON line. */
export function wrkScript(requests: ReadonlyArray<GenRequest>): string {
  const formatted = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {})
      .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
      .join(', ');
    return `  wrk.format(${lua(r.method)}, ${lua(r.path)}, { ${headers} }${r.body !== undefined ? `, ${lua(r.body)}` : ''})`;
  });
  return `local requests
local i = 0
init = function(args)
  requests = {
${formatted.join(',\n')}
  }
  i = math.random(#requests) - 1
end
request = function()
  i = i % #requests + 1
  return requests[i]
end
done = function(summary, latency, _)
  local e = summary.errors
  local q = {}
  for _, p in ipairs({ ${QUANTILE_POINTS.join(', ')} }) do q[#q + 1] = string.format('%d', latency:percentile(p)) end
  io.write(string.format('WRKJSON {"requests":%d,"us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"q":[%s]}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout, table.concat(q, ',')))
end
`;
}

async function runWrk(spec: GenSpec): Promise<GenResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-wrk-'));
  try {
    const script = path.join(dir, 'requests.lua');
    writeFileSync(script, wrkScript(spec.requests));
    const threads = Math.max(1, Math.min(2, os.cpus().length, spec.connections));
    const out = await runChild('wrk', [
      `-t${threads}`,
      `-c${spec.connections}`,
      `-d${Math.max(1, Math.round(spec.seconds))}s`, // whole seconds only; the figures use wrk's measured duration
      `--timeout`,
      `${TIMEOUT_S}s`,
      '-s',
      script,
      `http://127.0.0.1:${spec.port}`,
    ]);
    const m = /^WRKJSON (.*)$/m.exec(out);
    if (!m) throw new Error(`wrk printed no figures: ${out.slice(-500)}`);
    const w = JSON.parse(m[1]!) as { requests: number; us: number; status: number; connect: number; read: number; write: number; timeout: number; q: number[] };
    const ok = w.requests - w.status;
    // p50 and p99 are read off the ladder (wrk's latencies in µs).
    const ms = (us: number) => Math.round(us / 10) / 100;
    return {
      requests: w.requests,
      seconds: w.us / 1e6,
      p50Ms: ms(ladderAt(w.q, 50)),
      p99Ms: ms(ladderAt(w.q, 99)),
      non2xx: w.status,
      errors: w.connect + w.read + w.write,
      timeouts: w.timeout,
      statusCodes: w.status > 0 ? { '2xx/3xx': ok, other: w.status } : { '2xx/3xx': ok },
      quantilesMs: w.q.map((us) => us / 1000),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
