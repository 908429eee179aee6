// Binding a server to a host and port or to a unix socket, with the errors of listen() as rejections.
// Shared by the API and admin servers of a worker and by a cluster primary's admin server.
import type { AddressInfo } from 'node:net';
import { chmod, rm } from 'node:fs/promises';
import type http from 'node:http';
import type { AppConfig } from '../config/types.js';

/** A host as it stands in a URL (an IPv6 address in brackets). */
export const urlHost = (h: string): string => (h.includes(':') ? `[${h}]` : h);

export function listen(server: http.Server, host: string, port: number, reusePort = false): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // reusePort (SO_REUSEPORT) is a listen option from Node 22.12 / 23.1 on; validate.ts refuses
    // server-reuseport on older Node, so it is only passed where Node honours it.
    const options = reusePort ? { port, host, reusePort: true } : { port, host };
    server.listen(options, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** server-unix-socket: listen on a socket file (a stale one is removed first) with the given mode. */
export async function listenUnix(server: http.Server, socketPath: string, mode: string, removeStale = true): Promise<void> {
  if (removeStale) await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(socketPath, parseInt(mode, 8));
}

/**
 * The admin server on admin-server-unix-socket, which takes precedence as server-unix-socket does,
 * or on admin-server-port (at admin-server-host, default server-host). Returns its URL.
 */
export async function listenAdmin(
  admin: http.Server,
  config: Pick<AppConfig, 'adminServerUnixSocket' | 'adminServerUnixSocketMode' | 'adminServerHost' | 'adminServerPort' | 'serverHost'>,
): Promise<string> {
  if (config.adminServerUnixSocket !== null) {
    await listenUnix(admin, config.adminServerUnixSocket, config.adminServerUnixSocketMode);
    return `unix:${config.adminServerUnixSocket}`;
  }
  const host = config.adminServerHost ?? config.serverHost;
  return `http://${urlHost(host)}:${await listen(admin, host, config.adminServerPort as number)}`;
}
