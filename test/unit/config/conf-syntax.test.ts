// PostgREST's `.conf` syntax (configurator-pg).
import t from 'tap';

import { parseConf, type ConfParseResult } from '../../../src/config/conf-syntax.js';

function ok(t: { fail(m: string): void }, r: ConfParseResult): Readonly<Record<string, unknown>> {
  if (!r.ok) {
    t.fail(`parse failed: line ${r.error.line}, column ${r.error.column}: ${r.error.message}`);
    return {};
  }
  return r.value;
}

function failure(r: ConfParseResult): { line: number; column: number; message: string } {
  if (r.ok) throw new Error(`expected a parse error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

t.test('PostgREST\'s documented example', async (t) => {
  const text = `# postgrest.conf

# The standard connection URI format, documented at
# https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING
db-uri       = "postgres://user:pass@host:5432/dbname"

# The database role to use when no client authentication is provided.
db-anon-role = "anon"

jwt-secret           = "reallyreallyreallyreallyverysafe"
jwt-secret-is-base64 = false

# Port the postgrest process is listening on for http requests
server-port = 3000
`;
  t.same(ok(t, parseConf(text)), {
    'db-uri': 'postgres://user:pass@host:5432/dbname',
    'db-anon-role': 'anon',
    'jwt-secret': 'reallyreallyreallyreallyverysafe',
    'jwt-secret-is-base64': false,
    'server-port': 3000,
  });
});

t.test('value types', async (t) => {
  t.same(ok(t, parseConf('a = true\nb = false\nc = on\nd = off\ne = 12\nf = -3\ng = 1.5\nh = 2e3\ni = "x"\nj = [1, "two", [false]]\nk = []\n')), {
    a: true, b: false, c: true, d: false, e: 12, f: -3, g: 1.5, h: 2000, i: 'x', j: [1, 'two', [false]], k: [],
  });
});

t.test('comments, blank lines, trailing comments, CRLF, later duplicates win', async (t) => {
  t.same(ok(t, parseConf('# head\r\n\r\na = 1 # trailing\r\n   # indented\r\na = 2\r\nb = "# not a comment"\r\n')), {
    a: 2, b: '# not a comment',
  });
});

t.test('dotted keys and app.settings', async (t) => {
  t.same(ok(t, parseConf('app.settings.jwt_secret = "s"\napp.settings.x-y = "z"\n')), {
    'app.settings.jwt_secret': 's',
    'app.settings.x-y': 'z',
  });
});

t.test('groups prefix their keys', async (t) => {
  t.same(ok(t, parseConf('app {\n  settings {\n    region = "eu" # c\n    n = 1\n  }\n}\nafter = true\n')), {
    'app.settings.region': 'eu', 'app.settings.n': 1, after: true,
  });
  t.same(ok(t, parseConf('ag { q-e { i_u9 { a=false}}}')), { 'ag.q-e.i_u9.a': false });
});

t.test('string escapes', async (t) => {
  t.same(ok(t, parseConf(String.raw`s = "a\"b\\c\nd\te\r\u00e9\ud83d\ude00"`)), { s: 'a"b\\c\nd\te\ré😀' });
  t.match(failure(parseConf(String.raw`s = "bad \q"`)).message, /unknown escape/);
});

t.test('interpolation: environment, earlier keys, $$', async (t) => {
  const env = { MY_SECRET: 'from-env', HOME: '/home/x' };
  t.same(ok(t, parseConf('base = "/srv"\nport = 5432\na = "$(MY_SECRET)"\nb = "$(base)/data:$(port)"\nc = "cost $$5"\n', { env })), {
    base: '/srv', port: 5432, a: 'from-env', b: '/srv/data:5432', c: 'cost $5',
  });
  // Inside a group the innermost key wins, then outer ones, then the environment.
  t.same(ok(t, parseConf('x = "outer"\ng { x = "inner"\n y = "$(x)" }\nz = "$(x)"\n')), {
    x: 'outer', 'g.x': 'inner', 'g.y': 'inner', z: 'outer',
  });
  // Lists are not interpolated (as configurator-pg).
  t.same(ok(t, parseConf('l = ["$(NOPE)"]\n')), { l: ['$(NOPE)'] });
  const missing = failure(parseConf('a = "$(NOPE)"\n', { env }));
  t.match(missing.message, /no such variable: 'NOPE'/);
  t.equal(missing.line, 1);
  t.match(failure(parseConf('a = "$x"\n')).message, /\$\$/);
});

t.test('directive comments skip one directive', async (t) => {
  t.same(ok(t, parseConf('#; skipped = 1\nkept = 2\n#; comment {\n  x = 1\n  msg = "$(NOPE)"\n}\n')), { kept: 2 });
});

t.test('import, when the caller allows it', async (t) => {
  const files: Record<string, string> = { 'more.conf': 'b = 2\nc = "$(a)"\n' };
  t.same(ok(t, parseConf('a = "1"\nimport "more.conf"\n', { readImport: (p) => files[p] ?? '' })), { a: '1', b: 2, c: '1' });
  t.match(failure(parseConf('import "x.conf"\n')).message, /not supported/);
  t.match(failure(parseConf('import "x.conf"\n', { readImport: () => { throw new Error('ENOENT'); } })).message, /import "x.conf": ENOENT/);
  t.match(failure(parseConf('import "bad.conf"\n', { readImport: () => 'a = \n' })).message, /in import "bad.conf", line 1/);
});

t.test('errors name the line and column', async (t) => {
  const e1 = failure(parseConf('a = 1\nb = "unterminated\n'));
  t.same([e1.line, e1.column], [2, 5]);
  t.match(e1.message, /unterminated string/);

  const e2 = failure(parseConf('a = 1\n\nkey "value"\n'));
  t.equal(e2.line, 3);
  t.match(e2.message, /expected '=' after 'key'/);

  t.match(failure(parseConf("a = 'single'")).message, /double quotes/);
  const e3 = failure(parseConf('a = \nb = 1\n'));
  t.same([e3.line, e3.column, e3.message], [1, 3, "expected a value after 'a ='"]);
  t.same(ok(t, parseConf('a =\n  # the value may follow on a later line\n  1\n')), { a: 1 });
  t.match(failure(parseConf('a = bare')).message, /expected a value/);
  t.match(failure(parseConf('a = 1 2')).message, /new line/);
  t.match(failure(parseConf('a. = 1')).message, /dot/);
  t.match(failure(parseConf('1a = 1')).message, /expected a key/);
  t.match(failure(parseConf('g { a = 1')).message, /missing '}'/);
  t.match(failure(parseConf('a = [1 2]')).message, /','/);
  t.match(failure(parseConf('import = 1')).message, /quoted path|reserved/);
});

t.test('empty input', async (t) => {
  t.same(ok(t, parseConf('')), {});
  t.same(ok(t, parseConf('# only a comment\n\n')), {});
});
