// line-batch.ts over a real pipe (a FIFO, both ends non-blocking, as a server's stderr pipe is to a
// log shipper): a reader that stops does not grow the queue past its bound; the lines beyond it are
// dropped and counted, and once the reader takes the rest a notice says how many were lost. Every
// line written is either read or counted in the notice.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { lineBatch } from '../../../src/observe/line-batch.js';

function fifo(t: Test): { readFd: number; writeFd: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbrest-linebatch-'));
  const file = path.join(dir, 'pipe');
  execFileSync('mkfifo', [file]);
  const readFd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  t.teardown(() => {
    closeSync(writeFd);
    closeSync(readFd);
    rmSync(dir, { recursive: true, force: true });
  });
  return { readFd, writeFd };
}

/** What the pipe holds now, as bytes: a character split between two reads is decoded whole later. */
function readAll(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

/** Reads until nothing has come for a few of the batch's 100 ms ticks (they hand over what waits). */
async function readUntilQuiet(fd: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let idle = 0; idle < 4; ) {
    const got = readAll(fd);
    chunks.push(got);
    idle = got.length === 0 ? idle + 1 : 0;
    await new Promise((r) => setTimeout(r, 120));
  }
  return Buffer.concat(chunks);
}

const line = (i: number) => `{"n":${i},"pad":"${'x'.repeat(90)}"}\n`;

t.test('a reader that stops: the queue stays bounded, the rest is counted, and a notice follows', async (t) => {
  const { readFd, writeFd } = fifo(t);
  const max = 256 * 1024;
  const batch = lineBatch(writeFd, (n) => `{"dropped":${n}}\n`, max);
  await batch.ready;
  const total = 20_000; // ~2 MB: the pipe (64 KiB) and the bound (256 KiB) hold far less
  for (let i = 0; i < total; i++) batch.write(line(i));

  const lines = (await readUntilQuiet(readFd)).toString('utf8').split('\n').filter((l) => l !== '');
  const notices = lines.filter((l) => l.startsWith('{"dropped":'));
  t.equal(notices.length, 1, 'one notice of the dropped lines');
  const dropped = (JSON.parse(notices[0]!) as { dropped: number }).dropped;
  const kept = lines.filter((l) => l.startsWith('{"n":')).map((l) => (JSON.parse(l) as { n: number }).n);
  t.ok(dropped > 0, `lines were dropped (${dropped})`);
  t.ok(kept.length * line(0).length <= max + 65536 + 16 * 1024 + line(0).length, `at most the bound, the pipe and one batch were kept (${kept.length} lines)`);
  t.equal(kept.length + dropped, total, 'every line is either read or counted as dropped');
  t.same(kept, [...kept].sort((a, b) => a - b), 'the lines kept arrive in order');
  t.equal(lines.at(-1), notices[0], 'the notice comes after the lines that were kept');
});

t.test('a reader that keeps up loses nothing and gets no notice', async (t) => {
  const { readFd, writeFd } = fifo(t);
  // Room for all 5,000 lines (~550 KB): the writer thread may not run while this loop does.
  const batch = lineBatch(writeFd, (n) => `{"dropped":${n}}\n`, 4 * 1024 * 1024);
  await batch.ready;
  const read: Buffer[] = [];
  for (let i = 0; i < 5_000; i++) {
    batch.write(line(i));
    if (i % 100 === 0) read.push(readAll(readFd));
  }
  read.push(await readUntilQuiet(readFd));
  const lines = Buffer.concat(read).toString('utf8').split('\n').filter((l) => l !== '');
  t.equal(lines.length, 5_000);
  t.notOk(lines.some((l) => l.startsWith('{"dropped"')), 'no notice');
});

t.test('lines longer than a batch and lines past ASCII arrive whole and in order', async (t) => {
  const { readFd, writeFd } = fifo(t);
  const batch = lineBatch(writeFd, (n) => `{"dropped":${n}}\n`, 1024 * 1024);
  await batch.ready;
  const sent = [
    `{"n":0,"big":"${'y'.repeat(100_000)}"}\n`,
    `{"n":1,"name":"موارد ✓ ${'é'.repeat(30_000)}"}\n`,
    ...Array.from({ length: 300 }, (_, i) => line(i + 2)),
    `{"n":302,"big":"${'z'.repeat(70_000)}"}\n`,
  ];
  const read: Buffer[] = [];
  for (const l of sent) {
    batch.write(l);
    read.push(readAll(readFd));
  }
  read.push(await readUntilQuiet(readFd));
  t.equal(Buffer.concat(read).toString('utf8'), sent.join(''), 'byte for byte what was written, in order');
});

t.test('lines encoded in place and lines written as strings arrive whole and in order, round the ring and behind a queue', async (t) => {
  const { readFd, writeFd } = fifo(t);
  // A ring of 32 KiB and as much again for a queue: 3,000 lines of ~110 bytes go round it ten times.
  const batch = lineBatch(writeFd, (n) => `{"dropped":${n}}\n`, 64 * 1024);
  await batch.ready;
  const encode = (ring: Buffer, at: number, l: string) => at + ring.write(l, at, 'latin1');
  const giveUp = (ring: Buffer, at: number) => (ring.fill(0x41, at, at + 4), -1);
  const sent: string[] = [];
  const read: Buffer[] = [];
  let encoded = 0;
  let refused = 0;
  for (let i = 0; i < 3_000; i++) {
    const l = line(i);
    if (batch.writeEncoded(200, giveUp, l)) t.fail('an encoder that gives up writes nothing');
    if (i % 3 === 0) batch.write(l);
    else if (batch.writeEncoded(l.length, encode, l)) encoded++;
    else {
      refused++; // the ring's end, or a queue waiting behind a full ring
      batch.write(l);
    }
    sent.push(l);
    // Everything read out every 500 lines (well within the bound); between, the pipe every 50,
    // except for lines 1,500-1,999 (55 KB: the pipe takes them, or the ring and a queue behind it).
    if (i % 500 === 499) read.push(await readUntilQuiet(readFd));
    else if (i % 50 === 0 && (i < 1_500 || i >= 2_000)) read.push(readAll(readFd));
  }
  read.push(await readUntilQuiet(readFd));
  t.equal(Buffer.concat(read).toString('latin1'), sent.join(''), 'byte for byte what was written, in order');
  t.ok(encoded > 1_000, `${encoded} lines encoded in place`);
  t.ok(refused > 0, `${refused} refused and written as strings`);
});
