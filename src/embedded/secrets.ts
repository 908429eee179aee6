// The embedded database's passwords: one random password per login role, each in its own file next
// to the data directory (`.dbrest/pgdata.password` for the superuser, `.dbrest/pgdata.authenticator.password`
// for the role dbrest connects as), never anywhere else. Files are created with mode 0600 by open(2)
// itself, so there is no moment at which another user could read them.
import { randomBytes, createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The roles with a password of their own. */
export type SecretRole = 'postgres' | 'authenticator';

/** Where a role's password of the cluster in `dataDir` is kept (the data directory's parent). */
export function secretPath(dataDir: string, role: SecretRole): string {
  const base = path.basename(dataDir);
  // The superuser's file keeps the name older versions gave it.
  return path.join(path.dirname(dataDir), role === 'postgres' ? `${base}.password` : `${base}.${role}.password`);
}

/** 24 random bytes, URL-safe: no character needs escaping in a URI or a SQL literal. */
export const newPassword = (): string => randomBytes(24).toString('base64url');

interface Owner {
  readonly uid?: number | undefined;
  readonly gid?: number | undefined;
}

/**
 * Create `file` holding `content`, mode 0600 from the start; fails when it exists. `owner` (running as
 * root) hands it to the user the server runs as, before anything is written into it.
 */
export async function writeSecretFile(file: string, content: string, owner: Owner = {}): Promise<void> {
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    if (owner.uid !== undefined) await handle.chown(owner.uid, owner.gid ?? owner.uid);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/**
 * The password in `file`; made (random) when there is none. A file an older version left readable by
 * others is narrowed to 0600 (`report` says so). Two processes starting at once read the same password:
 * the second's exclusive create fails and it reads the first one's.
 */
export async function readOrCreateSecret(file: string, report: (m: string) => void): Promise<{ password: string; created: boolean }> {
  try {
    await writeSecretFile(file, newPassword());
    return { password: (await fs.readFile(file, 'utf8')).trim(), created: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return { password: await readSecret(file, report), created: false };
}

/** The password in an existing `file`, after narrowing its mode to 0600 if others could read it. */
export async function readSecret(file: string, report: (m: string) => void): Promise<string> {
  const st = await fs.stat(file);
  if ((st.mode & 0o077) !== 0) {
    await fs.chmod(file, 0o600);
    report(`${file} was readable by other users (mode ${(st.mode & 0o777).toString(8)}): now 0600`);
  }
  const password = (await fs.readFile(file, 'utf8')).trim();
  if (password === '') throw new Error(`${file} is empty`);
  return password;
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802/7677, the format of
 * pg_authid.rolpassword). Setting a role's password as a verifier keeps the password itself out of the
 * server (statement logs, pg_stat_statements), as psql's \password does. Our passwords are ASCII, so
 * SASLprep leaves them unchanged.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Whether a stored verifier (rolpassword) is the one of `password`; false for anything unparsable. */
export function verifierMatches(stored: string | null, password: string): boolean {
  const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$[^:]+:.+$/.exec(stored ?? '');
  if (!m) return false;
  return scramVerifier(password, Buffer.from(m[2]!, 'base64'), Number(m[1])) === stored;
}
