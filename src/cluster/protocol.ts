// The messages between the `dbrest serve` primary and its node:cluster workers (server-workers > 1).
// Every message carries `dbrest` (its kind), so they never mix with node's or prom-client's own.
import os from 'node:os';
import type { AppConfig } from '../config/types.js';

/** Worker → primary: listening for `start`; primary → worker: what the worker cannot learn itself. */
export interface Hello { readonly dbrest: 'hello' }
/**
 * The embedded database's URI (with the authenticator's password): sent over IPC, never on a command
 * line or in the environment. `startupChecks`: true for the first worker only, which runs the
 * start-up checks whose outcome is the database's, not the worker's (pooler warnings,
 * db-schema-watch): one line each, not one per worker.
 */
export interface Start { readonly dbrest: 'start'; readonly embeddedUri: string | null; readonly startupChecks: boolean }
/** Worker → primary: serving at `url`. */
export interface Started { readonly dbrest: 'started'; readonly url: string }

/** Primary → worker: a question the admin server needs answered. */
export type Question =
  | { readonly what: 'ready' }
  | { readonly what: 'metrics' }
  | { readonly what: 'admin'; readonly path: string };
export type Ask = { readonly dbrest: 'ask'; readonly id: number } & Question;

/** An admin route's answer as a worker wrote it; null when the worker has no such route. */
export interface AdminAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | number>>;
  readonly body: string;
}
/** Worker → primary. `metrics`: prom-client's getMetricsAsJSON of the worker's registry (null: none collected). */
export type Answer =
  | { readonly dbrest: 'answer'; readonly id: number; readonly ready: boolean }
  | { readonly dbrest: 'answer'; readonly id: number; readonly metrics: unknown[] | null }
  | { readonly dbrest: 'answer'; readonly id: number; readonly admin: AdminAnswer | null };

export type Message = Hello | Start | Started | Ask | Answer;

export function isMessage(m: unknown): m is Message {
  return typeof m === 'object' && m !== null && typeof (m as { dbrest?: unknown }).dbrest === 'string';
}

/** server-workers as a count: `auto` is the cores node may use. */
export function workerCount(config: Pick<AppConfig, 'serverWorkers'>, cores: () => number = os.availableParallelism): number {
  return config.serverWorkers === 'auto' ? Math.max(1, cores()) : config.serverWorkers;
}
