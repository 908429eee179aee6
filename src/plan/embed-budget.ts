// The embed budget (db-max-embed-depth, db-max-embeds): how much joining one `select=` may ask for,
// judged on the parsed select before anything is resolved or sent to PostgreSQL. Pure.
//
// Why two bounds: every embed level multiplies rows (`films(directors(films(…)))` grows as the
// fan-out to the power of the depth: 439 bytes of query string once took 22 s and 829 MB), and
// every embed is one more lateral subquery to plan and run (800 sibling aliases: 93 s of database
// time). GraphQL servers bound the same two things: graphql-depth-limit and graphql-armor's
// max-depth bound nesting (armor's default is 6), armor's max-aliases bounds breadth (default 15)
// and its cost limit weighs both. A weighted cost needs per-relation row estimates we do not have
// before planning, so dbrest counts: depth 8 and 64 embeds in all. The repository's own tests and
// PostgREST's spec suite nest at most 4–5 levels and use a few embeds per request, so neither
// bound is met by a real client, while the attacks are refused at a few dozen bytes of query.
import { errors } from '../errors/catalog.js';
import type { ApiError } from '../errors/types.js';
import type { AppConfig } from '../config/types.js';
import type { SelectItem } from '../request/types.js';

export type EmbedBudget = Partial<Pick<AppConfig, 'dbMaxEmbedDepth' | 'dbMaxEmbeds'>>;

export interface EmbedShape {
  /** Deepest chain of embeds: `a(b(c))` is 3, no embed is 0. */
  readonly depth: number;
  /** Embeds at every level, spreads included. */
  readonly count: number;
}

/** Depth and number of embeds of a select list. Iterative: a parsed select is at most 64 levels deep anyway. */
export function embedShape(items: ReadonlyArray<SelectItem>): EmbedShape {
  let depth = 0;
  let count = 0;
  const stack: Array<{ readonly items: ReadonlyArray<SelectItem>; readonly level: number }> = [{ items, level: 0 }];
  while (stack.length > 0) {
    const { items: list, level } = stack.pop()!;
    for (const item of list) {
      if (item.kind !== 'embed') continue;
      count++;
      if (level + 1 > depth) depth = level + 1;
      stack.push({ items: item.select, level: level + 1 });
    }
  }
  return { depth, count };
}

/** The refusal when the select asks for more than the budget (0 or unset: no bound), else null. */
export function checkEmbedBudget(items: ReadonlyArray<SelectItem> | null, cfg: EmbedBudget): ApiError | null {
  if (items === null) return null;
  const maxDepth = cfg.dbMaxEmbedDepth ?? 0;
  const maxEmbeds = cfg.dbMaxEmbeds ?? 0;
  if (maxDepth === 0 && maxEmbeds === 0) return null;
  const { depth, count } = embedShape(items);
  if (maxDepth > 0 && depth > maxDepth) {
    return errors.DBRST700(`The select nests embeds ${depth} levels deep; at most ${maxDepth} are allowed`, {
      hint: 'Embed fewer levels in one request (the server\'s db-max-embed-depth)',
    });
  }
  if (maxEmbeds > 0 && count > maxEmbeds) {
    return errors.DBRST701(`The select has ${count} embeds; at most ${maxEmbeds} are allowed`, {
      hint: 'Ask for fewer embedded resources in one request (the server\'s db-max-embeds)',
    });
  }
  return null;
}
