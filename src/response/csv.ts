// text/csv as PostgREST writes it: each row's PostgreSQL record text without its parentheses
// (buffered answers build it in SQL, sql/media.ts; streamed ones line by line here).

/**
 * One value as PostgreSQL's record output writes it (rowtypes.c record_out): NULL as nothing; in
 * double quotes when empty or holding `"`, `\`, `(`, `)`, `,` or white space, with `"` and `\`
 * doubled (isspace in the C locale: ASCII white space only). PostgREST's CSV is each row's record text without its parentheses.
 */
export function recordField(v: string | null): string {
  if (v === null) return '';
  if (v !== '' && !/["\\(),\t\n\v\f\r ]/.test(v)) return v;
  return '"' + v.replace(/["\\]/g, '$&$&') + '"';
}

/** A row of text values as a CSV line of PostgREST's (its record text, parentheses dropped). */
export function recordLine(row: ReadonlyArray<string | null>): string {
  let line = '';
  for (let i = 0; i < row.length; i++) line += (i === 0 ? '' : ',') + recordField(row[i]!);
  return line;
}
