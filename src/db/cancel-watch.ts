// Cancels a buffered request's batch when its client goes away (db/transaction.ts).
//
// Batches of several requests may be pipelined on one connection, and a cancel request hits
// whatever the backend runs when the signal arrives. Lease.hold() first stops new batches from
// joining. Batches ahead of ours end by themselves; once ours is the head (the one running), the
// cancel is sent. When batches follow ours, the signal may land on one of them if ours ends first:
// Lease.cancelWithOthers() marks the connection so that a follower failing with 57014 is run again
// on another connection (db/transaction.ts; its transaction was rolled back, so nothing is done
// twice), and the connection is discarded after its last batch. The lease is released only after
// the cancel request was processed (db/cancel.ts), so the signal can never reach a later batch of
// the connection, the next request's included.
import type { Lease } from './leases.js';
import { sendCancel } from './cancel.js';
import type { GoneSignal } from '../request/gone.js';

/** How often a disconnected request whose batch waits behind others checks whether it is running. */
const RETRY_MS = 5;

export interface CancelWatch {
  /** The batch has ended: stop watching; a promise that settles when the cancel request in flight has been processed, null when none is. */
  finish(): Promise<void> | null;
}

export function watchDisconnect(lease: Lease, signal: GoneSignal | undefined): CancelWatch | null {
  if (!signal) return null;
  let ended = false;
  let cancelling: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const attempt = () => {
    timer = null;
    if (ended || cancelling) return;
    if (lease.hold()) cancelling = sendCancel(lease.client);
    else if (lease.head()) {
      lease.cancelWithOthers();
      cancelling = sendCancel(lease.client);
    } else timer = setTimeout(attempt, RETRY_MS);
  };
  if (signal.aborted) attempt();
  else signal.addEventListener('abort', attempt, { once: true });
  return {
    finish() {
      ended = true;
      signal.removeEventListener('abort', attempt);
      if (timer) clearTimeout(timer);
      return cancelling;
    },
  };
}
