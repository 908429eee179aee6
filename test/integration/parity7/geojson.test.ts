// Issue 28, from the postgrest-js jest suite ("geojson"): Accept: application/geo+json is PostgREST's
// built-in FeatureCollection of each row's ST_AsGeoJSON (SqlFragment.asGeoJsonF), for reads, calls
// and written rows; without PostGIS PostgreSQL's 42883, as PostgREST answers. dbrest used to send
// the plain JSON array under the geo+json Content-Type. PostGIS is not in the embedded PostgreSQL:
// the fixture's parity7_gis.st_asgeojson stands in for it.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const GEO = { Accept: 'application/geo+json' };

async function server(t: { teardown(fn: () => unknown): void }, config: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(t, {
    fixtures: [fixture('sql', 'parity7.sql')],
    config: { 'db-schemas': 'parity7', 'db-anon-role': 'postgres', ...config },
  });
}

const shop = {
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [-71.10044, 42.373695] },
  properties: { id: 1, address: '1369 Cambridge St' },
};

t.test('a FeatureCollection of the rows through ST_AsGeoJSON', async (t) => {
  const s = await server(t, { 'db-extra-search-path': 'public,parity7_gis' });
  const all = await s.request('/shops', { headers: GEO });
  t.equal(all.status, 200);
  t.equal(all.headers['content-type'], 'application/geo+json; charset=utf-8');
  t.same(all.json(), { type: 'FeatureCollection', features: [shop] });

  const narrowed = await s.request('/shops?select=id,geom', { headers: GEO });
  t.same(narrowed.json().features[0].properties, { id: 1 }, 'the selected columns are the properties');

  const none = await s.request('/shops?id=eq.0', { headers: GEO });
  t.same(none.json(), { type: 'FeatureCollection', features: [] }, 'no rows: no features');

  const written = await s.request('/shops', {
    method: 'POST',
    headers: { ...GEO, 'Content-Type': 'application/json', Prefer: 'return=representation' },
    body: JSON.stringify({ id: 2, address: 'Elm St', geom: { type: 'Point', coordinates: [1, 2] } }),
  });
  t.equal(written.status, 201);
  t.equal(written.headers['content-type'], 'application/geo+json; charset=utf-8');
  t.same(written.json(), {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { id: 2, address: 'Elm St' } }],
  });
});

t.test('without PostGIS: PostgreSQL\'s 42883, as PostgREST answers', async (t) => {
  const s = await server(t);
  const r = await s.request('/shops', { headers: GEO });
  t.equal(r.status, 404);
  t.equal(r.json().code, '42883');
  t.equal(r.json().message, 'function st_asgeojson(record) does not exist');
});
