/**
 * Sets of IP addresses given as addresses or CIDR ranges (`10.0.0.0/8`, `::1`, `fc00::/7`), on
 * node's own `BlockList` (no address arithmetic of ours). Used for the proxies whose
 * X-Forwarded-For is honoured (SVC_TRUSTED_PROXY_ADDRESSES, DECISIONS §5).
 */
import { BlockList } from "node:net"
import { addressFamily } from "../Config/Entries.js"

/**
 * An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as dual-stack sockets report peers) as
 * itself; `has` refuses what is not an address.
 */
const unmapped = (address: string): string => {
  const lower = address.toLowerCase()
  return lower.startsWith("::ffff:") && lower.includes(".", 7) ? lower.slice(7) : lower
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
    const family = addressFamily(address)
    if (slash < 0) list.addAddress(address, family)
    else list.addSubnet(address, Number(entry.slice(slash + 1)), family)
  }
  return {
    empty: entries.length === 0,
    has: (address) => {
      if (address === undefined || entries.length === 0) return false
      const plain = unmapped(address)
      // The BlockList parses the address (node's SocketAddress, the system's parser) and throws
      // for what is not one: no regular expression per request, none compiled at start-up.
      try {
        return list.check(plain, addressFamily(plain))
      } catch {
        return false
      }
    }
  }
}
