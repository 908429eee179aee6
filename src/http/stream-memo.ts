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
