/**
 * What makes an entry of a list setting valid, where the setting is read (src/Config.ts): an
 * address or CIDR range (SVC_TRUSTED_PROXY_ADDRESSES; RateLimit/AddressRanges.ts builds the set)
 * and a CORS origin (SVC_CORS_ORIGINS; Edge/Cors.ts answers browsers).
 */
import { SocketAddress } from "node:net"

/**
 * The family an address would be, if it is one: IPv6 when it has a colon (an IPv4 address never
 * does), for node's parsers (SocketAddress, BlockList), which are told the family.
 */
export const addressFamily = (address: string): "ipv4" | "ipv6" => (address.includes(":") ? "ipv6" : "ipv4")

/**
 * 4 or 6 for an IPv4 or IPv6 address, 0 for anything else: parsed by the system (a SocketAddress),
 * not by node's `isIP`, whose IPv6 regular expression V8 compiles on its first use in about 4 ms,
 * which start-up paid for the default SVC_TRUSTED_PROXY_ADDRESSES (issue 52).
 */
export const ipFamily = (address: string): 0 | 4 | 6 => {
  const family = addressFamily(address)
  try {
    new SocketAddress({ address, family })
    return family === "ipv6" ? 6 : 4
  } catch {
    return 0
  }
}

/** `a.b.c.d`, an IPv6 address, or either with a `/prefix` in its family's range. */
export const isAddressRange = (entry: string): boolean => {
  const slash = entry.indexOf("/")
  const address = slash < 0 ? entry : entry.slice(0, slash)
  const family = ipFamily(address)
  if (family === 0) return false
  if (slash < 0) return true
  const prefix = entry.slice(slash + 1)
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

/** Checks one SVC_CORS_ORIGINS entry: `*`, or an origin (`scheme://host[:port]`, no path). */
export const corsOriginValid = (entry: string): boolean => {
  if (entry === "*") return true
  try {
    const url = new URL(entry)
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === entry
  } catch {
    return false
  }
}
