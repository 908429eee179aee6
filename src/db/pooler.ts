// Is a connection string reached through a connection pooler (PgBouncer and the like)? The pid a
// server announces in the handshake (BackendKeyData) is the backend's own on a direct connection;
// a pooler makes one up for its client, so it differs from what the backend reports.
import pg from 'pg';

/** true behind a pooler, false direct, null when it could not be told (database away). */
export async function throughPooler(uri: string, timeoutMs: number): Promise<boolean | null> {
  const c = new pg.Client({ connectionString: uri, connectionTimeoutMillis: timeoutMs });
  try {
    await c.connect();
    const announced = (c as unknown as { processID: number | null }).processID;
    const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return announced !== r.rows[0]!.pid;
  } catch {
    return null;
  } finally {
    await c.end().catch(() => undefined);
  }
}
