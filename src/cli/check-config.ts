// `dbrest check-config [config-file]`: print the resolved configuration with the source of every key and secrets
// masked (exit 0), or one line per problem (exit 1). Wiring only; the rules are in src/config/.

import type { LoadedConfig } from '../config/load.js';
import { chalkFor, renderConfig, renderProblems } from '../config/print.js';

export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Print the problems (red, stderr); returns 1 when there were any, else 0. */
export function reportProblems(loaded: LoadedConfig, io: CliIo): number {
  if (loaded.problems.length === 0) return 0;
  io.stderr.write(renderProblems(loaded.problems, { chalk: chalkFor('stderr', io.env) }));
  return 1;
}

export function runCheckConfig(loaded: LoadedConfig, io: CliIo): number {
  if (reportProblems(loaded, io) !== 0) return 1;
  io.stdout.write(renderConfig(loaded, { chalk: chalkFor('stdout', io.env) }));
  return 0;
}
