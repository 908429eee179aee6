// The body of a response in a negotiated non-JSON media type, built in SQL over the result rows
// (`_postgrest_t`, the envelope's row alias): PostgREST's SqlFragment.handlerF / customFuncF. The
// body column is text, or bytea when the representation is bytes (pg returns it as a Buffer).
// Pure; names through qualified()/ident().
import type { QualifiedName } from '../catalog/types.js';
import { constant, ident, qualified, sql, type Sql } from './fragment.js';

export type MediaBody =
  /**
   * An aggregate handler over the rows: `agg(_postgrest_t::"s"."rel")` for a relation's handler,
   * `agg(_postgrest_t)` for an anyelement one, `agg(_postgrest_t.pgrst_scalar)` over a scalar call.
   */
  | {
      readonly kind: 'aggregate';
      readonly aggregate: QualifiedName;
      readonly relation: QualifiedName | null;
      readonly scalar: boolean;
      readonly binary: boolean;
    }
  /** A scalar call's own value (a media-type domain), sent as it is; `xml`: the domain is over xml. */
  | { readonly kind: 'value'; readonly binary: boolean; readonly xml?: boolean }
  /**
   * One column's values concatenated (raw output): as text, as bytes (`columnIsBytea`: the column's
   * own bytes, else its text in UTF-8), or as xml (xmlagg).
   */
  | { readonly kind: 'raw'; readonly column: string; readonly output: 'text' | 'binary' | 'xml'; readonly columnIsBytea: boolean }
  /**
   * text/csv as PostgREST builds it: a header line of the first row's keys, then each row's text
   * output (PostgreSQL's record syntax) without its parentheses, lines joined by `\n`. `header` is
   * the FROM item whose first row names the columns (the rows themselves, before the envelope).
   */
  | { readonly kind: 'csv'; readonly header: Sql }
  /**
   * application/geo+json as PostgREST builds it (asGeoJsonF): a FeatureCollection of each row's
   * ST_AsGeoJSON. The function is PostGIS's, found on the search path (db-extra-search-path).
   */
  | { readonly kind: 'geojson' }
  /** application/x-ndjson: each row's JSON (a scalar call's value) followed by `\n`. */
  | { readonly kind: 'ndjson'; readonly scalar: boolean }
  /** HEAD: no body is sent, so none is built (PostgREST's NoAgg). */
  | { readonly kind: 'none' };

const CSV_LINES = constant(
  `coalesce(pg_catalog.string_agg(pg_catalog.substring(_postgrest_t::text, 2, pg_catalog.length(_postgrest_t::text) - 2), E'\\n'), '')`,
);
const NDJSON_ROWS = constant(`coalesce(pg_catalog.string_agg(pg_catalog.row_to_json(_postgrest_t)::text || E'\\n', ''), '')`);
const NDJSON_SCALAR = constant(`coalesce(pg_catalog.string_agg(pg_catalog.to_json(_postgrest_t.pgrst_scalar)::text || E'\\n', ''), '')`);

const GEOJSON = constant(
  `pg_catalog.json_build_object('type', 'FeatureCollection', 'features', coalesce(pg_catalog.json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text`,
);

/** A non-SETOF call's one value (none when its row was filtered away). */
const ONE_SCALAR = constant('(pg_catalog.array_agg(_postgrest_t.pgrst_scalar))[1]');

const asBody = (x: Sql, binary: boolean): Sql => (binary ? sql`(${x})::bytea` : sql`(${x})::text`);

/**
 * An xml value's text as PostgreSQL sends it, through xml's output function: with no XML
 * declaration to print, that drops one newline before the content (PostgREST's text/xml answer
 * starts at `<html>` for `$$\n<html>…$$::xml`). The ::text cast is binary and keeps the newline.
 */
const xmlText = (x: Sql): Sql => sql`pg_catalog.textin(pg_catalog.xml_out(${x}))`;

export function mediaBodySql(body: MediaBody): Sql {
  switch (body.kind) {
    case 'aggregate': {
      const arg = body.scalar
        ? constant('_postgrest_t.pgrst_scalar')
        : body.relation !== null
          ? sql`_postgrest_t::${qualified(body.relation)}`
          : constant('_postgrest_t');
      const agg = sql`${qualified(body.aggregate)}(${arg})`;
      // A domain over bytea arrives as bytea already (PostgreSQL describes a domain column by its
      // base type), so it goes uncast, and its plan's output is the aggregate as PostgREST's is.
      return body.binary ? agg : asBody(agg, false);
    }
    case 'value':
      // One row (a non-SETOF call); no row (filtered away) is an empty body.
      return body.xml === true ? xmlText(ONE_SCALAR) : asBody(ONE_SCALAR, body.binary);
    case 'raw': {
      const col = sql`_postgrest_t.${ident(body.column)}`;
      switch (body.output) {
        case 'text':
          return sql`coalesce(pg_catalog.string_agg((${col})::text, ''), '')`;
        case 'xml':
          return sql`coalesce(${xmlText(sql`pg_catalog.xmlagg((${col})::xml)`)}, '')`;
        case 'binary':
          return body.columnIsBytea
            ? sql`coalesce(pg_catalog.string_agg(${col}, ''::bytea), ''::bytea)`
            : sql`pg_catalog.convert_to(coalesce(pg_catalog.string_agg((${col})::text, ''), ''), 'UTF8')`;
      }
      break;
    }
    case 'csv':
      return sql`(SELECT coalesce(pg_catalog.string_agg(a.k, ','), '') FROM (SELECT pg_catalog.json_object_keys(r)::text AS k FROM (SELECT pg_catalog.row_to_json(hh) AS r FROM ${body.header} AS hh LIMIT 1) AS s) AS a) || E'\\n' || ${CSV_LINES}`;
    case 'geojson':
      return GEOJSON;
    case 'ndjson':
      return body.scalar ? NDJSON_SCALAR : NDJSON_ROWS;
    case 'none':
      return constant('NULL::text');
  }
  throw new Error(`unexpected media body ${JSON.stringify(body)}`);
}
