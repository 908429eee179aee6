// A streamed answer whose statement stops at row 2,000 on an advisory lock the test holds: what
// arrived before the lock was released, and whether the backend was waiting at that row meanwhile.
import http from 'node:http';
import pg from 'pg';

export interface GatedRead {
  /** Status and first bytes received while the lock was held (empty when none came within 10 s). */
  readonly status: number | null;
  readonly early: Buffer;
  /** Backends waiting for the lock once the first bytes had come (1: the statement stopped there). */
  readonly waiting: number;
  /** The whole body, once the lock was released. */
  readonly body: Buffer;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function readWhileGated(url: string, dbUri: string, lock: number): Promise<GatedRead> {
  const holder = new pg.Client({ connectionString: dbUri });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [lock]);
    const chunks: Buffer[] = [];
    let status: number | null = null;
    const ended = new Promise<void>((resolve, reject) => {
      http
        .get(url, (res) => {
          status = res.statusCode ?? null;
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', resolve);
          res.on('error', reject);
        })
        .on('error', reject);
    });
    // Generous bound: only proves that bytes come at all while the lock is held.
    const deadline = Date.now() + 10_000;
    while (chunks.length === 0 && Date.now() < deadline) await sleep(10);
    const early = Buffer.concat(chunks);
    let waiting = 0;
    while (early.length > 0 && waiting === 0 && Date.now() < deadline) {
      const r = await holder.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [lock]);
      waiting = r.rows[0].n as number;
      if (waiting === 0) await sleep(10);
    }
    await holder.query('SELECT pg_advisory_unlock($1)', [lock]);
    await ended;
    return { status, early, waiting, body: Buffer.concat(chunks) };
  } finally {
    await holder.end();
  }
}
