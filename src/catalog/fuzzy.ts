// PostgREST's "Perhaps you meant …" hints come from the `fuzzyset` library (0.2, a port of
// fuzzyset.js); its observable rules are reproduced here so a hint appears exactly when PostgREST
// gives one. A candidate is considered only when it shares an n-gram with the name asked for
// (trigrams first, bigrams when no trigram candidate scores enough), over the lowercased name with
// everything but letters, digits, spaces and commas dropped and `-` at both ends; the 50 best by
// n-gram cosine are then scored by normalised Levenshtein similarity on the lowercased names, and
// the best at or above the minimum score wins. A case-insensitive exact match scores 1. Pure.

/** The candidates close to `name`, best first, each with its score (PostgREST's `Fuzzy.get…`). */
export function fuzzyGet(name: string, candidates: ReadonlyArray<string>, minScore = 0.33): Array<{ score: number; value: string }> {
  const byKey = new Map<string, string>();
  for (const c of candidates) if (!byKey.has(c.toLowerCase())) byKey.set(c.toLowerCase(), c);
  const key = name.toLowerCase();
  const exact = byKey.get(key);
  if (exact !== undefined) return [{ score: 1, value: exact }];

  const keys = [...byKey.keys()].sort();
  for (const gramSize of [3, 2]) {
    const query = gramVector(key, gramSize);
    const queryNorm = norm(query);
    const shared: Array<{ cosine: number; key: string }> = [];
    for (const k of keys) {
      const item = gramVector(k, gramSize);
      let dot = 0;
      for (const [gram, n] of query) dot += n * (item.get(gram) ?? 0);
      if (dot > 0) shared.push({ cosine: dot / (queryNorm * norm(item)), key: k });
    }
    const found = shared
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, 50)
      .map((s) => ({ score: levenshteinSimilarity(key, s.key), value: byKey.get(s.key)! }))
      .sort((a, b) => b.score - a.score)
      .filter((s) => s.score >= minScore);
    if (found.length > 0) return found;
  }
  return [];
}

/** The best candidate, or null (PostgREST's `Fuzzy.getOneWithMinScore`; `getOne` is 0.33). */
export function fuzzyGetOne(name: string, candidates: ReadonlyArray<string>, minScore = 0.33): string | null {
  return fuzzyGet(name, candidates, minScore)[0]?.value ?? null;
}

/** n-gram counts of the normalised name between `-` markers. */
function gramVector(value: string, size: number): Map<string, number> {
  const chars = Array.from(`-${value.toLowerCase().replace(/[^\p{L}\p{N}\s,]/gu, '')}-`);
  const grams = new Map<string, number>();
  for (let i = 0; i + size <= chars.length; i++) {
    const gram = chars.slice(i, i + size).join('');
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

function norm(v: Map<string, number>): number {
  let sum = 0;
  for (const n of v.values()) sum += n * n;
  return Math.sqrt(sum);
}

/** 1 − distance / longer length, over code points (text-metrics' levenshteinNorm). */
function levenshteinSimilarity(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const longest = Math.max(x.length, y.length);
  if (longest === 0) return 1;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  let cur = new Array<number>(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return 1 - prev[y.length]! / longest;
}
