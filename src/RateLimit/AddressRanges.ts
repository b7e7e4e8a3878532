/**
 * Sets of IP addresses given as addresses or CIDR ranges (`10.0.0.0/8`, `::1`, `fc00::/7`), on
 * node's own `BlockList` (no address arithmetic of ours). Used for the proxies whose
 * X-Forwarded-For is honoured (SVC_TRUSTED_PROXY_ADDRESSES, DECISIONS §5).
 */
import { BlockList, isIP } from "node:net"

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as dual-stack sockets report peers) as itself. */
const unmapped = (address: string): string => {
  const lower = address.toLowerCase()
  return lower.startsWith("::ffff:") && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower
}

export interface AddressSet {
  /** True when `address` (a socket's remote address) is in the set. */
  readonly has: (address: string | undefined) => boolean
  readonly empty: boolean
}

/** The set of the given entries (each valid by `isAddressRange`, src/Config/Entries.ts). */
export const addressSet = (entries: ReadonlyArray<string>): AddressSet => {
  const list = new BlockList()
  for (const entry of entries) {
    const slash = entry.indexOf("/")
    const address = slash < 0 ? entry : entry.slice(0, slash)
    const family = isIP(address) === 6 ? "ipv6" : "ipv4"
    if (slash < 0) list.addAddress(address, family)
    else list.addSubnet(address, Number(entry.slice(slash + 1)), family)
  }
  return {
    empty: entries.length === 0,
    has: (address) => {
      if (address === undefined || entries.length === 0) return false
      const plain = unmapped(address)
      const family = isIP(plain)
      return family !== 0 && list.check(plain, family === 6 ? "ipv6" : "ipv4")
    }
  }
}
