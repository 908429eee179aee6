// text/csv output, as PostgREST writes it: a header line of column names, one line per row, fields
// quoted when they hold a comma, quote or newline; NULL as an empty field; nested JSON as its text.
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

export function jsonRowsToCsv(rows: ReadonlyArray<Record<string, unknown>>, columns?: ReadonlyArray<string>): string {
  const cols = columns ?? (rows.length > 0 ? Object.keys(rows[0]!) : []);
  const lines = [cols.map(csvField).join(',')];
  for (const row of rows) lines.push(cols.map((c) => csvField(row[c])).join(','));
  return lines.join('\n');
}

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
