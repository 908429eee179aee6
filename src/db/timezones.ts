// The time zone names PostgreSQL knows, loaded with the schema cache: `Prefer: timezone=…` is
// honoured only for one of these (PostgREST checks pg_timezone_names the same way).
export async function fetchTimezones(client: { query(text: string): Promise<{ rows: Array<{ name: string }> }> }): Promise<ReadonlySet<string>> {
  const { rows } = await client.query('SELECT name FROM pg_catalog.pg_timezone_names');
  return new Set(rows.map((r) => r.name));
}
