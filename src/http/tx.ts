// Transaction rules shared by every action: how it ends (db-tx-end × Prefer: tx) and the
// db-pre-request call.
import type { AppConfig } from '../config/types.js';
import type { Preferences } from '../request/types.js';
import { compile, qualified, sql, type Statement } from '../sql/fragment.js';

export function txEnd(cfg: Pick<AppConfig, 'dbTxEnd'>, prefs: Pick<Preferences, 'tx'>): 'commit' | 'rollback' {
  switch (cfg.dbTxEnd) {
    case 'commit':
      return 'commit';
    case 'rollback':
      return 'rollback';
    case 'commit-allow-override':
      return prefs.tx ?? 'commit';
    case 'rollback-allow-override':
      return prefs.tx ?? 'rollback';
  }
}

/** True when the client's `Prefer: tx=` was honoured (for Preference-Applied). */
export function txPreferenceApplied(cfg: Pick<AppConfig, 'dbTxEnd'>, prefs: Pick<Preferences, 'tx'>): boolean {
  return prefs.tx !== null && cfg.dbTxEnd.endsWith('allow-override');
}

const preRequestCache = new Map<string, Statement>();
export function preRequestStatement(cfg: Pick<AppConfig, 'dbPreRequest'>): Statement | null {
  const name = cfg.dbPreRequest;
  if (!name) return null;
  let st = preRequestCache.get(name);
  if (!st) {
    const dot = name.indexOf('.');
    const q = dot === -1 ? { schema: 'public', name } : { schema: name.slice(0, dot), name: name.slice(dot + 1) };
    st = compile(sql`SELECT ${qualified(q)}()`);
    preRequestCache.set(name, st);
  }
  return st;
}
