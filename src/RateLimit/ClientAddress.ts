/**
 * The client address for rate limiting (DECISIONS §5): when the socket peer is a trusted proxy
 * (SVC_TRUSTED_PROXY_ADDRESSES) and there are N trusted proxy hops, the entry of X-Forwarded-For
 * that the outermost trusted proxy added (the Nth from the right); otherwise (a peer that is no
 * proxy, 0 hops, or no header) the socket address. A client cannot choose its own bucket: the
 * header of a peer that is not a proxy is ignored, and entries to the left of the trusted ones are
 * whatever the client sent.
 */
import type { AddressSet } from "./AddressRanges.js"

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

export const clientAddress = (
  forwardedFor: string | undefined,
  socketAddress: string | undefined,
  trustedHops: number,
  trustedPeers: AddressSet
): string => {
  const socket = socketAddress === undefined ? undefined : normalise(socketAddress)
  if (trustedHops > 0 && forwardedFor !== undefined && trustedPeers.has(socketAddress)) {
    const entries = forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
    if (entries.length > 0) {
      const picked = normalise(entries[Math.max(0, entries.length - trustedHops)] ?? "")
      if (picked !== undefined) return picked
    }
  }
  return socket ?? "unknown"
}
