// The bench's target judgement (test/bench/targets.ts): on unrounded ratios.
import t from 'tap';
import { ratioText, roundRatios, targetCheck } from '../../bench/targets.js';

const figures = (floorRps: number, dbrestRps: number, floorP99 = 10, dbrestP99 = 10) => ({
  floor: { reqPerSec: floorRps, p99Ms: floorP99 },
  dbrest: { reqPerSec: dbrestRps, p99Ms: dbrestP99 },
});

t.test('a req/s ratio that rounds to the target does not meet it', async (t) => {
  const check = targetCheck('W2', figures(3337, 3328));
  t.equal(check.rpsMet, false, '3,328 against 3,337 is 0.997: below 1.0');
  t.equal(ratioText(check.rps!, check.rpsTarget), '0.997', 'and is shown to 3 places');
  t.equal(targetCheck('W2', figures(3337, 3337)).rpsMet, true, 'level meets it');
  t.equal(ratioText(1, 1), '1.00');
  t.equal(ratioText(1.0449, 1), '1.04', 'away from the limit: 2 places');
  t.equal(targetCheck('W4', figures(10_000, 9_000)).rpsMet, true, 'W4: 0.9 meets ≥ 0.9');
  t.equal(targetCheck('W4', figures(10_000, 8_999)).rpsMet, false);
});

t.test('a p99 ratio just over 1.5 misses, though it rounds to 1.50', async (t) => {
  const over = targetCheck('W1', figures(1000, 1000, 10, 15.04));
  t.equal(over.p99Met, false);
  t.equal(over.p99Ratio, 1.5, 'the JSON keeps 2 places');
  t.equal(ratioText(over.p99!, 1.5), '1.504');
  t.equal(targetCheck('W1', figures(1000, 1000, 10, 15)).p99Met, true, 'exactly 1.5 meets it');
});

t.test('cases without targets or figures', async (t) => {
  const w6 = targetCheck('W6', figures(100, 120));
  t.equal(w6.rpsTarget, null);
  t.equal(w6.rpsMet, null, 'no req/s target: not judged');
  t.equal(w6.p99Met, true, 'p99 is judged for every case');
  const none = targetCheck('W2', null);
  t.same([none.rps, none.rpsMet, none.p99, none.p99Met], [null, null, null, null], 'a side that did not run: nothing judged');
});

t.test('the req/s ratio round by round', async (t) => {
  t.same(roundRatios([3000, 3500, 3200, 3400], [3300, 3150, 3200, 3740]), [1.1, 0.9, 1, 1.1], 'each round against its pair');
  t.same(roundRatios([3000, 3500], [3300]), [1.1], 'only rounds both sides ran');
  t.same(roundRatios([0, 3000], [100, 3000]), [1], 'a floor round of 0 req/s gives no ratio');
  t.same(roundRatios([], []), []);
});
