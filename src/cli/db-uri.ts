// `dbrest db-uri [config-file] [--superuser] [--show-password]`: the connection URI of the database,
// for psql and other tools. With db-uri unset, that of the embedded database a running `dbrest serve`
// has for this directory (its port changes at every start, so there is no URI while none runs): as the
// authenticator dbrest connects as, or `--superuser` as postgres (to change the schema). The password
// is masked unless `--show-password`; it is also in the file next to the data directory.
import path from 'node:path';
import chalk from 'chalk';
import { maskDbUri } from '../config/print.js';
import type { AppConfig } from '../config/types.js';
import { runningEmbeddedDefault } from '../embedded/default.js';
import { secretPath } from '../embedded/secrets.js';
import { EMBEDDED_DATABASE } from '../embedded/bootstrap.js';
import { withDatabase } from '../embedded/uri.js';
import type { CliIo } from './check-config.js';

export interface DbUriOptions {
  readonly superuser: boolean;
  readonly showPassword: boolean;
}

export async function runDbUri(config: AppConfig, io: CliIo, opts: DbUriOptions): Promise<number> {
  const show = (uri: string) => void io.stdout.write(`${opts.showPassword ? uri : maskDbUri(uri)}\n`);
  const fail = (m: string) => {
    io.stderr.write(`${chalk.red('✖')} ${m}\n`);
    return 1;
  };
  if (config.dbUri !== null) {
    if (opts.superuser) return fail('--superuser: db-uri is set; dbrest knows no other user of that database');
    show(config.dbUri);
    return 0;
  }
  const dataDir = path.resolve(io.cwd, config.dbEmbeddedDir);
  const running = await runningEmbeddedDefault(dataDir, (m) => void io.stderr.write(`${chalk.dim(`dbrest ${m}`)}\n`));
  if (!running) return fail(`no dbrest serve runs the embedded PostgreSQL of ${dataDir}: start one (its port changes at every start)`);
  // The superuser's URI names the API's database, not `postgres`: schema changes are made there.
  show(opts.superuser ? withDatabase(running.superuserUri, EMBEDDED_DATABASE) : running.uri);
  if (!opts.showPassword) {
    const file = secretPath(dataDir, opts.superuser ? 'postgres' : 'authenticator');
    io.stderr.write(chalk.dim(`password masked: --show-password prints it; it is also in ${file}\n`));
  }
  return 0;
}
