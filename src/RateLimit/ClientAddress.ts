/**
 * The client address for rate limiting (DECISIONS §5): with N trusted proxy hops, the entry of
 * X-Forwarded-For that the outermost trusted proxy added (the Nth from the right); with 0 hops,
 * or without the header, the socket address. A client cannot choose its own bucket: entries to the
 * left of the trusted ones are whatever the client sent and are ignored.
 */
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/

const normalise = (entry: string): string | undefined => {
  let value = entry.trim()
  // "[2001:db8::1]:443" or "203.0.113.7:5000" → the address alone
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value)
  if (bracketed?.[1] !== undefined) value = bracketed[1]
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"))
  if (value.startsWith("::ffff:") && value.includes(".")) value = value.slice("::ffff:".length)
  return ADDRESS.test(value) ? value.toLowerCase() : undefined
}

export const clientAddress = (forwardedFor: string | undefined, socketAddress: string | undefined, trustedHops: number): string => {
  const socket = socketAddress === undefined ? undefined : normalise(socketAddress)
  if (trustedHops > 0 && forwardedFor !== undefined) {
    const entries = forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
    if (entries.length > 0) {
      const picked = normalise(entries[Math.max(0, entries.length - trustedHops)] ?? "")
      if (picked !== undefined) return picked
    }
  }
  return socket ?? "unknown"
}
