// Counts kept where things happen (the lease manager, the cancel request, the JWT cache, the row
// stream) as plain numbers, one increment each, and read by /metrics at scrape time: the hot path
// never calls prom-client. Per process: with server-workers, each worker's own.
export const opsCounters = {
  /** Batches that joined a connection other batches were running on (db/leases.ts). */
  sharedBatches: 0,
  /** Second runs of a stalled read on another connection (db/transaction.ts). */
  hedgesSent: 0,
  /** Second runs that answered before the first. */
  hedgesWon: 0,
  /** Cancel requests sent to PostgreSQL (a client gone, a stream abandoned: db/cancel.ts). */
  cancelRequests: 0,
  jwtCacheHits: 0,
  jwtCacheMisses: 0,
  /** Answers streamed from a cursor (http/stream.ts), and their body bytes. */
  streamedResponses: 0,
  streamedBytes: 0,
};
