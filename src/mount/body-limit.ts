// Which body limit a request has (engine spec §5 route mounts; issue #26): a mount's or group's
// `max-body-size-by-media` entry for the body's media type, else its `max-body-size`, else
// server-max-body-size. Decided from the request head alone, before a byte of the body is read
// (http/server.ts stops reading past it). Pure.
import type { RouteGroup, RouteMount } from '../config/types.js';
import type { ContentType } from '../request/api-request.js';

export interface BodyLimit {
  readonly bytes: number;
  /** The setting that gave it, for the 413's details: `max-body-size-by-media "application/xml"`. */
  readonly setBy: string;
}

export const serverBodyLimit = (bytes: number): BodyLimit => ({ bytes, setBy: 'server-max-body-size' });

/**
 * The limit of a body sent to `mount` (null: a path under the group's prefix that no mount has).
 * The mount's settings replace the group's: its max-body-size the group's, its by-media entries
 * those of the group for the same range. A by-media entry applies to a body of that type; the most
 * specific range wins (`application/xml`, then `application/*`, then `*\/*`), and a structured
 * suffix counts as its base type (`application/vnd.x+xml` is XML: the `application/xml` entry,
 * when there is no entry for the type itself); `text/xml` and `application/xml` are one XML, so a
 * limit on either cannot be dodged by sending the other. A Content-Type that does not parse gets the smallest
 * of the limits that could apply, since the function may read it more leniently than we do.
 */
export function mountBodyLimit(group: RouteGroup, mount: RouteMount | null, ct: ContentType | null, ctHeader: string | undefined, server: number): BodyLimit {
  const general: BodyLimit =
    mount?.maxBodySize !== undefined ? { bytes: mount.maxBodySize, setBy: 'max-body-size of the route' }
    : group.maxBodySize !== undefined ? { bytes: group.maxBodySize, setBy: 'max-body-size of the route group' }
    : serverBodyLimit(server);
  const byMedia = new Map<string, BodyLimit>();
  for (const [range, bytes] of Object.entries(group.maxBodySizeByMedia ?? {})) byMedia.set(range, { bytes, setBy: `max-body-size-by-media "${range}" of the route group` });
  for (const [range, bytes] of Object.entries(mount?.maxBodySizeByMedia ?? {})) byMedia.set(range, { bytes, setBy: `max-body-size-by-media "${range}" of the route` });
  if (byMedia.size === 0 || ctHeader === undefined) return general;
  if (ct === null) return [...byMedia.values()].reduce((a, b) => (b.bytes < a.bytes ? b : a), general);
  const type = ct.type.toLowerCase();
  const subtype = ct.subtype.toLowerCase();
  const plus = subtype.lastIndexOf('+');
  const candidates = [`${type}/${subtype}`];
  if (plus !== -1) candidates.push(`${type}/${subtype.slice(plus + 1)}`, `application/${subtype.slice(plus + 1)}`);
  // XML is XML whichever spelling carries it (RFC 7303): text/xml and application/xml share entries.
  if (subtype === 'xml' || subtype.endsWith('+xml')) candidates.push('application/xml', 'text/xml');
  candidates.push(`${type}/*`, '*/*');
  for (const c of candidates) {
    const hit = byMedia.get(c);
    if (hit) return hit;
  }
  return general;
}
