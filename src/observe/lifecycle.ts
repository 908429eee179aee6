// A lifecycle event (start, schema cache loaded, reload, reconnect, shutdown): a named JSON event
// with fields under log-format=json (written whatever the log-level, as the CLI's own lines are), the
// same sentence as before under the text format (at the log-level given).
import { isStructured } from './json-log.js';
import type { Logger } from './log.js';

export function lifecycle(
  log: Logger,
  name: string,
  text: string,
  fields: Readonly<Record<string, unknown>> = {},
  level: 'info' | 'warn' | 'error' = 'info',
): void {
  if (isStructured(log)) {
    log.event(name, { msg: text, ...fields }, level);
  } else log[level](text);
}
