// The mount table: resolved mounts in a radix-tree router (Fastify's find-my-way: typed segments as
// anchored patterns, static segments before parameters, both trailing-slash spellings). Built once
// per schema cache and configuration; a lookup is the only per-request cost. Pure lookups.
import FindMyWay from 'find-my-way';
import type { RouteGroup } from '../config/types.js';
import type { ResolvedGroup, ResolvedMount } from './check.js';
import { parseTemplate, SEGMENT_PATTERNS, type PathTemplate } from './template.js';

export type MountMatch =
  /** A mount answers this method and path. `params` are percent-decoded. */
  | { readonly kind: 'mount'; readonly mount: ResolvedMount; readonly group: ResolvedGroup; readonly params: Readonly<Record<string, string>> }
  /** The path is mounted, not for this method: 405 with `Allow` (or the answer to OPTIONS). */
  | { readonly kind: 'method'; readonly group: ResolvedGroup; readonly allow: ReadonlyArray<string> }
  /** Under a group's prefix, but no mount has this path: the group's 404. */
  | { readonly kind: 'none'; readonly group: ResolvedGroup };

export interface MountTable {
  readonly groups: ReadonlyArray<ResolvedGroup>;
  /** Null when the path is not under any mount or prefix: PostgREST's URLs answer it. */
  match(method: string, pathname: string): MountMatch | null;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];

interface Allowed {
  readonly group: ResolvedGroup;
  readonly methods: Set<string>;
}

interface Store {
  readonly mount: ResolvedMount;
  readonly group: ResolvedGroup;
  /** find-my-way names a tail `*`; the template's own name for it. */
  readonly tail: string | null;
}

/** A template in find-my-way's syntax: `:id(^\d+$)`, `*`. */
function routerPattern(t: PathTemplate): string {
  if (t.segments.length === 0) return '/';
  return t.segments
    .map((s) => {
      if (s.kind === 'static') return '/' + s.text;
      if (s.kind === 'tail') return '/*';
      const re = SEGMENT_PATTERNS[s.type];
      return re === null ? `/:${s.name}` : `/:${s.name}(${re})`;
    })
    .join('');
}

export function buildMountTable(groups: ReadonlyArray<ResolvedGroup>, onConflict: (where: string, message: string) => void = () => undefined): MountTable {
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 2048 });
  const implicitHead: Array<[string, Store]> = [];
  for (const group of groups) {
    for (const mount of group.mounts) {
      const t = parseTemplate(mount.mount.path);
      if (!t.ok) continue; // config validation already reported it
      const tail = t.value.segments.find((s) => s.kind === 'tail');
      const store: Store = { mount, group, tail: tail ? tail.name : null };
      const pattern = routerPattern(t.value);
      for (const m of mount.mount.methods) {
        try {
          router.on(m as Method, pattern, () => undefined, store);
        } catch (e) {
          onConflict(mount.where, `${m} ${mount.mount.path}: ${(e as Error).message}`);
        }
      }
      if (mount.mount.methods.includes('GET') && !mount.mount.methods.includes('HEAD')) implicitHead.push([pattern, store]);
    }
  }
  // HEAD is served for every GET mount, unless HEAD is mounted there on its own.
  for (const [pattern, store] of implicitHead) {
    if (!router.hasRoute('HEAD', pattern)) router.on('HEAD', pattern, () => undefined, store);
  }
  // Longest prefix first, so nested groups find their own.
  const prefixed = groups.filter((g) => g.group.prefix !== '').sort((a, b) => b.group.prefix.length - a.group.prefix.length);

  const lookup = (method: string, pathname: string): Store & { params: Record<string, string> } | null => {
    let found;
    try {
      found = router.find(method as Method, pathname);
    } catch {
      return null; // malformed percent-encoding: no mount matches
    }
    if (!found) return null;
    const store = found.store as Store;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(found.params)) if (v !== undefined) params[k === '*' && store.tail ? store.tail : k] = v;
    return { ...store, params };
  };

  // A 405's `Allow` lists every method some mount answers for this very path: two templates can
  // both match it (`/items/:id(int)` for GET, `/items/:name` for DELETE), so ask per method
  // rather than per pattern. Only missed lookups pay for it.
  const findAllowed = (pathname: string): Allowed | null => {
    let group: ResolvedGroup | null = null;
    const methods = new Set<string>();
    for (const m of METHODS) {
      const hit = lookup(m, pathname);
      if (!hit) continue;
      group ??= hit.group;
      methods.add(m);
    }
    return group ? { group, methods } : null;
  };

  return {
    groups,
    match(method, pathname) {
      const hit = lookup(method, pathname);
      if (hit) return { kind: 'mount', mount: hit.mount, group: hit.group, params: hit.params };
      const mounted = findAllowed(pathname);
      if (mounted) return { kind: 'method', group: mounted.group, allow: METHODS.filter((m) => mounted.methods.has(m)) };
      for (const g of prefixed) {
        const p = g.group.prefix;
        if (pathname === p || pathname.startsWith(p + '/')) return { kind: 'none', group: g };
      }
      return null;
    },
  };
}

/** The group an unmatched path falls under by prefix alone (for errors raised before matching). */
export function groupOf(groups: ReadonlyArray<RouteGroup>, pathname: string): RouteGroup | null {
  let best: RouteGroup | null = null;
  for (const g of groups) {
    if (g.prefix !== '' && (pathname === g.prefix || pathname.startsWith(g.prefix + '/')) && (!best || g.prefix.length > best.prefix.length)) best = g;
  }
  return best;
}
