// The load cases' targets (issue 27: against a durable PostgreSQL, as users run it), judged on
// unrounded ratios: a ratio of 0.997 does not meet "at least 1.0×" because it prints as 1.00.

/** req/s at least this × the floor's. */
export const RPS_TARGET: Readonly<Record<string, number>> = { W1: 0.9, W2: 1.0, W3: 1.0, W3L: 1.0, W4: 0.9, W5: 0.9 };
/** p99 at most this × the floor's. */
export const P99_TARGET = 1.5;

export interface TargetCheck {
  readonly rpsTarget: number | null;
  /** dbrest req/s ÷ floor req/s, unrounded. */
  readonly rps: number | null;
  readonly rpsMet: boolean | null;
  /** dbrest p99 ÷ floor p99, rounded to 2 places (for the JSON); `p99` unrounded. */
  readonly p99Ratio: number | null;
  readonly p99: number | null;
  readonly p99Met: boolean | null;
}

/** Both sides' figures for one case, or null when either side did not run. */
export interface CaseFigures {
  readonly floor: { readonly reqPerSec: number; readonly p99Ms: number };
  readonly dbrest: { readonly reqPerSec: number; readonly p99Ms: number };
}

export function targetCheck(id: string, f: CaseFigures | null): TargetCheck {
  const rpsTarget = RPS_TARGET[id] ?? null;
  const rps = f && f.floor.reqPerSec > 0 ? f.dbrest.reqPerSec / f.floor.reqPerSec : null;
  const p99 = f && f.floor.p99Ms > 0 ? f.dbrest.p99Ms / f.floor.p99Ms : null;
  return {
    rpsTarget,
    rps,
    rpsMet: rpsTarget === null || rps === null ? null : rps >= rpsTarget,
    p99Ratio: p99 === null ? null : Math.round(p99 * 100) / 100,
    p99,
    p99Met: p99 === null ? null : p99 <= P99_TARGET,
  };
}

/** A ratio to 2 places, or to 3 where 2 places would round it onto its limit (0.997 against ≥ 1.00). */
export function ratioText(exact: number, limit: number | null): string {
  const two = exact.toFixed(2);
  return limit !== null && two === limit.toFixed(2) && exact !== limit ? exact.toFixed(3) : two;
}

/**
 * dbrest's req/s ÷ the floor's, round by round (rounds run back to back, ABBA: a pair shares the
 * machine's state). Their spread shows how far one run's ratio can move without either server
 * changing: on 2 cores a pair can read 0.9 and the next 1.15.
 */
export function roundRatios(floorRps: ReadonlyArray<number>, dbrestRps: ReadonlyArray<number>): number[] {
  const n = Math.min(floorRps.length, dbrestRps.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (floorRps[i]! > 0) out.push(dbrestRps[i]! / floorRps[i]!);
  return out;
}
