/**
 * A bounded map in least-recently-used order: reading or writing a key makes it the newest; past
 * the capacity the oldest entry is dropped and handed to `onEvict`. The one LRU of the service
 * (rate-limit buckets, cached detections, known request bodies).
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(
    readonly capacity: number,
    private readonly onEvict: (key: K, value: V) => void = () => undefined
  ) {}

  get size(): number {
    return this.entries.size
  }

  /** The value of a key, made the newest; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value === undefined) return undefined
    this.entries.delete(key)
    this.entries.set(key, value)
    return value
  }

  /** Stores a value as the newest, evicting the oldest entries past the capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.entries().next()
      if (oldest.done) break
      this.entries.delete(oldest.value[0])
      this.onEvict(oldest.value[0], oldest.value[1])
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key)
  }
}
