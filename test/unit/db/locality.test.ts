// Where the database runs decides the sharing policy (db/locality.ts): on this machine with few
// cores, fast batches pipeline deeper.
import os from 'node:os';
import t from 'tap';
import pg from 'pg';
import { LOCAL_POLICY_MAX_CORES, isLocalHost, poolHost, sharePolicyFor } from '../../../src/db/locality.js';
import { DEFAULT_SHARE_POLICY, LOCAL_SHARE_POLICY } from '../../../src/db/share-policy.js';

t.test('hosts on this machine', async (t) => {
  for (const h of ['localhost', 'LOCALHOST', 'db.localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '/var/run/postgresql', '/tmp', os.hostname()]) {
    t.equal(isLocalHost(h), true, h);
  }
  for (const h of ['db.example.com', '10.1.2.3', '128.0.0.1', '::2', '', undefined]) t.equal(isLocalHost(h), false, String(h));
});

t.test('the host of a pool, as pg resolves it, without connecting', async (t) => {
  const host = (uri: string) => {
    const pool = new pg.Pool({ connectionString: uri });
    const h = poolHost(pool);
    void pool.end();
    return h;
  };
  t.equal(host('postgres://u:p@localhost:5432/db'), 'localhost');
  t.equal(host('postgres://u@[::1]:5432/db'), '::1');
  t.equal(host('postgres://u@/db?host=/var/run/postgresql'), '/var/run/postgresql', 'a Unix socket directory');
  t.equal(host('postgres://u@db.example.com/db'), 'db.example.com');
});

t.test('the policy: deep pipelining only for a database on this machine with few cores', async (t) => {
  t.same(sharePolicyFor('127.0.0.1', 2), { ...LOCAL_SHARE_POLICY, maxFastConnections: 5 }, 'fast batches on 2 × 2 + 1 connections at most');
  t.same(sharePolicyFor('/tmp', LOCAL_POLICY_MAX_CORES), { ...LOCAL_SHARE_POLICY, maxFastConnections: 2 * LOCAL_POLICY_MAX_CORES + 1 });
  t.equal(DEFAULT_SHARE_POLICY.maxFastConnections, Infinity);
  t.equal(sharePolicyFor('127.0.0.1', LOCAL_POLICY_MAX_CORES + 1), DEFAULT_SHARE_POLICY, 'more cores: unmeasured, the default');
  t.equal(sharePolicyFor('db.example.com', 2), DEFAULT_SHARE_POLICY, 'elsewhere: the default');
  t.equal(sharePolicyFor(undefined, 2), DEFAULT_SHARE_POLICY, 'unknown: the default');
});
