// A bounded cache of verified tokens (`jwt-cache-max-lifetime`, `jwt-cache-max-entries`): each entry
// carries its own expiry; the least recently used entry goes first when the cache is full. Only
// successful verifications are stored, so an entry never outlives the token's `exp`.

interface Entry<V> {
  readonly value: V;
  /** Epoch milliseconds after which the entry is gone. */
  readonly expiresAt: number;
}

export class ExpiringLruCache<V> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (now >= entry.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number, now: number): void {
    if (this.maxEntries <= 0 || expiresAt <= now) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.evict();
    this.entries.set(key, { value, expiresAt });
  }

  clear(): void {
    this.entries.clear();
  }

  /** Drop the least recently used entry (expired ones go lazily, on lookup). */
  private evict(): void {
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }
}
