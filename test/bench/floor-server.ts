// The floor for `npm run bench`: the least a Node server can do to answer the bench's workloads —
// node:http + pg, one named (prepared) statement per workload, no role, no transaction, the JSON
// body built in SQL as one text value. It understands exactly the bench's request shapes, nothing more.
//
//   node dist/test/bench/floor-server.js <port> <db-uri>     (or FLOOR_PORT / FLOOR_DB_URI)
//   FLOOR_POOL_SIZE (default 10) sets the pg pool size.
import http from 'node:http';
import pg from 'pg';

const port = Number(process.argv[2] ?? process.env.FLOOR_PORT ?? 3001);
const uri = process.argv[3] ?? process.env.FLOOR_DB_URI;
if (!uri) {
  console.error('floor-server: pass the database URI as the second argument or FLOOR_DB_URI');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: uri, max: Number(process.env.FLOOR_POOL_SIZE ?? 10) });
pool.on('error', () => undefined);

const agg = (inner: string) => `SELECT coalesce(json_agg(t), '[]')::text FROM (${inner}) AS t`;
const SQL = {
  byId: agg('SELECT * FROM tracks WHERE id = $1'),
  filtered: agg('SELECT * FROM tracks WHERE album_id <= $1 ORDER BY id DESC LIMIT $2'),
  limited: agg('SELECT * FROM tracks LIMIT $1'),
  embed: agg(`SELECT a.id, a.title,
      coalesce((SELECT json_agg(c) FROM (SELECT tr.id, tr.name FROM tracks tr WHERE tr.album_id = a.id) AS c), '[]') AS tracks
    FROM albums a ORDER BY a.id LIMIT $1`),
  // W3: every album of one artist with all its tracks, no limit. The tracks as a LATERAL aggregate
  // (dbrest's shape too): 2.86 M instructions a query against 2.89 M as a correlated subquery and
  // 2.95 M for dbrest's buffered statement (callgrind, postgres --single, 200 EXECUTEs each).
  artistEmbed: agg(`SELECT a.id, a.artist_id, a.title, a.released, coalesce(tr.tracks, '[]') AS tracks
    FROM albums a LEFT JOIN LATERAL (SELECT json_agg(c) AS tracks FROM (SELECT tr.id, tr.album_id, tr.name, tr.composer, tr.milliseconds, tr.bytes, tr.unit_price
        FROM tracks tr WHERE tr.album_id = a.id) AS c) AS tr ON true
    WHERE a.artist_id = $1 ORDER BY a.id`),
  insert: 'INSERT INTO customers (first_name, last_name, email, country) VALUES ($1, $2, $3, $4)',
  rpc: 'SELECT to_json(add_them($1, $2))::text',
} as const;

const W3_SELECT = 'id,artist_id,title,released,tracks(id,album_id,name,composer,milliseconds,bytes,unit_price)';

/** One prepared statement; the first column of the first row, as text. */
async function one(name: keyof typeof SQL, values: unknown[]): Promise<string | null> {
  const r = await pool.query<unknown[]>({ name, text: SQL[name], values, rowMode: 'array' });
  return (r.rows[0]?.[0] as string | undefined) ?? null;
}

const num = (v: string | null, prefix = ''): number | null => {
  if (v === null || !v.startsWith(prefix)) return null;
  const n = Number(v.slice(prefix.length));
  return Number.isSafeInteger(n) ? n : null;
};

function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });
}

/** Status and JSON text for one request; null body means none. */
async function route(req: http.IncomingMessage): Promise<[number, string | null]> {
  const url = new URL(req.url ?? '/', 'http://floor');
  const q = url.searchParams;
  const key = `${req.method} ${url.pathname}`;
  if (key === 'GET /') return [200, '{}'];
  if (key === 'GET /tracks') {
    const id = num(q.get('id'), 'eq.');
    if (id !== null) return [200, await one('byId', [id])];
    const albumMax = num(q.get('album_id'), 'lte.');
    const limit = num(q.get('limit'));
    if (albumMax !== null && q.get('order') === 'id.desc') return [200, await one('filtered', [albumMax, limit])];
    if (limit !== null) return [200, await one('limited', [limit])];
  }
  if (key === 'GET /albums' && q.get('select') === 'id,title,tracks(id,name)' && q.get('order') === 'id') {
    return [200, await one('embed', [num(q.get('limit'))])];
  }
  if (key === 'GET /albums' && q.get('select') === W3_SELECT && q.get('order') === 'id') {
    const artist = num(q.get('artist_id'), 'eq.');
    if (artist !== null) return [200, await one('artistEmbed', [artist])];
  }
  if (key === 'POST /customers') {
    const b = await readBody(req);
    await one('insert', [b.first_name, b.last_name, b.email, b.country ?? null]);
    return [201, null];
  }
  if (key === 'POST /rpc/add_them') {
    const b = await readBody(req);
    return [200, await one('rpc', [b.a, b.b])];
  }
  return [404, JSON.stringify({ message: `floor: no route for ${key}` })];
}

const server = http.createServer((req, res) => {
  route(req).then(
    ([status, body]) => {
      if (body === null) {
        res.writeHead(status, { 'content-length': '0' }).end();
      } else {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
      }
    },
    (e: Error) => {
      const body = JSON.stringify({ message: e.message });
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    },
  );
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => console.log(`floor listening on 127.0.0.1:${port}`));

const shutdown = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
