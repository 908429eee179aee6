// Issue 28, item 5: partitions are not relations of the API, so they are not embed targets either
// (PostgREST's QuerySpec "cannot request partitions as children from a partitioned table", "cannot
// request a partition as parent from a partitioned table"): DBRST200 with PostgREST's hint, where
// PostgreSQL's 42703 came back.
import t from 'tap';
import { fixture } from '../../helpers/db.js';
import { startTestServer } from '../../helpers/server.js';

t.test('a partition named as an embed is DBRST200, a partition as the root DBRST205', async (t) => {
  const s = await startTestServer(t, {
    fixtures: [fixture('sql', 'parity4.sql')],
    config: { 'db-schemas': 'parity4', 'db-anon-role': 'postgres' },
  });
  // car_models has no column id: the relationship is looked for first, as PostgREST plans.
  const child = await s.request('/car_models?id=in.(1,2,4)&select=id,name,car_model_sales_202101(id)&order=id.asc');
  t.equal(child.status, 400, 'child status');
  t.same(child.json(), {
    code: 'DBRST200',
    details: "Searched for a foreign key relationship between 'car_models' and 'car_model_sales_202101' in the schema 'parity4', but no matches were found.",
    hint: "Perhaps you meant 'car_model_sales' instead of 'car_model_sales_202101'.",
    message: "Could not find a relationship between 'car_models' and 'car_model_sales_202101' in the schema cache",
  }, 'child body');
  const parent = await s.request('/car_model_sales?id=in.(1,3,4)&select=id,name,car_models_default(id,name)&order=id.asc');
  t.equal(parent.status, 400, 'parent status');
  t.same(parent.json(), {
    code: 'DBRST200',
    details: "Searched for a foreign key relationship between 'car_model_sales' and 'car_models_default' in the schema 'parity4', but no matches were found.",
    hint: "Perhaps you meant 'car_models' instead of 'car_models_default'.",
    message: "Could not find a relationship between 'car_model_sales' and 'car_models_default' in the schema cache",
  }, 'parent body');
  const root = await s.request('/car_models_default?select=name,car_model_sales(id)');
  t.equal(root.status, 404, 'root status');
  t.same(root.json(), { code: 'DBRST205', details: null, hint: null, message: "Could not find the table 'parity4.car_models_default' in the schema cache" });
  const ok = await s.request('/car_models?select=name,car_model_sales(id)&order=name');
  t.equal(ok.status, 200, 'the partitioned tables embed each other');
  t.same(ok.json(), [{ name: 'DMC-12', car_model_sales: [{ id: 1 }] }, { name: 'Roma', car_model_sales: [{ id: 2 }] }]);
});
