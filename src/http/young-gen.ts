// A streamed answer must not grow the process: rows pass through in batches and die young, but V8
// doubles its young generation (up to 2 × 16 MB of semi-spaces) once enough bytes have survived
// scavenges in total, and over a million rows a few live rows per scavenge add up to that. So while
// any answer is streaming, the young generation is kept at the size it has (growth factor 1); when
// the last stream ends, V8's default (2) is restored. V8 reads this flag each time it would grow
// the space, so changing it at run time takes effect. The young generation's maximum cannot be
// lowered after start (--max-semi-space-size is fixed when the heap is made), and requests that
// are not streamed keep V8's behaviour.
import v8 from 'node:v8';

const DEFAULT_GROWTH_FACTOR = 2; // V8's --semi-space-growth-factor default (node --v8-options)
let streaming = 0;

/** A stream starts writing rows: no young-generation growth until every stream has ended. */
export function holdYoungGeneration(): () => void {
  if (streaming++ === 0) v8.setFlagsFromString('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--streaming === 0) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  };
}

/** Streams holding the young generation now (tests). */
export const streamsHoldingYoungGeneration = (): number => streaming;
