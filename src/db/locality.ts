// Does PostgreSQL run on this machine, sharing its cores with dbrest? Then the sharing policy
// pipelines fast batches deeper (db/share-policy.ts, LOCAL_SHARE_POLICY): each backend woken to run
// a batch takes a core from dbrest itself.
import { createRequire } from 'node:module';
import os from 'node:os';
import type pg from 'pg';
import { DEFAULT_SHARE_POLICY, LOCAL_SHARE_POLICY, type SharePolicyOptions } from './share-policy.js';

const require = createRequire(import.meta.url);
// pg's own resolution of a connection's parameters (URI, PG* environment variables, defaults).
const ConnectionParameters = require('pg/lib/connection-parameters.js') as new (config: object) => { host?: string };

/**
 * Cores at most for the local policy. It was measured on 2; with more cores, spreading batches over
 * backends costs dbrest less, and the default stays until it is measured there.
 */
export const LOCAL_POLICY_MAX_CORES = 4;

/** The host a pool connects to, as pg resolves it (a directory for a Unix socket). */
export function poolHost(pool: pg.Pool): string | undefined {
  try {
    return new ConnectionParameters((pool as pg.Pool & { options: object }).options).host;
  } catch {
    return undefined; // unparseable: not known to be local
  }
}

/** Whether `host` is this machine: a Unix socket, a loopback address, or one of its own names/addresses. */
export function isLocalHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h.startsWith('/')) return true;
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)) return true;
  if (h === os.hostname().toLowerCase()) return true;
  return Object.values(os.networkInterfaces()).some((addrs) => addrs?.some((a) => a.address.toLowerCase() === h));
}

/**
 * The sharing policy for a database at `host` on a machine with `cores` cores. On this machine,
 * fast batches run on at most 2 × cores + 1 connections at once (the rule of thumb for a pool's
 * size, HikariCP's "About Pool Sizing"): more busy backends than that only take turns on the cores.
 */
export function sharePolicyFor(host: string | undefined, cores: number = os.availableParallelism()): SharePolicyOptions {
  if (!isLocalHost(host) || cores > LOCAL_POLICY_MAX_CORES) return DEFAULT_SHARE_POLICY;
  return { ...LOCAL_SHARE_POLICY, maxFastConnections: 2 * cores + 1 };
}
