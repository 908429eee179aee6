// Small pure helpers on postgres:// URIs.
export function withDatabase(uri: string, database: string): string {
  const u = new URL(uri);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}
