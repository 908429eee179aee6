// `dbrest serve` as a child process in a directory of its own, for the tests of the embedded
// default: no database settings from the environment (so it starts its own PostgreSQL), plain
// output, and the call returns once it prints its URL (or exits).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface ServeChild {
  readonly child: ChildProcess;
  /** The exit code, once the process ends. */
  readonly exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** From spawn to its `listening on` line. */
  readonly ms: number;
}

/** `args`: after `serve` (`--watch`, a config file). */
export async function spawnServe(cwd: string, port: number, extraEnv: Record<string, string> = {}, args: ReadonlyArray<string> = []): Promise<ServeChild> {
  const env: Record<string, string> = { ...process.env, NO_COLOR: '1', DBREST_SERVER_PORT: String(port), ...extraEnv } as Record<string, string>;
  for (const k of Object.keys(env)) if ((k.startsWith('DBREST_DB_') && !(k in extraEnv)) || k.startsWith('PGRST_')) delete env[k];
  const started = Date.now();
  const child = spawn(process.execPath, [path.resolve('bin/dbrest.js'), 'serve', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // The first start runs initdb and loads the examples: up to a minute on a busy machine.
  for (let i = 0; i < 1200 && !output.includes('listening on'); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, exited, output: () => output, ms: Date.now() - started };
}

export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Another dbrest command (`introspect --json`, …) in `cwd`, with the same environment as spawnServe's. */
export function runCommand(cwd: string, args: ReadonlyArray<string>): Promise<CommandRun> {
  const env: Record<string, string> = { ...process.env, NO_COLOR: '1' } as Record<string, string>;
  for (const k of Object.keys(env)) if (k.startsWith('DBREST_') || k.startsWith('PGRST_')) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve('bin/dbrest.js'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
