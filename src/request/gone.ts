// "The client went away", as the request carries it: the subset of AbortSignal the handlers use
// (aborted, addEventListener/removeEventListener of 'abort'). A real AbortSignal fits it; the
// server makes a ClientGone per request instead, because an AbortController and its EventTarget
// cost several microseconds and allocations on every request while almost none is ever aborted.

export interface GoneSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class ClientGone implements GoneSignal {
  aborted = false;
  // One listener is the usual case (the batch's cancel watch or the stream's); more are kept in an array.
  private listeners: Array<() => void> | null = null;

  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.aborted) return; // as EventTarget: an event already dispatched is not replayed
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const l = this.listeners;
    if (l === null) return;
    const i = l.indexOf(listener);
    if (i >= 0) l.splice(i, 1);
  }

  /** Marks the client gone and calls each listener once (every listener is a `once` one). */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const l = this.listeners;
    this.listeners = null;
    if (l) for (const f of l) f();
  }
}
