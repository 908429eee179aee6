// A small model of TypeScript type text and its printer, for the type generator: objects, tuples,
// unions of overloads, and raw type text. Printing is the only job here: 2-space indentation, one
// member per line, single-quoted strings, no semicolons (the style of the files supabase's
// generator prints). What the types mean is typescript.ts's job.

/** Raw type text, an object type, a tuple, a multi-line union, or parts printed one after another. */
export type TsType = string | TsObject | TsTuple | TsUnion | TsJoin;

export interface TsProp {
  readonly key: string;
  readonly optional?: boolean;
  readonly type: TsType;
  /** Print `key` as is (a mapped-type key such as `[_ in never]`), not as a property name. */
  readonly rawKey?: boolean;
}
export interface TsObject {
  readonly kind: 'object';
  readonly props: ReadonlyArray<TsProp>;
}
export interface TsTuple {
  readonly kind: 'tuple';
  readonly items: ReadonlyArray<TsType>;
}
/** Printed one member a line (`| {…}`), as function overloads are. */
export interface TsUnion {
  readonly kind: 'union';
  readonly items: ReadonlyArray<TsType>;
}
/** Parts printed side by side: `{…}[]`, `{…} | null`. */
export interface TsJoin {
  readonly kind: 'join';
  readonly parts: ReadonlyArray<TsType>;
}

export const obj = (props: ReadonlyArray<TsProp>): TsObject => ({ kind: 'object', props });
export const tuple = (items: ReadonlyArray<TsType>): TsTuple => ({ kind: 'tuple', items });
export const join = (...parts: TsType[]): TsJoin => ({ kind: 'join', parts });
export const union = (items: ReadonlyArray<TsType>): TsType => (items.length === 1 ? items[0]! : { kind: 'union', items });

/** `{ [_ in never]: never }`: what an empty section is, so that indexing it by any name is an error. */
export const NOTHING: TsObject = obj([{ key: '[_ in never]', rawKey: true, type: 'never' }]);

/** A TypeScript string literal in single quotes. */
export function quote(s: string): string {
  const escaped = JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${escaped}'`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
export const propertyName = (key: string): string => (IDENTIFIER.test(key) ? key : quote(key));

/** `t` printed at `indent` (the indentation of the line it starts on). */
export function print(t: TsType, indent = ''): string {
  if (typeof t === 'string') return t;
  const inner = indent + '  ';
  switch (t.kind) {
    case 'object':
      if (t.props.length === 0) return '{}';
      return `{\n${t.props.map((p) => `${inner}${printProp(p, inner)}`).join('\n')}\n${indent}}`;
    case 'tuple':
      if (t.items.length === 0) return '[]';
      return `[\n${t.items.map((i) => `${inner}${print(i, inner)},`).join('\n')}\n${indent}]`;
    case 'union':
      return '\n' + t.items.map((i) => `${inner}| ${print(i, inner + '  ')}`).join('\n');
    case 'join':
      return t.parts.map((p) => print(p, indent)).join('');
  }
}

function printProp(p: TsProp, indent: string): string {
  const value = print(p.type, indent);
  // a union starts on the next line: no space after the colon
  return `${p.rawKey ? p.key : propertyName(p.key)}${p.optional ? '?' : ''}:${value.startsWith('\n') ? '' : ' '}${value}`;
}
