// The resolved configuration every other module reads. Field names are the camelCase of the key
// (`db-max-rows` ↔ dbMaxRows); config/keys.ts is the one table that maps them.

export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';
export type OpenApiMode = 'follow-privileges' | 'ignore-privileges' | 'disabled';
export type LogLevel = 'crit' | 'error' | 'warn' | 'info' | 'debug';

/** A route mount (engine spec §5). */
export interface RouteMount {
  readonly method: string;
  readonly path: string;
  readonly call: string;
  readonly args: Readonly<Record<string, string>>;
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
  readonly dbChannel: string;
  readonly dbChannelEnabled: boolean;
  readonly dbAggregatesEnabled: boolean;
  readonly dbPlanEnabled: boolean;
  readonly dbRootSpec: string | null;
  readonly dbHoistedTxSettings: ReadonlyArray<string>;
  readonly dbConfig: boolean;
  readonly dbPreConfig: string | null;
  readonly dbEmbeddedDir: string;
  readonly jwtSecret: string | null;
  readonly jwtSecretIsBase64: boolean;
  readonly jwtAud: string | null;
  readonly jwtRoleClaimKey: string;
  readonly jwtCacheMaxLifetime: number;        // seconds; 0 disables
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
  readonly serverCorsAllowedOrigins: ReadonlyArray<string> | null;
  readonly serverTimingEnabled: boolean;
  readonly serverTraceHeader: string | null;
  readonly adminServerPort: number | null;
  readonly adminServerHost: string | null;      // null → same as serverHost
  readonly adminServerUnixSocket: string | null;
  readonly adminServerUnixSocketMode: string;  // octal, '600'…'777'
  readonly urlUseLegacyTargetNames: boolean;
  readonly logLevel: LogLevel;
  readonly logQuery: boolean;
  readonly appSettings: Readonly<Record<string, string>>;
  readonly routes: ReadonlyArray<RouteMount>;
}
