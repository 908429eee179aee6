// The sharing policy (db/share-policy.ts) fed measured batch times: which classes count as fast,
// and which connections a batch may join.
import t from 'tap';
import { DEFAULT_SHARE_POLICY, LOCAL_SHARE_POLICY, SharePolicy, type ConnectionState } from '../../../src/db/share-policy.js';

const conn = (depth: number, headServingMs: number, headClass: string | null, guarded = 0, aheadBytes = 0, aheadMs = 0, writes = 0): ConnectionState => ({ depth, headServingMs, headClass, guarded, aheadBytes, aheadMs, writes });
const feed = (p: SharePolicy, key: string, ...times: number[]) => times.forEach((ms) => p.record(key, ms));

t.test('a class is fast after a few fast samples, and stays fast on a low average', async (t) => {
  const p = new SharePolicy();
  t.equal(p.fast('q'), false, 'unknown');
  t.equal(p.fast(null), false, 'no class: never fast');
  feed(p, 'q', 0.4, 0.6);
  t.equal(p.fast('q'), false, 'two samples are not enough');
  feed(p, 'q', 0.5);
  t.equal(p.fast('q'), true, 'three fast samples');
  t.equal(p.average('q'), 0.4 + 0.1 * (0.6 - 0.4) + 0.1 * (0.5 - 0.42), 'moving average with weight 0.1');
  feed(p, 'q', 9, 9, 9);
  t.equal(p.fast('q'), true, 'a few slower (not slow) samples keep the average low');
});

t.test('one slow sample makes a class not fast for a while', async (t) => {
  const p = new SharePolicy();
  feed(p, 'rpc', 1, 1, 1, 1);
  t.equal(p.fast('rpc'), true);
  p.record('rpc', 1500); // pg_sleep(1.5)
  t.equal(p.fast('rpc'), false, 'right after the slow sample');
  for (let i = 0; i < DEFAULT_SHARE_POLICY.slowMemory - 1; i++) p.record('rpc', 0.1);
  t.equal(p.fast('rpc'), false, `still not fast ${DEFAULT_SHARE_POLICY.slowMemory - 1} fast samples later`);
  // the average must also have come down below fastMs by then
  for (let i = 0; i < 40; i++) p.record('rpc', 0.1);
  t.equal(p.fast('rpc'), true, 'fast again once the slow one is out of memory and the average is low');
});

t.test('a class with a high average is not fast', async (t) => {
  const p = new SharePolicy();
  feed(p, 'export', 30, 30, 30, 30, 30);
  t.equal(p.fast('export'), false, 'average 30 ms > 10 ms');
  t.equal(p.average('export'), 30);
});

t.test('classes are independent, and the table is bounded', async (t) => {
  const p = new SharePolicy({ ...DEFAULT_SHARE_POLICY, maxClasses: 3 });
  feed(p, 'a', 1, 1, 1);
  feed(p, 'b', 100, 100, 100);
  t.equal(p.fast('a'), true);
  t.equal(p.fast('b'), false);
  feed(p, 'c', 1);
  feed(p, 'd', 1); // over the bound: the statistics start over
  t.equal(p.fast('a'), false, 'forgotten');
  t.equal(p.average('d'), 1);
});

t.test('with a free connection, only fast batches join fast, fresh heads', async (t) => {
  const p = new SharePolicy();
  feed(p, 'fast', 0.5, 0.5, 0.5);
  t.equal(p.mayJoin(conn(1, 0.5, 'fast'), true, true), true, 'fast behind a fresh fast head');
  t.equal(p.mayJoin(conn(7, 0.5, 'fast'), true, true), true, 'up to depth 8');
  t.equal(p.mayJoin(conn(8, 0.5, 'fast'), true, true), false, 'not beyond');
  t.equal(p.mayJoin(conn(1, 2.5, 'fast'), true, true), false, 'head serving longer than 2 ms');
  t.equal(p.mayJoin(conn(1, 0.5, 'fast'), false, true), false, 'a batch not known fast takes its own connection');
  t.equal(p.mayJoin(conn(1, 0.5, 'new', 1), true, true), false, 'nor does anyone join a batch not known fast');
  t.equal(p.mayJoin(conn(0, 0, null), false, true), true, 'an idle connection is always fine');
});

t.test('with every connection busy: fast batches stack, anything else shares with one other at most', async (t) => {
  const p = new SharePolicy();
  feed(p, 'fast', 1, 1, 1);
  t.equal(p.mayJoin(conn(7, 1, 'fast'), true, false), true, 'fast up to depth 8');
  t.equal(p.mayJoin(conn(8, 1, 'fast'), true, false), false);
  t.equal(p.mayJoin(conn(1, 1, 'fast'), false, false), true, 'an unknown batch may be second behind a fast one');
  t.equal(p.mayJoin(conn(2, 1, 'fast'), false, false), false, 'but not third');
  t.equal(p.mayJoin(conn(1, 1, 'slow', 1), true, false), true, 'one fast batch may wait behind a batch not known fast…');
  t.equal(p.mayJoin(conn(2, 1, 'slow', 1), true, false), false, '…but never a second one');
  t.equal(p.mayJoin(conn(2, 0.1, 'fast', 1), true, false), false, 'also when the guarded batch is not the head');
});

t.test('a head serving longer than usual for its class stops all joining', async (t) => {
  const p = new SharePolicy();
  feed(p, 'one', 1, 1, 1);
  feed(p, 'fifty', 4, 4, 4);
  t.equal(p.mayJoin(conn(1, 3.9, 'one'), true, false), true, 'within 4 × its 1 ms average');
  t.equal(p.mayJoin(conn(1, 4.1, 'one'), true, false), false, 'beyond it');
  t.equal(p.mayJoin(conn(1, 15, 'fifty'), true, false), true, 'a class averaging 4 ms may run 16 ms');
  t.equal(p.mayJoin(conn(1, 17, 'fifty'), true, false), false);
  feed(p, 'nine', 9, 9, 9);
  t.equal(p.mayJoin(conn(1, 21, 'nine'), true, false), false, 'never beyond 20 ms');
  t.equal(p.mayJoin(conn(1, 2.1, 'slow', 1), true, false), false, 'a head not known fast: 2 ms');
  t.equal(p.mayJoin(conn(1, 1.9, null, 1), true, false), true);
});

t.test('how long a head may stall before what it holds up is hedged', async (t) => {
  const p = new SharePolicy();
  t.equal(p.hedgeAfter('new'), 20, 'a head not known fast: the minimum');
  t.equal(p.hedgeAfter(null), 20);
  feed(p, 'one', 1, 1, 1);
  t.equal(p.hedgeAfter('one'), 20, '8 × a 1 ms average is under the minimum');
  feed(p, 'four', 4, 4, 4);
  t.equal(p.hedgeAfter('four'), 32, '8 × 4 ms');
  feed(p, 'nine', 9, 9, 9);
  t.equal(p.hedgeAfter('nine'), 40, 'never beyond 40 ms');
  feed(p, 'export', 30, 30, 30);
  t.equal(p.hedgeAfter('export'), 20, 'a class not fast: the minimum');
});

t.test('batches with big answers do not stack: the answer sizes on a connection are bounded', async (t) => {
  const p = new SharePolicy();
  feed(p, 'small', 1, 1, 1);
  p.record('big', 1, 7000);
  p.record('big', 1, 8000);
  p.record('big', 1, 7000);
  t.equal(p.size('unknown'), 0);
  t.equal(p.size('big'), 7000 + 0.1 * (8000 - 7000) + 0.1 * (7000 - 7100), 'moving average of the sizes');
  const limit = DEFAULT_SHARE_POLICY.maxAheadBytes;
  t.equal(limit, 8 * 1024);
  t.equal(p.mayJoin(conn(1, 0.5, 'big', 0, 7090), true, true, 7090), false, 'a big answer behind a big answer, free connection');
  t.equal(p.mayJoin(conn(1, 0.5, 'big', 0, 7090), true, false, 7090), false, 'nor with every connection busy');
  t.equal(p.mayJoin(conn(1, 0.5, 'small', 0, 200), true, false, 7090), true, 'a big answer behind a small one');
  t.equal(p.mayJoin(conn(7, 0.5, 'small', 0, 7 * 200), true, false, 200), true, 'small answers stack to the depth limit');
  t.equal(p.mayJoin(conn(0, 0, null, 0, 0), true, false, limit * 2), true, 'an idle connection takes any size');
});

t.test('fast batches stack only while those ahead usually take little time altogether', async (t) => {
  const p = new SharePolicy();
  feed(p, 'four', 4, 4, 4);
  t.equal(DEFAULT_SHARE_POLICY.maxAheadMs, 8);
  t.equal(p.mayJoin(conn(2, 0.5, 'four', 0, 0, 8), true, true), true, 'two batches of 4 ms ahead: 8 ms');
  t.equal(p.mayJoin(conn(3, 0.5, 'four', 0, 0, 12), true, true), false, 'three: 12 ms, with a free connection');
  t.equal(p.mayJoin(conn(3, 0.5, 'four', 0, 0, 12), true, false), false, 'nor with every connection busy');
  feed(p, 'slow', 60, 60, 60);
  t.equal(p.mayJoin(conn(1, 1, 'slow', 1, 0, 60), true, false), true, 'a batch not known fast is bounded by the guarded depth instead');
});

t.test('for a database on this machine, fast batches stack 32 deep', async (t) => {
  const p = new SharePolicy(LOCAL_SHARE_POLICY);
  feed(p, 'insert', 0.03, 0.03, 0.03);
  t.equal(p.mayJoin(conn(31, 0.1, 'insert', 0, 0, 31 * 0.03), true, true), true, 'with a free connection');
  t.equal(p.mayJoin(conn(32, 0.1, 'insert', 0, 0, 32 * 0.03), true, true), false, 'not beyond 32');
  t.equal(p.mayJoin(conn(31, 0.1, 'insert', 0, 0, 31 * 0.03), true, false), true, 'with every connection busy');
  t.equal(p.mayJoin(conn(1, 2.5, 'insert'), true, true), false, 'a head serving longer than 2 ms still takes no company');
  t.equal(p.mayJoin(conn(2, 0.1, 'insert', 1), false, false), false, 'and a batch not known fast still shares with one other at most');
  t.equal(new SharePolicy().mayJoin(conn(8, 0.1, 'x', 0, 0, 0), true, true), false, 'the default stays at 8');
});

t.test('while a connection is free, a write joins no connection and nothing joins a write; with none free, as before', async (t) => {
  const p = new SharePolicy(LOCAL_SHARE_POLICY);
  feed(p, 'ins', 1, 1, 1);
  feed(p, 'sel', 0.1, 0.1, 0.1);
  const reads = conn(1, 0.1, 'sel', 0, 0, 0.1);
  const write = conn(1, 0.1, 'ins', 0, 0, 1, 1);
  t.equal(p.mayJoin(reads, true, true), true, 'a read joins reads');
  t.equal(p.mayJoin(reads, true, true, 0, true), false, 'a write takes a free connection rather than join reads');
  t.equal(p.mayJoin(write, true, true, 0, true), false, 'nor does it join a write: the two commits flush together');
  t.equal(p.mayJoin(write, true, true), false, 'a read does not wait behind a write for its flush');
  t.equal(p.mayJoin(write, true, false, 0, true), true, 'none free: a write joins a write');
  t.equal(p.mayJoin(reads, true, false, 0, true), true, 'or reads');
  t.equal(p.mayJoin(write, true, false), true, 'and a read joins a write');
  t.equal(p.mayJoin(conn(0, 0, null), true, true, 0, true), true, 'a connection with nothing in flight is as good as free');
});
