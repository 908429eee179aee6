// PostgreSQL type names as the schema cache spells them (format_type() run with an empty
// search_path: `integer`, `character varying(20)[]`, `public.user_status`, `extensions."My Type"`)
// → their parts, and the built-in types' TypeScript equivalents. The mapping is the one supabase's
// generator (postgres-meta) uses, so that a client typed by either sees the same types; what it
// leaves out (ranges, tsvector, network types, …) is `unknown` there and here.

export interface TypeName {
  /** null for a pg_catalog type (format_type() leaves those unqualified). */
  readonly schema: string | null;
  /** Unquoted, without modifiers: `character varying`, `timestamp with time zone`, `user_status`. */
  readonly name: string;
  readonly isArray: boolean;
}

/** Reads format_type() text; quoted identifiers are unquoted, `(…)` modifiers and `[]` dropped. */
export function parseTypeName(text: string): TypeName {
  let s = text.trim();
  let isArray = false;
  while (s.endsWith('[]')) {
    s = s.slice(0, -2).trimEnd();
    isArray = true;
  }
  const parts: string[] = [];
  let current = '';
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '"') {
      // a quoted identifier: "" stands for one "
      let j = i + 1;
      for (; j < s.length; j++) {
        if (s[j] === '"') {
          if (s[j + 1] === '"') {
            current += '"';
            j++;
          } else break;
        } else current += s[j];
      }
      i = j;
    } else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth > 0) continue;
    else if (ch === '.') {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  const clean = (p: string): string => p.replace(/\s+/g, ' ').trim();
  if (parts.length >= 2) return { schema: parts[0]!, name: clean(parts.slice(1).join('.')), isArray };
  return { schema: null, name: clean(parts[0]!), isArray };
}

const NUMBER = ['smallint', 'integer', 'bigint', 'real', 'double precision', 'numeric'];
const STRING = [
  'bytea', 'character', 'character varying', 'date', 'text', 'time without time zone', 'time with time zone',
  'timestamp without time zone', 'timestamp with time zone', 'uuid', 'interval',
];

/** TypeScript for a pg_catalog type, by format_type() spelling; null when there is none. */
export function builtinTsType(name: string): string | null {
  if (name === 'boolean') return 'boolean';
  if (NUMBER.includes(name)) return 'number';
  if (STRING.includes(name) || name.startsWith('interval ')) return 'string';
  if (name === 'json' || name === 'jsonb') return 'Json';
  if (name === 'void') return 'undefined';
  if (name === 'record') return 'Record<string, unknown>';
  return null;
}

/** Types that extensions install in a schema of the user's, known by their name alone. */
export const EXTENSION_STRING_TYPES: ReadonlySet<string> = new Set(['citext', 'vector']);

const TYPNAMES: Readonly<Record<string, string>> = {
  boolean: 'bool', smallint: 'int2', integer: 'int4', bigint: 'int8', real: 'float4', 'double precision': 'float8',
  character: 'bpchar', 'character varying': 'varchar', 'bit varying': 'varbit',
  'time without time zone': 'time', 'time with time zone': 'timetz',
  'timestamp without time zone': 'timestamp', 'timestamp with time zone': 'timestamptz',
};

/** pg_type.typname of a type (`integer` → `int4`), as PostgREST names types in its messages. */
export function typname(text: string): string {
  const t = parseTypeName(text);
  const name = t.schema === null ? (TYPNAMES[t.name] ?? t.name) : t.name;
  return t.isArray ? `_${name}` : name;
}
