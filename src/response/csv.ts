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
