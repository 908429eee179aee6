// Which read shapes go straight to a cursor. A read that may be large (http/stream-policy.ts) is
// first run as a buffered read limited to server-stream-threshold + 1 rows (one round trip, shared
// and pipelined as any small read); only when that overflows is it run again, as a stream. A shape
// (http/read-prep.ts: one URL, Accept, Prefer, … under one schema cache) whose last answer was large
// goes straight to the stream, until a streamed answer of it comes out small: so a large answer
// asked for again and again builds the wasted threshold + 1 rows once.
//
// Against the cursor for every such read (its first Execute asked for threshold + 1 rows, one
// round trip too, but on a connection of its own, never pipelined, the Sync a second trip before
// the connection is free, and the body joined in Node row by row): bench W3 (10 albums × 10 tracks,
// random artist, no limit), durable PostgreSQL, wrk 32 connections, 4 alternating 8 s runs on a
// loaded machine: dbrest CPU 0.49 ms a request against 0.60, PostgreSQL's CPU the same (0.81 / 0.83).
const large = new WeakSet<object>();

export const streamDirectly = (shape: object): boolean => large.has(shape);

/** The answer to a request of `shape` was large (streamed) or small. */
export function answered(shape: object, wasLarge: boolean): void {
  if (wasLarge) large.add(shape);
  else large.delete(shape);
}

// Calls are planned per request (no shape object to hold on to), so their shapes are kept by key:
// method, schema, function, query string (a GET's arguments), Accept, Prefer and Range — a POST's
// arguments are not part of it, so one call whose answer was large sends the next of that function
// and query straight to the cursor, which answers a small one whole all the same.
const largeCalls = new Set<string>();
const MAX_CALL_SHAPES = 1_000;

export const streamCallDirectly = (key: string): boolean => largeCalls.has(key);

/** The answer to a call of shape `key` was large (streamed) or small. */
export function callAnswered(key: string, wasLarge: boolean): void {
  if (!wasLarge) largeCalls.delete(key);
  else {
    if (largeCalls.size >= MAX_CALL_SHAPES) largeCalls.clear();
    largeCalls.add(key);
  }
}
