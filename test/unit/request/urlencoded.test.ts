// parseUrlEncoded reads query strings and form bodies as URLSearchParams does, except that an
// escape decoding to bytes that are not UTF-8 is an error instead of U+FFFD.
import t from 'tap';

import { parseUrlEncoded } from '../../../src/request/urlencoded.js';

t.test('as URLSearchParams: + is a space, escapes decode, malformed escapes stay, empty items skipped', async (t) => {
  t.same(parseUrlEncoded('a=1&b=x+y&&c&d=%41%42&e=%ZZ&f=%2&g=%C3%A9%E2%82%AC&=v&h=a=b'), [
    ['a', '1'], ['b', 'x y'], ['c', ''], ['d', 'AB'], ['e', '%ZZ'], ['f', '%2'], ['g', 'é€'], ['', 'v'], ['h', 'a=b'],
  ]);
  t.same(parseUrlEncoded(''), []);
  t.same(parseUrlEncoded('%2B=%26%3D%25'), [['+', '&=%']]);
});

t.test('escapes of bytes that are not UTF-8: null', async (t) => {
  for (const s of ['a=%FF', '%C3%28=1', 'a=ok&b=%E2%82', 'x=%ED%A0%80', 'x=%C0%AF', 'x=%F4%90%80%80']) t.equal(parseUrlEncoded(s), null, s);
});

t.test('the same pairs as URLSearchParams for 20,000 generated ASCII strings; null exactly when it reads U+FFFD', async (t) => {
  let seed = 0x5eed;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const atoms = ['a', '=', '&', '+', '%', '%2', '%41', '%C3%A9', '%E2%82%AC', '%ZZ', '%FF', '%C3', '%28', ' ', '%25', '%2B', '%26', '%3D', '.', '(', '%e2%82', '%ac', '%00'];
  let mismatches = 0;
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    for (let n = Math.floor(rand() * 10); n > 0; n--) s += atoms[Math.floor(rand() * atoms.length)];
    const ref = [...new URLSearchParams(s)];
    const mine = parseUrlEncoded(s);
    const refInvalid = ref.some(([k, v]) => (k + v).includes('\ufffd'));
    if (mine === null ? !refInvalid : JSON.stringify(mine) !== JSON.stringify(ref)) mismatches++;
  }
  t.equal(mismatches, 0);
});
