// A size in bytes as a route mount's limits write it: a whole number of bytes (65536) or a number
// with a unit ("64KB", "1.5 MB", "1MiB"). KB, MB and GB are 1024-based, as KiB, MiB and GiB (a
// limit written "64KB" is 65,536 bytes, as most servers read it). Pure.

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };
const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i;

/** Bytes (a positive whole number), or null when `v` is not a size. */
export function parseByteSize(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 1 ? v : null;
  if (typeof v !== 'string') return null;
  const m = SIZE.exec(v);
  if (!m) return null;
  const unit = UNITS[(m[2] || 'b').toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : null;
}
