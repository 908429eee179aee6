// When the server-workers primary replaces a dead worker, and when it gives up (cluster/restart-policy.ts),
// and what server-workers=auto counts (cluster/protocol.ts).
import os from 'node:os';
import t from 'tap';
import { GIVE_UP_AFTER, onWorkerExit, RESTART_INITIAL_MS, STABLE_MS } from '../../../src/cluster/restart-policy.js';
import { workerCount } from '../../../src/cluster/protocol.js';

t.test('quick exits in a row double the delay, then give up', async (t) => {
  let inARow = 0;
  const delays: number[] = [];
  for (;;) {
    const d = onWorkerExit(inARow, 1000);
    inARow = d.crashesInARow;
    if (d.giveUp) break;
    delays.push(d.delayMs);
  }
  t.same(delays, [RESTART_INITIAL_MS, RESTART_INITIAL_MS * 2, RESTART_INITIAL_MS * 4, RESTART_INITIAL_MS * 8]);
  t.equal(inARow, GIVE_UP_AFTER);
});

t.test('a worker that served for a while starts the count again', async (t) => {
  t.same(onWorkerExit(GIVE_UP_AFTER - 1, STABLE_MS), { giveUp: false, crashesInARow: 1, delayMs: RESTART_INITIAL_MS });
  t.same(onWorkerExit(3, STABLE_MS - 1), { giveUp: false, crashesInARow: 4, delayMs: RESTART_INITIAL_MS * 8 });
});

t.test('server-workers: a number, or auto for the available cores', async (t) => {
  t.equal(workerCount({ serverWorkers: 3 }), 3);
  t.equal(workerCount({ serverWorkers: 'auto' }, () => 8), 8);
  t.equal(workerCount({ serverWorkers: 'auto' }), os.availableParallelism());
});
