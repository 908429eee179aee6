// Human log lines: colored with chalk (which honours NO_COLOR / FORCE_COLOR), filtered by log-level.
// Secrets never reach here: callers log names and codes, not tokens or URIs with passwords.
import chalk from 'chalk';
import type { LogLevel } from '../config/types.js';

const rank: Record<LogLevel, number> = { crit: 0, error: 1, warn: 2, info: 3, debug: 4 };

export interface Logger {
  readonly level: LogLevel;
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
  enabled(level: LogLevel): boolean;
  /** A line at the configured level itself (whatever it is): log-query's SQL. */
  atLevel(msg: string): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at = (l: LogLevel, paint: (s: string) => string) => (msg: string) => {
    if (rank[l] <= rank[level]) write(`${chalk.dim(new Date().toISOString())} ${paint(l.toUpperCase().padEnd(5))} ${msg}`);
  };
  const paints: Record<LogLevel, (s: string) => string> = { crit: chalk.red, error: chalk.red, warn: chalk.yellow, info: chalk.cyan, debug: chalk.gray };
  return {
    level,
    atLevel: at(level, paints[level]),
    error: at('error', chalk.red),
    warn: at('warn', chalk.yellow),
    info: at('info', chalk.cyan),
    debug: at('debug', chalk.gray),
    enabled: (l) => rank[l] <= rank[level],
  };
}

/** Mask the password of a postgres URI before it is printed. */
export function maskUri(uri: string): string {
  try {
    const u = new URL(uri);
    if (u.password) u.password = '********';
    return u.toString();
  } catch {
    return uri.replace(/password=\S+/g, 'password=********');
  }
}
