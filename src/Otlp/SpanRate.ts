/**
 * Spans per second per scope (SVC_OTLP_RATE_LIMIT, DECISIONS §18): a token bucket per scope holding
 * one second of spans. A batch is taken whole while the bucket has any tokens (it may go into
 * debt, so a batch larger than a second's worth is not refused forever); an empty bucket refuses
 * with the seconds until the debt is paid. Per process: replicas each allow the rate. Buckets idle
 * for a minute are dropped, so memory follows the scopes that send.
 */
const IDLE_MS = 60_000
const MAX_BUCKETS = 100_000

interface Bucket {
  tokens: number
  at: number
}

export class SpanRateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private sweptAt = 0
  constructor(readonly rate: number) {}

  /** Takes `count` spans for `scope` at `now` (ms): 0 when taken, else the seconds to wait. */
  take(scope: string, count: number, now: number): number {
    this.sweep(now)
    const bucket = this.buckets.get(scope) ?? { tokens: this.rate, at: now }
    bucket.tokens = Math.min(this.rate, bucket.tokens + ((now - bucket.at) / 1000) * this.rate)
    bucket.at = now
    this.buckets.delete(scope)
    this.buckets.set(scope, bucket)
    if (bucket.tokens <= 0) return Math.max(1, Math.ceil(-bucket.tokens / this.rate))
    bucket.tokens -= count
    return 0
  }

  /** Gives back spans taken for a batch that was refused after all (store unavailable, pending bytes). */
  giveBack(scope: string, count: number): void {
    const bucket = this.buckets.get(scope)
    if (bucket !== undefined) bucket.tokens = Math.min(this.rate, bucket.tokens + count)
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < IDLE_MS && this.buckets.size < MAX_BUCKETS) return
    this.sweptAt = now
    // oldest use first (a taken bucket is re-inserted): stop at the first one still in use
    for (const [scope, bucket] of this.buckets) {
      if (now - bucket.at < IDLE_MS && this.buckets.size < MAX_BUCKETS) break
      this.buckets.delete(scope)
    }
  }
}
