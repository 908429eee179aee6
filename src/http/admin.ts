// The admin server (admin-server-port): /live answers while the process runs, /ready while the
// schema cache is loaded and the database answers.
import http from 'node:http';
import type { AdminRoute } from './admin-routes.js';

export function createAdminServer(isReady: () => Promise<boolean>, more: AdminRoute | null = null): http.Server {
  return http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/live') {
      res.writeHead(200, { 'Content-Length': 0 }).end();
    } else if (path === '/ready') {
      const ready = await isReady().catch(() => false);
      res.writeHead(ready ? 200 : 503, { 'Content-Length': 0 }).end();
    } else if (more === null || !(await more(path, res).catch(() => false))) {
      res.writeHead(404, { 'Content-Length': 0 }).end();
    }
  });
}
