// The signal of the HTTP request being served, aborted when its client goes away before the
// response was sent (http/server.ts sets it around each request). Read where the database work
// happens (db/cancel-watch.ts, http/stream.ts) without threading it through every layer.
import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<AbortSignal>();

export function withRequestSignal<T>(signal: AbortSignal, fn: () => T): T {
  return store.run(signal, fn);
}

/** The current request's signal, or undefined outside a request (CLI, schema loading, tests). */
export function requestSignal(): AbortSignal | undefined {
  return store.getStore();
}
