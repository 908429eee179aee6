// The bundled examples the embedded default serves (engine spec §7): each folder of examples/ holds
// its SQL (`*.sql`, loaded in name order, once), optionally its route mounts (`routes.json`, the value
// of the `routes` key) and a manifest (`example.json`: a title and the first URLs to try). quickstart
// comes first; the others follow in name order. Reading files only; loading is bootstrap.ts's job.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** examples/ of this installation (next to dist/ and src/). */
export const examplesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');

export interface Example {
  readonly name: string;
  readonly dir: string;
  readonly sqlFiles: ReadonlyArray<string>;
  /** The parsed routes.json, or null when the example mounts nothing. */
  readonly routes: unknown;
  readonly title: string;
  /** Paths to try first, printed at start-up (`/api/v2/pages/`). */
  readonly tryPaths: ReadonlyArray<string>;
}

interface Manifest {
  readonly title?: string;
  readonly try?: ReadonlyArray<string>;
}

export function listExamples(dir: string = examplesDir): Example[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort((a, b) => (a === 'quickstart' ? -1 : b === 'quickstart' ? 1 : a.localeCompare(b)));
  return names.map((name) => {
    const d = path.join(dir, name);
    const files = readdirSync(d);
    const json = (file: string): unknown => (files.includes(file) ? JSON.parse(readFileSync(path.join(d, file), 'utf8')) : null);
    const manifest = (json('example.json') ?? {}) as Manifest;
    return {
      name,
      dir: d,
      sqlFiles: files.filter((f) => f.endsWith('.sql')).sort().map((f) => path.join(d, f)),
      routes: json('routes.json'),
      title: manifest.title ?? name,
      tryPaths: manifest.try ?? [],
    };
  });
}
