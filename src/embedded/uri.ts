// Small pure helpers on postgres:// URIs.
export function withDatabase(uri: string, database: string): string {
  const u = new URL(uri);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}

export function passwordOf(uri: string): string {
  return decodeURIComponent(new URL(uri).password);
}
