// The small API the operations tests count, log and trace: a table, a function and a mount, with an
// anonymous role and a role a JWT may name.
import { nologinRolesSql } from '../../helpers/db.js';

export const OPS_SQL = `
${nologinRolesSql('ops_anon', 'ops_user')}
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 5) g;
GRANT SELECT ON items TO ops_anon, ops_user;
CREATE FUNCTION add_them(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
CREATE FUNCTION item_name(p_id int) RETURNS text LANGUAGE sql STABLE AS 'SELECT name FROM items WHERE id = p_id';
CREATE VIEW trace_seen AS SELECT current_setting('request.trace_id', true) AS trace_id;
GRANT SELECT ON trace_seen TO ops_anon, ops_user;
`;

export const OPS_ROUTES = JSON.stringify([{ method: 'GET', path: '/things/:id(int)', call: 'item_name', args: { p_id: 'path.id' } }]);
