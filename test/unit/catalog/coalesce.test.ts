// coalesce: a burst of events is one call, with how many events it stands for.
import t from 'tap';
import { coalesce } from '../../../src/catalog/coalesce.js';

// coalesce's timers are unref'd (they never hold a server open); this keeps the test's process alive.
const keepAlive = setInterval(() => undefined, 1000);
t.teardown(() => clearInterval(keepAlive));

t.test('a burst is one call carrying its count; a later event starts a new burst', async (t) => {
  const calls: number[] = [];
  let settled: () => void = () => undefined;
  const c = coalesce((n) => {
    calls.push(n);
    settled();
  }, 20, 1000);
  await new Promise<void>((r) => {
    settled = r;
    for (let i = 0; i < 100; i++) c.add();
  });
  t.same(calls, [100]);
  await new Promise<void>((r) => {
    settled = r;
    c.add();
  });
  t.same(calls, [100, 1]);
});

t.test('cancel drops the pending call', async (t) => {
  let called = false;
  const c = coalesce(() => (called = true), 1, 1000);
  c.add();
  c.cancel();
  // Past the quiet time, a timer of its own fires after the cancelled one would have.
  await new Promise((r) => setTimeout(r, 30));
  t.equal(called, false);
});
