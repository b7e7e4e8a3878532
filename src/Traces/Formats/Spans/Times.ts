/**
 * Span times (DECISIONS §12): each of the time shapes span exporters write as nanoseconds since
 * the epoch, back as ISO-8601, and compared with unknown times last.
 */

export const NANOS_PER_MS = 1_000_000n
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})?$/i

const scaled = (value: bigint, digits: number): bigint =>
  digits >= 18 ? value : digits >= 15 ? value * 1_000n : digits >= 12 ? value * NANOS_PER_MS : value * 1_000_000_000n

/**
 * A time as nanoseconds since the epoch: OTLP `*UnixNano` strings, epoch numbers (seconds,
 * milliseconds, microseconds or nanoseconds, told apart by magnitude), ISO-8601 strings, or OTel
 * hrtime `[seconds, nanos]`. Undefined for anything else and for zero (an unset time).
 */
export const nanosOf = (value: unknown, unit?: "ns"): bigint | undefined => {
  let nanos: bigint | undefined
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined
    const magnitude = Math.abs(value)
    const factor = unit === "ns" || magnitude >= 1e17 ? 1 : magnitude >= 1e14 ? 1e3 : magnitude >= 1e11 ? 1e6 : 1e9
    const whole = Math.trunc(value)
    nanos = BigInt(whole) * BigInt(factor) + BigInt(Math.round((value - whole) * factor))
  } else if (typeof value === "string") {
    const text = value.trim()
    if (/^\d+$/.test(text)) {
      nanos = unit === "ns" ? BigInt(text) : scaled(BigInt(text), text.replace(/^0+/, "").length)
    } else if (/^\d+\.\d+$/.test(text)) {
      return nanosOf(Number(text))
    } else {
      const match = ISO.exec(text)
      if (match === null) {
        const ms = Date.parse(text)
        nanos = Number.isFinite(ms) ? BigInt(ms) * NANOS_PER_MS : undefined
      } else {
        const [, date, time, fraction, zone] = match
        const ms = Date.parse(`${date}T${time}${zone === undefined ? "Z" : zone.toUpperCase()}`)
        if (!Number.isFinite(ms)) return undefined
        nanos = BigInt(ms) * NANOS_PER_MS + BigInt((fraction ?? "").slice(0, 9).padEnd(9, "0"))
      }
    }
  } else if (Array.isArray(value) && value.length === 2) {
    const [seconds, fraction] = value
    if (typeof seconds === "number" && typeof fraction === "number" && Number.isFinite(seconds) && Number.isFinite(fraction)) {
      nanos = BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(fraction))
    }
  }
  return nanos === undefined || nanos === 0n ? undefined : nanos
}

/** Nanoseconds since the epoch as ISO-8601 (millisecond precision); undefined when out of range. */
let lastNanos: bigint | undefined
let lastIso: string | undefined
export const isoOf = (nanos: bigint | undefined): string | undefined => {
  if (nanos === undefined) return undefined
  // Every message of a span carries the span's time: the last answer is usually the next one.
  if (nanos === lastNanos) return lastIso
  lastNanos = nanos
  lastIso = isoOfNanos(nanos)
  return lastIso
}
// Spans of one trace fall in few seconds, and a batch's traces in few minutes: the ISO text up to
// the minute is reused (a minute's prefix is cut where `toISOString` puts the seconds).
const minutePrefixes = new Map<number, string>()
const isoOfNanos = (nanos: bigint): string | undefined => {
  const ms = Number(nanos / NANOS_PER_MS)
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined
  if (ms < 0) return new Date(ms).toISOString()
  const minute = Math.floor(ms / 60000)
  let prefix = minutePrefixes.get(minute)
  if (prefix === undefined) {
    if (minutePrefixes.size >= 1024) minutePrefixes.clear()
    prefix = new Date(minute * 60000).toISOString().slice(0, -7)
    minutePrefixes.set(minute, prefix)
  }
  const withinMinute = ms - minute * 60000
  const seconds = Math.floor(withinMinute / 1000)
  return `${prefix}${seconds < 10 ? "0" : ""}${seconds}.${String(withinMinute - seconds * 1000).padStart(3, "0")}Z`
}

/** Orders times, unknown ones last. */
export const compareTimes = (a: bigint | undefined, b: bigint | undefined): number => {
  if (a === b) return 0
  if (a === undefined) return 1
  if (b === undefined) return -1
  return a < b ? -1 : 1
}
