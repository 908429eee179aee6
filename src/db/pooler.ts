// Is a connection reached through a connection pooler (PgBouncer and the like)? The pid a server
// announces in the handshake (BackendKeyData) is the backend's own on a direct connection; a pooler
// makes one up for its client, so it differs from what the backend reports.
import pg from 'pg';

/** On a connected client: true behind a pooler, false direct. */
async function clientThroughPooler(client: pg.ClientBase): Promise<boolean> {
  const announced = (client as unknown as { processID: number | null }).processID;
  const r = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return announced !== r.rows[0]!.pid;
}

/** On one of the pool's own connections (no extra one); null when it could not be told (database away). */
export async function poolThroughPooler(pool: pg.Pool): Promise<boolean | null> {
  let client: pg.PoolClient | null = null;
  try {
    client = await pool.connect();
    return await clientThroughPooler(client);
  } catch {
    return null;
  } finally {
    client?.release();
  }
}

/** On a connection of its own to `uri` (the LISTEN connection's, when it is not the pool's). */
export async function throughPooler(uri: string, timeoutMs: number): Promise<boolean | null> {
  const c = new pg.Client({ connectionString: uri, connectionTimeoutMillis: timeoutMs });
  try {
    await c.connect();
    return await clientThroughPooler(c);
  } catch {
    return null;
  } finally {
    await c.end().catch(() => undefined);
  }
}
