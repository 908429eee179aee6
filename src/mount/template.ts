// Route path templates (engine spec §5): `/api/v1/things/:id(int)/parts/*rest`. Parsed into data
// once at configuration time; the router (mount/router.ts) turns them into its own patterns. Pure.
//
//   static segment   `things`           matched literally (percent-decoded)
//   parameter        `:id`              one whole segment, any text
//   typed parameter  `:id(int)`         one segment that must look like the type, else the route does
//                                       not match (a 404 without touching the database)
//   tail             `*rest`            the rest of the path, slashes included (last segment only)
//
// A trailing slash in a template means nothing: both spellings of a path match.

export type SegmentType = 'int' | 'number' | 'uuid' | 'text';

export const SEGMENT_TYPES: ReadonlyArray<SegmentType> = ['int', 'number', 'uuid', 'text'];

/** What each segment type admits, as an anchored regular expression. */
export const SEGMENT_PATTERNS: Readonly<Record<SegmentType, string | null>> = {
  int: '^\\d+$',
  number: '^-?\\d+(\\.\\d+)?$',
  uuid: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  text: null,
};

export type TemplateSegment =
  | { readonly kind: 'static'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string; readonly type: SegmentType }
  | { readonly kind: 'tail'; readonly name: string };

export interface PathTemplate {
  /** As written, without a trailing slash (`/` for the root). */
  readonly text: string;
  readonly segments: ReadonlyArray<TemplateSegment>;
}

export interface TemplateParam {
  readonly name: string;
  readonly type: SegmentType | 'tail';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATIC = /^[A-Za-z0-9\-._~!$&'()+,;=@%]+$/;

/** A template → its segments, or a message saying what is wrong with it. */
export function parseTemplate(text: string): { ok: true; value: PathTemplate } | { ok: false; message: string } {
  if (!text.startsWith('/')) return { ok: false, message: 'must start with "/"' };
  if (/[\s?#]/.test(text)) return { ok: false, message: 'must not contain spaces, "?" or "#"' };
  const parts = text.split('/').slice(1);
  if (parts.at(-1) === '') parts.pop();
  const segments: TemplateSegment[] = [];
  const names = new Set<string>();
  for (const [i, part] of parts.entries()) {
    if (part === '') return { ok: false, message: 'has an empty segment ("//")' };
    let seg: TemplateSegment;
    if (part.startsWith(':')) {
      const m = /^:([^()]*)(?:\(([^()]*)\))?$/.exec(part);
      const name = m?.[1] ?? '';
      if (!m || !NAME.test(name)) return { ok: false, message: `${JSON.stringify(part)}: a parameter is ":name" or ":name(type)" with a name like :id` };
      const type = (m[2] ?? 'text') as SegmentType;
      if (!SEGMENT_TYPES.includes(type)) {
        return { ok: false, message: `${JSON.stringify(part)}: unknown segment type ${JSON.stringify(m[2])}; use one of ${SEGMENT_TYPES.join(', ')}` };
      }
      seg = { kind: 'param', name, type };
    } else if (part.startsWith('*')) {
      const name = part.slice(1);
      if (!NAME.test(name)) return { ok: false, message: `${JSON.stringify(part)}: a tail is "*name", like *rest` };
      if (i !== parts.length - 1) return { ok: false, message: `${JSON.stringify(part)}: a tail must be the last segment` };
      seg = { kind: 'tail', name };
    } else {
      if (!STATIC.test(part) || part.includes(':') || part.includes('*')) {
        return { ok: false, message: `${JSON.stringify(part)}: a ':' or '*' may only start a segment` };
      }
      seg = { kind: 'static', text: part };
    }
    if (seg.kind !== 'static') {
      if (names.has(seg.name)) return { ok: false, message: `parameter ${seg.name} appears twice` };
      names.add(seg.name);
    }
    segments.push(seg);
  }
  return { ok: true, value: { text: '/' + parts.join('/'), segments } };
}

export function templateParams(t: PathTemplate): TemplateParam[] {
  const out: TemplateParam[] = [];
  for (const s of t.segments) {
    if (s.kind === 'param') out.push({ name: s.name, type: s.type });
    else if (s.kind === 'tail') out.push({ name: s.name, type: 'tail' });
  }
  return out;
}

/** `/api` + `/things/:id` → `/api/things/:id`; a mount path of `/` is the prefix itself. */
export function joinPaths(prefix: string, path: string): string {
  const p = prefix.replace(/\/+$/, '');
  const rest = path === '/' || path === '' ? '' : path.startsWith('/') ? path : '/' + path;
  return p + rest || '/';
}
