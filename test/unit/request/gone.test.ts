// ClientGone (request/gone.ts): the AbortSignal subset the handlers rely on — listeners run once,
// on abort; a removed one never; one added after the abort is not called (as EventTarget).
import t from 'tap';
import { ClientGone } from '../../../src/request/gone.js';

t.test('listeners run once, in order, when the client goes away', async (t) => {
  const gone = new ClientGone();
  const calls: string[] = [];
  const a = () => calls.push('a');
  const b = () => calls.push('b');
  const c = () => calls.push('c');
  gone.addEventListener('abort', a, { once: true });
  gone.addEventListener('abort', b);
  gone.addEventListener('abort', c);
  gone.removeEventListener('abort', b);
  t.equal(gone.aborted, false);
  t.same(calls, []);
  gone.abort();
  t.equal(gone.aborted, true);
  t.same(calls, ['a', 'c'], 'the removed listener is not called');
  gone.abort();
  t.same(calls, ['a', 'c'], 'a second abort calls nobody');
  gone.addEventListener('abort', () => calls.push('late'));
  gone.removeEventListener('abort', a); // after the abort: no-op
  t.same(calls, ['a', 'c'], 'a listener added after the abort is not called (callers check aborted)');
});

t.test('a request that ends normally: removing listeners leaves nothing to call', async (t) => {
  const gone = new ClientGone();
  let called = 0;
  const f = () => called++;
  gone.removeEventListener('abort', f); // none added yet: no-op
  gone.addEventListener('abort', f);
  gone.removeEventListener('abort', f);
  gone.abort();
  t.equal(called, 0);
});
