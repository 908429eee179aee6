// Reading the benches' numeric settings from the environment (npm run bench, npm run soak).

/** A number from the environment, or `fallback` when unset; a bad value stops the run with a clear message. */
export function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return n;
}
