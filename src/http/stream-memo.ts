// Which read shapes go straight to a cursor. A read that may be large (http/stream-policy.ts) is
// first run as a buffered read limited to server-stream-threshold + 1 rows (one round trip, shared
// and pipelined as any small read); only when that overflows is it run again, as a stream. A shape
// (http/read-prep.ts: one URL, Accept, Prefer, … under one schema cache) whose last answer was large
// goes straight to the stream, until a streamed answer of it comes out small: so a large answer
// asked for again and again builds the wasted threshold + 1 rows once.
const large = new WeakSet<object>();

export const streamDirectly = (shape: object): boolean => large.has(shape);

/** The answer to a request of `shape` was large (streamed) or small. */
export function answered(shape: object, wasLarge: boolean): void {
  if (wasLarge) large.add(shape);
  else large.delete(shape);
}
