// log-query: the SQL of a request's main statement, written at the configured log-level (PostgREST
// 13's `log-query = "main-query"`). The values are bound parameters and are logged beside the text,
// never spliced into it.
import type { Logger } from './log.js';

export interface LoggedStatement {
  readonly text: string;
  readonly values: ReadonlyArray<unknown>;
}

export function logQuery(log: Logger, st: LoggedStatement): void {
  const params = st.values.length > 0 ? ` -- params: ${JSON.stringify(st.values)}` : '';
  log.atLevel(`query: ${st.text.replace(/\s+/g, ' ').trim()}${params}`);
}
