// The resolved configuration every other module reads. Field names are the camelCase of the key
// (`db-max-rows` ↔ dbMaxRows); config/keys.ts is the one table that maps them.

export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';
export type OpenApiMode = 'follow-privileges' | 'ignore-privileges' | 'disabled';
export type LogLevel = 'crit' | 'error' | 'warn' | 'info' | 'debug';

/**
 * A route mount (engine spec §5): method(s) + path template → a function call (`call`) with its
 * arguments bound from request parts (`args`: argument → `path.x`, `query.x`, `query`, `header.x`,
 * `cookie.x`, `body`, `method`, `media`), or a table/view (`relation`) answering PostgREST's grammar
 * below the path (`args` then binds columns to `eq` filters).
 */
export interface RouteMount {
  /** Upper-case; HEAD is served for every GET mount without being listed. */
  readonly methods: ReadonlyArray<string>;
  /** The full path template (group prefix + the mount's own path). */
  readonly path: string;
  readonly target: { readonly kind: 'call' | 'relation'; readonly name: string };
  readonly args: Readonly<Record<string, string>>;
  /** Media types the mount answers in (Accept is negotiated against them first); null: the group's. */
  readonly produces: ReadonlyArray<string> | null;
  /** Media types a request body may have (else 415); null: the group's. */
  readonly consumes: ReadonlyArray<string> | null;
  /** `max-body-size` (bytes): replaces the group's for this mount. Absent: the group's. */
  readonly maxBodySize?: number;
  /** `max-body-size-by-media`: media range → bytes, over the group's entries. */
  readonly maxBodySizeByMedia?: Readonly<Record<string, number>>;
}

/** Mounts under one prefix with shared settings. A plain list of mounts is one group with prefix ''. */
export interface RouteGroup {
  /** `/api/v1`, or '' for mounts not grouped. An unmatched path under a prefix is a 404 of the group. */
  readonly prefix: string;
  /** Where unqualified `call`/`relation` names are looked up (default: the first of db-schemas). */
  readonly schema: string | null;
  /** A function rendering every error this group answers into the API's own shape. */
  readonly errorHandler: string | null;
  /** Replaces db-pre-request for the group: a function name, '' for none, null to keep db-pre-request. */
  readonly preRequest: string | null;
  /** Default `produces` / `consumes` of the group's mounts; [] means no restriction. */
  readonly produces: ReadonlyArray<string>;
  readonly consumes: ReadonlyArray<string>;
  /** `max-body-size` (bytes) of the group's requests; absent: server-max-body-size. */
  readonly maxBodySize?: number;
  /** `max-body-size-by-media`: a body of this media range (`application/xml`, `text/*`) → bytes. */
  readonly maxBodySizeByMedia?: Readonly<Record<string, number>>;
  readonly routes: ReadonlyArray<RouteMount>;
}

export interface AppConfig {
  readonly dbUri: string | null;
  readonly dbSchemas: ReadonlyArray<string>;
  readonly dbAnonRole: string | null;
  readonly dbMaxRows: number | null;
  readonly dbPool: number;
  readonly dbPoolAcquisitionTimeout: number;   // seconds
  readonly dbPoolMaxLifetime: number;          // seconds
  readonly dbPoolMaxIdletime: number;          // seconds
  readonly dbPoolAutomaticRecovery: boolean;
  readonly dbExtraSearchPath: ReadonlyArray<string>;
  readonly dbPreRequest: string | null;
  readonly dbPreparedStatements: boolean;
  readonly dbTxEnd: TxEnd;
  /** db-read-uris: read replicas (db/replicas.ts). */
  readonly dbReadUris: ReadonlyArray<string>;
  readonly dbReadMaxLag: number;
  readonly dbChannel: string;
  readonly dbChannelEnabled: boolean;
  /** db-channel-uri: the connection for LISTEN only; null = db-uri. */
  readonly dbChannelUri: string | null;
  readonly dbAggregatesEnabled: boolean;
  readonly dbPlanEnabled: boolean;
  readonly dbRootSpec: string | null;
  readonly dbHoistedTxSettings: ReadonlyArray<string>;
  readonly dbConfig: boolean;
  readonly dbPreConfig: string | null;
  readonly dbEmbeddedDir: string;
  readonly dbEmbeddedDurable: boolean;
  readonly dbMaxEmbedDepth: number;            // 0: no limit
  readonly dbMaxEmbeds: number;                // 0: no limit
  readonly dbSchemaWatch: boolean | null;       // null: on for the embedded default only
  readonly dbStatementTimeout: number | null;  // milliseconds; 0: off; null: on (10 s) for the embedded default only
  readonly jwtSecret: string | null;
  readonly jwtSecretIsBase64: boolean;
  readonly jwtAud: string | null;
  readonly jwtRoleClaimKey: string;
  readonly jwtCacheMaxLifetime: number;        // seconds; 0: until the token's exp
  readonly jwtCacheMaxEntries: number;
  readonly clientErrorVerbosity: 'verbose' | 'minimal';
  readonly openapiMode: OpenApiMode;
  readonly openapiServerProxyUri: string | null;
  readonly openapiSecurityActive: boolean;
  readonly openapiVersion: '2.0' | '3.1';
  readonly serverHost: string;
  readonly serverPort: number;
  readonly serverUnixSocket: string | null;
  readonly serverUnixSocketMode: string;       // octal, '600'…'777'
  readonly serverReuseport: boolean;
  /** Worker processes of `dbrest serve` (node:cluster); `auto`: os.availableParallelism(). */
  readonly serverWorkers: number | 'auto';
  readonly serverCorsAllowedOrigins: ReadonlyArray<string> | null;
  readonly serverMaxBodySize: number;          // bytes
  readonly serverMaxResponseBytes: number;     // bytes; 0: no limit
  /** Rows above which a read or set-returning call may be streamed (http/stream.ts). */
  readonly serverStreamThreshold: number;
  readonly serverTimingEnabled: boolean;
  readonly serverTraceHeader: string | null;
  /** The API explorer's path (`/_docs`); '' off; null: /_docs with the embedded default, else off. */
  readonly serverDocsPath: string | null;
  readonly adminServerPort: number | null;
  readonly adminServerHost: string | null;      // null → same as serverHost
  readonly adminServerUnixSocket: string | null;
  readonly adminServerUnixSocketMode: string;  // octal, '600'…'777'
  readonly urlUseLegacyTargetNames: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: 'text' | 'json';
  readonly logQuery: boolean;
  readonly appSettings: Readonly<Record<string, string>>;
  readonly routes: ReadonlyArray<RouteGroup>;
}
