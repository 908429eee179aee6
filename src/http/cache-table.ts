// Tables of what is derived from one schema cache and configuration (plans, compiled statements),
// keyed by request shape: kept with the cache they were built from, so a reload or a new
// configuration starts afresh, and emptied whole when they reach their bound.
import type { SchemaCache } from '../catalog/types.js';
import type { AppConfig } from '../config/types.js';

export function perCacheTable<V>(max: number): (cache: SchemaCache, config: AppConfig) => Map<string, V> {
  const tables = new WeakMap<SchemaCache, { readonly config: AppConfig; readonly byKey: Map<string, V> }>();
  return (cache, config) => {
    let t = tables.get(cache);
    if (t === undefined || t.config !== config) {
      t = { config, byKey: new Map() };
      tables.set(cache, t);
    }
    if (t.byKey.size >= max) t.byKey.clear();
    return t.byKey;
  };
}
