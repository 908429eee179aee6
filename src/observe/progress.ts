// Progress of long work (reading a big catalog: seconds at thousands of tables) for a person
// watching a terminal: one line on stderr, rewritten in place. Only when the stream is a TTY: to a
// pipe, a file or a log collector nothing is written at all, so scripts and logs see no difference.
import { stripVTControlCharacters } from 'node:util';
import type { CatalogProgress } from '../catalog/fetch.js';

export interface ProgressStream {
  write(s: string): unknown;
  readonly isTTY?: boolean;
}

export interface Progress {
  /** Replace the progress line. */
  update(text: string): void;
  /** A line that stays (the progress line is cleared first). */
  note(text: string): void;
  /** Clear the progress line, if one is shown; what follows prints as usual. */
  clear(): void;
}

/** Erase the terminal's current line and go back to its start (CR, then CSI 2K). */
const ERASE_LINE = '\r\x1b[2K';

export const NO_PROGRESS: Progress = { update: () => undefined, note: () => undefined, clear: () => undefined };

/** Progress on `stream` when it is a terminal; NO_PROGRESS otherwise. `prefix` starts each line. */
export function terminalProgress(stream: ProgressStream, prefix = 'dbrest'): Progress {
  if (stream.isTTY !== true) return NO_PROGRESS;
  let shown = false;
  // A line longer than the terminal would wrap, and ERASE_LINE would only clear its last row.
  const fit = (text: string): string => {
    const columns = (stream as { columns?: number }).columns || 80; // 0 on a pty nobody sized
    const visible = stripVTControlCharacters(prefix).length + 1 + text.length;
    return visible < columns ? `${prefix} ${text}` : `${prefix} ${text.slice(0, Math.max(0, columns - visible + text.length - 2))}…`;
  };
  const clear = (): void => {
    if (!shown) return;
    stream.write(ERASE_LINE);
    shown = false;
  };
  return {
    update(text) {
      stream.write(`${ERASE_LINE}${fit(text)}`);
      shown = true;
    },
    note(text) {
      clear();
      stream.write(`${prefix} ${text}\n`);
    },
    clear,
  };
}

const count = (n: number): string => n.toLocaleString('en-US');

/** `schema cache: reading functions… 1,204 relations read, columns read` */
export function catalogProgressLine(p: CatalogProgress): string {
  if (p.phase === 'building') {
    return `schema cache: building from ${count(p.relations ?? 0)} relations and ${count(p.functions ?? 0)} functions…`;
  }
  const read: string[] = [];
  if (p.relations !== null) read.push(`${count(p.relations)} relations`);
  if (p.functions !== null) read.push(`${count(p.functions)} functions`);
  if (p.columnsRead) read.push('columns');
  return `schema cache: reading ${p.phase}…${read.length > 0 ? ` (read: ${read.join(', ')})` : ''}`;
}

/**
 * The callback loadSchemaCache takes, drawing on `progress`; null when nothing is shown (not a
 * terminal), so no line is built: the first `toLocaleString` loads ICU's locale data, ~20 ms of a
 * cold start.
 */
export const catalogProgress = (progress: Progress): ((p: CatalogProgress) => void) | null =>
  progress === NO_PROGRESS ? null : (p) => progress.update(catalogProgressLine(p));
