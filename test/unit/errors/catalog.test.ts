import t from 'tap';

import { errors, type ErrorCode } from '../../../src/errors/catalog.js';
import { renderError } from '../../../src/errors/render.js';

// Every catalogue entry renders, in both verbosities, with its own code and status.
for (const code of Object.keys(errors) as ErrorCode[]) {
  t.test(code, async (t) => {
    const e = errors[code](`message of ${code}`, { details: 'some details', hint: 'some hint' });
    t.equal(e.code, code);
    t.ok(e.status >= 300 && e.status <= 599, 'an error status');

    const verbose = renderError(e, 'verbose');
    t.equal(verbose.status, e.status);
    t.same(JSON.parse(verbose.body), { code, details: 'some details', hint: 'some hint', message: `message of ${code}` });
    t.equal(verbose.headers['Proxy-Status'], `dbrest; error=${code}`);
    t.equal(verbose.headers['Content-Type'], 'application/json; charset=utf-8');

    const minimal = renderError(e, 'minimal');
    t.same(JSON.parse(minimal.body), { code, message: `message of ${code}` });

    const bare = renderError(errors[code]('m'), 'verbose');
    t.same(JSON.parse(bare.body), { code, details: null, hint: null, message: 'm' });
  });
}

t.test('the catalogue follows the seed statuses', async (t) => {
  const seed: Readonly<Record<string, number>> = {
    DBRST000: 503, DBRST001: 503, DBRST002: 503, DBRST003: 504,
    DBRST100: 400, DBRST101: 405, DBRST102: 400, DBRST103: 416, DBRST105: 405, DBRST106: 406,
    DBRST108: 400, DBRST111: 500, DBRST112: 500, DBRST114: 400, DBRST115: 400, DBRST116: 406,
    DBRST117: 405, DBRST118: 400, DBRST120: 400, DBRST121: 500, DBRST122: 400, DBRST123: 400,
    DBRST124: 400, DBRST125: 404, DBRST126: 404, DBRST127: 400, DBRST128: 400,
    DBRST200: 400, DBRST201: 300, DBRST202: 404, DBRST203: 300, DBRST204: 400, DBRST205: 404,
    DBRST300: 500, DBRST301: 401, DBRST302: 401, DBRST303: 401, DBRSTX00: 500,
  };
  for (const [code, status] of Object.entries(seed)) {
    t.equal(errors[code as ErrorCode]('m').status, status, code);
  }
});
