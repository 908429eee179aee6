// `serve --watch`: notice the config file changing. The directory is watched, not the file: editors
// and deploy tools often write a new file and rename it over the old one, which a watch on the old
// inode never sees. A save that fires several events costs one call, and a write that leaves the
// bytes as they were (touch, a save without edits) costs none.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { coalesce } from '../catalog/coalesce.js';

/** Quiet time after the last file event before the file is read again. */
export const CONFIG_WATCH_QUIET_MS = 100;

export interface ConfigWatcher {
  close(): void;
}

const readOrNull = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null; // between an editor's unlink and rename; the rename's event follows
  }
};

/** Calls `changed` after the file's content changes; `failed` if the directory cannot be watched. */
export function watchConfigFile(file: string, changed: () => void, failed: (e: Error) => void): ConfigWatcher {
  const name = path.basename(file);
  let last = readOrNull(file);
  const settle = coalesce(() => {
    const now = readOrNull(file);
    if (now === null || now === last) return;
    last = now;
    changed();
  }, CONFIG_WATCH_QUIET_MS, 2000);
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, (_event, filename) => {
      // Some platforms give no name: any event in the directory may be ours.
      if (filename === null || filename.toString() === name) settle.add();
    });
    watcher.on('error', failed);
  } catch (e) {
    failed(e as Error);
  }
  return {
    close() {
      settle.cancel();
      watcher?.close();
    },
  };
}
