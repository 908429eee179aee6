// LISTEN for schema/config reload notifications (`NOTIFY dbrest, 'reload schema'`) on a dedicated
// connection. When the connection drops it reconnects with capped exponential backoff
// (100 ms, 200 ms, ... 5 s) and calls onConnected again, so the owner can rebuild the schema
// cache for whatever changed while it was away.
import pg from 'pg';

export interface NotificationListenerOptions {
  readonly uri: string;
  readonly channel: string;
  onNotify(payload: string): void;
  onError?(e: Error): void;
  /** After every successful LISTEN: the first one and each reconnection. */
  onConnected?(): void;
}

export interface NotificationListener {
  close(): Promise<void>;
}

const INITIAL_DELAY_MS = 100;
const MAX_DELAY_MS = 5000;

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export function listenForNotifications(opts: NotificationListenerOptions): NotificationListener {
  let closed = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = INITIAL_DELAY_MS;

  const report = (e: unknown): void => {
    if (!closed) opts.onError?.(e instanceof Error ? e : new Error(String(e)));
  };

  const scheduleReconnect = (): void => {
    if (closed || timer !== null) return;
    const wait = delay;
    delay = Math.min(delay * 2, MAX_DELAY_MS);
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, wait);
    timer.unref?.();
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ connectionString: opts.uri, keepAlive: true });
    client = c;
    let lost = false;
    const onLost = (e?: Error): void => {
      if (lost) return;
      lost = true;
      if (e) report(e);
      if (client === c) client = null;
      c.end().catch(() => undefined);
      scheduleReconnect();
    };
    c.on('error', (e) => onLost(e));
    c.on('end', () => onLost());
    c.on('notification', (msg) => {
      if (msg.channel === opts.channel) opts.onNotify(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${quoteIdent(opts.channel)}`);
    } catch (e) {
      onLost(e as Error);
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    delay = INITIAL_DELAY_MS;
    opts.onConnected?.();
  };

  void connect();

  return {
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      const c = client;
      client = null;
      if (c !== null) await c.end().catch(() => undefined);
    },
  };
}
