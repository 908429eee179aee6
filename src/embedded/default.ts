// The embedded default as the commands use it: `serve` runs the embedded database of its directory,
// and `introspect`, `openapi`, `db-uri` reach the same database: the one a dbrest process runs for that
// data directory, or else one they start for their own duration and stop.
//
// Beside the data directory (`.dbrest/pgdata`):
//   pgdata.lock   held (O_EXCL, our PID inside) while a process starts the database and loads the
//                 examples, so two commands starting at once never both run initdb, and nobody uses a
//                 database whose examples are half loaded;
//   pgdata.owner  which dbrest process runs the database, and for which command: a `serve` waits for
//                 a short-lived command's database to stop, and refuses to take over another serve's.
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DOCS_PATH, docsPathCollision, parseRoutes } from '../config/validate.js';
import type { AppConfig, RouteGroup } from '../config/types.js';
import { AUTHENTICATOR, bootstrapEmbedded, EMBEDDED_ANON_ROLE, EMBEDDED_DATABASE } from './bootstrap.js';
import { listExamples } from './examples.js';
import { inspectLockFile, isAlive } from './lockfile.js';
import { startEmbeddedPostgres, type EmbeddedPostgres, type SupervisorEvent } from './postgres.js';
import { readOrCreateSecret, readSecret, secretPath } from './secrets.js';

/** Route mounts and where they come from (for check-config). */
export interface RouteSource {
  readonly source: string;
  readonly groups: ReadonlyArray<RouteGroup>;
}

/** The route mounts of the bundled examples, each with its routes.json; one that does not parse is reported. */
export function exampleRoutes(report: (m: string) => void): RouteSource[] {
  const out: RouteSource[] = [];
  for (const example of listExamples()) {
    if (example.routes === null) continue;
    const parsed = parseRoutes(example.routes);
    // Named as in the repository (examples/<name>/routes.json), wherever dbrest is installed.
    if (parsed.ok) out.push({ source: path.join('examples', example.name, 'routes.json'), groups: parsed.value });
    else for (const i of parsed.issues) report(`examples/${example.name}/routes.json${i.path ?? ''}: ${i.message}`);
  }
  return out;
}

/**
 * db-statement-timeout when it is unset and the database is the embedded one: anyone may reach the
 * embedded default anonymously, and nothing its examples or a developer's API do legitimately takes
 * 10 s. A db-uri's database keeps its own policy (PostgREST sets none; Supabase bounds each role
 * with ALTER ROLE … SET statement_timeout, which dbrest honours), so there it is off unless set.
 */
export const EMBEDDED_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * The embedded default's configuration: the embedded database (`dbUri`; null before it is known), its
 * anonymous role, and the route mounts of the bundled examples after any the configuration has.
 */
export function embeddedConfig(config: AppConfig, dbUri: string | null, report: (m: string) => void): AppConfig {
  const routes: RouteGroup[] = [...config.routes, ...exampleRoutes(report).flatMap((r) => r.groups)];
  // The API explorer is on by default here (a development database); not where it would shadow a mount.
  let docsPath = config.serverDocsPath ?? DEFAULT_DOCS_PATH;
  const collision = docsPath === '' ? null : docsPathCollision(docsPath, routes);
  if (collision !== null) {
    report(`server-docs-path: ${collision}; the API explorer is off`);
    docsPath = '';
  }
  return {
    ...config,
    serverDocsPath: docsPath,
    dbUri,
    dbAnonRole: config.dbAnonRole ?? EMBEDDED_ANON_ROLE,
    dbStatementTimeout: config.dbStatementTimeout ?? EMBEDDED_STATEMENT_TIMEOUT_MS,
    // A developer's own database: DDL reaches the API without a signal (db-schema-watch).
    dbSchemaWatch: config.dbSchemaWatch ?? true,
    routes,
  };
}

export interface EmbeddedDefault {
  /** The URI dbrest connects with: the authenticator, to the `dbrest` database. */
  readonly uri: string;
  /** The superuser's URI (the `postgres` database). */
  readonly superuserUri: string;
  /** The database this process started; null when it uses the one another dbrest process runs. */
  readonly started: EmbeddedPostgres | null;
  /** Stops what this process started; nothing otherwise. */
  close(): Promise<void>;
}

export interface OpenOptions {
  readonly dataDir: string;
  readonly durable: boolean;
  /** The command, recorded in the owner file (`serve`, `introspect`, …). */
  readonly command: string;
  readonly say: (m: string) => void;
  /**
   * Set by `serve`: this process runs the database for its whole life, supervised. Another serve's
   * database is refused; a short-lived command's is waited for. Unset: a running one is used.
   */
  readonly supervise?: (event: SupervisorEvent) => void;
}

/** How long a serve waits for a short-lived command's database to stop, and anyone for the start lock. */
const WAIT_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function openEmbeddedDefault(opts: OpenOptions): Promise<EmbeddedDefault> {
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(path.dirname(dataDir), { recursive: true, mode: 0o700 });
  const unlock = await lock(dataDir, opts.say);
  try {
    const holder = inspectLockFile(dataDir);
    const owner = holder.kind === 'postmaster' ? readOwner(dataDir) : null;
    // Owned: its dbrest process lives and (where we can tell) is the postmaster's parent.
    if (holder.kind === 'postmaster' && owner && isAlive(owner.pid) && (holder.parent === null || holder.parent === owner.pid)) {
      if (!opts.supervise) {
        opts.say(`using the embedded PostgreSQL of dbrest ${owner.command} (PID ${owner.pid}) on port ${holder.port}`);
        return await attach(dataDir, holder.port, opts.say);
      }
      if (owner.command === 'serve') {
        throw new Error(`the embedded PostgreSQL in ${dataDir} is run by another dbrest serve (PID ${owner.pid}): stop it first, or set db-embedded-dir to another directory`);
      }
      opts.say(`waiting for dbrest ${owner.command} (PID ${owner.pid}) to stop its embedded PostgreSQL`);
      for (let waited = 0; isAlive(holder.pid) && waited < WAIT_MS; waited += 100) await sleep(100);
      if (isAlive(holder.pid)) throw new Error(`the embedded PostgreSQL of dbrest ${owner.command} (PID ${owner.pid}) did not stop within ${WAIT_MS / 1000} s`);
    }
    // Nobody's (or an orphan's, which startEmbeddedPostgres stops): start it ourselves.
    const embedded = await startEmbeddedPostgres({
      dataDir,
      durable: opts.durable,
      onProgress: opts.say,
      ...(opts.supervise ? { supervise: opts.supervise } : {}),
    });
    try {
      const { password } = await readOrCreateSecret(secretPath(dataDir, AUTHENTICATOR), opts.say);
      const uri = await bootstrapEmbedded(embedded.uri, password, opts.say);
      const ownerFile = ownerPath(dataDir);
      await fs.writeFile(ownerFile, JSON.stringify({ pid: process.pid, command: opts.command }) + '\n', { mode: 0o600 });
      return {
        uri,
        superuserUri: embedded.uri,
        started: embedded,
        async close() {
          if (readOwner(dataDir)?.pid === process.pid) await fs.rm(ownerFile, { force: true });
          await embedded.stop();
        },
      };
    } catch (e) {
      await embedded.stop();
      throw e;
    }
  } finally {
    await unlock();
  }
}

/** The database a live dbrest process runs for `dataDir`, or null when none does. */
export async function runningEmbeddedDefault(dataDir: string, say: (m: string) => void): Promise<EmbeddedDefault | null> {
  const dir = path.resolve(dataDir);
  const holder = inspectLockFile(dir);
  if (holder.kind !== 'postmaster') return null;
  const owner = readOwner(dir);
  if (!owner || !isAlive(owner.pid) || (holder.parent !== null && holder.parent !== owner.pid)) return null;
  return attach(dir, holder.port, say);
}

/** The URIs of a database another dbrest process runs on `port`, from the password files. */
async function attach(dataDir: string, port: number, say: (m: string) => void): Promise<EmbeddedDefault> {
  const superuser = await readSecret(secretPath(dataDir, 'postgres'), say);
  const authenticator = await readSecret(secretPath(dataDir, AUTHENTICATOR), say);
  const uri = (user: string, password: string, db: string) => `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  return {
    uri: uri(AUTHENTICATOR, authenticator, EMBEDDED_DATABASE),
    superuserUri: uri('postgres', superuser, 'postgres'),
    started: null,
    close: async () => undefined,
  };
}

const ownerPath = (dataDir: string) => path.join(path.dirname(dataDir), `${path.basename(dataDir)}.owner`);

function readOwner(dataDir: string): { pid: number; command: string } | null {
  try {
    const o = JSON.parse(readFileSync(ownerPath(dataDir), 'utf8')) as { pid?: unknown; command?: unknown };
    return typeof o.pid === 'number' && typeof o.command === 'string' ? { pid: o.pid, command: o.command } : null;
  } catch {
    return null;
  }
}

/**
 * The start lock: created exclusively with our PID in it; one whose process is gone is taken over.
 * Resolves to its release.
 */
async function lock(dataDir: string, say: (m: string) => void): Promise<() => Promise<void>> {
  const file = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
  let told = false;
  for (let waited = 0; ; waited += 100) {
    try {
      await fs.writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => fs.rm(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const text = await fs.readFile(file, 'utf8').catch(() => null);
    const holder = Number(text);
    // Empty: its maker has not written its PID yet. Gone (null): try again at once.
    if (text === null || (text !== '' && (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder) || holder === process.pid))) {
      await fs.rm(file, { force: true });
      continue;
    }
    if (waited >= WAIT_MS) throw new Error(`dbrest (PID ${holder}) has been starting the embedded PostgreSQL in ${dataDir} for ${WAIT_MS / 1000} s; if it is stuck, stop it`);
    if (!told) say(`waiting for dbrest (PID ${holder}) to finish starting the embedded PostgreSQL`);
    told = true;
    await sleep(100);
  }
}
