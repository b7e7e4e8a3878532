/**
 * The alert settings (DECISIONS §19): where each scope's webhooks are, the secret their calls are
 * signed with, the severity that alerts, and the service's public address for links.
 * - SVC_ALERT_WEBHOOKS_FILE: lines `<scope>=<url>` (`#` comments, blank lines skipped), the scope
 *   being a key's name or the shared scope a role names (`alice=admin@billing` → `billing`);
 * - SVC_ALERT_WEBHOOKS: with auth off, the one scope's URLs, comma-separated;
 * - SVC_ALERT_SECRET: at least 32 characters, required when any webhook is set; two, comma-
 *   separated, while a secret is rotated (each call is signed with both).
 * The file is read once, when the configuration is (a change needs a restart). Each URL is read in
 * its canonical form (WHATWG's: `http://0xA9FEA9FE/` is `http://169.254.169.254/`), and refused
 * when it would call a link-local address (a cloud's metadata service, whose answers hold its
 * credentials), this service's own listener or SVC_PUBLIC_URL (an alert calling the service that
 * sent it). Other loopback and private addresses are allowed: local relays are common.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { readFileSync } from "node:fs"
import { BlockList, isIP } from "node:net"
import { networkInterfaces } from "node:os"
import { SEVERITIES, type SeverityName } from "../Registry/Severity.js"

export const MIN_ALERT_SECRET = 32

export interface AlertSettings {
  /** Webhook URLs per scope name (the key's name or the shared scope's); `""` is the auth-off scope. */
  readonly webhooks: ReadonlyMap<string, ReadonlyArray<string>>
  /** SVC_ALERT_SECRET: one, or two during a rotation. Secrets. */
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  /** SVC_ALERT_MIN_SEVERITY (default high). */
  readonly minSeverity: SeverityName
  /** SVC_PUBLIC_URL: the external address for links in alerts and digests; none: links are left out. */
  readonly publicUrl: Option.Option<string>
}

/** The scope name of the auth-off service's webhooks (SVC_ALERT_WEBHOOKS). */
export const OPEN_SCOPE = ""

/** An http(s) URL a webhook may be. */
export const isWebhookUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0
  } catch {
    return false
  }
}

/** Where this service is reached, which no webhook may call: its listener (SVC_HOST, SVC_PORT) and SVC_PUBLIC_URL. */
export interface OwnAddresses {
  readonly host: string
  /** 0: a port the system picks, known only once listening (no webhook is refused for it). */
  readonly port: number
  readonly publicUrl: Option.Option<string>
}

const blockList = (subnets: ReadonlyArray<readonly [string, number, "ipv4" | "ipv6"]>): BlockList => {
  const list = new BlockList()
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family)
  return list
}

/**
 * Link-local addresses, where the clouds' metadata services answer (169.254.169.254, fd00:ec2::254,
 * fe80::/10). An IPv4 rule also holds for its IPv4-mapped form (`[::ffff:a9fe:a9fe]`); the
 * IPv4-compatible and NAT64 forms are listed.
 */
const LINK_LOCAL = blockList([
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
  ["::a9fe:0", 112, "ipv6"],
  ["64:ff9b::a9fe:0", 112, "ipv6"],
  ["fd00:ec2::254", 128, "ipv6"]
])
/** Names of metadata services (names are not resolved here: a name of one's own pointing there is not seen). */
const METADATA_NAMES: ReadonlySet<string> = new Set(["metadata.google.internal"])

/** Addresses of this machine that any listener reaches (loopback, unspecified: connecting to 0.0.0.0 reaches the machine). */
const LOCAL = blockList([
  ["127.0.0.0", 8, "ipv4"],
  ["0.0.0.0", 32, "ipv4"],
  ["::1", 128, "ipv6"],
  ["::", 128, "ipv6"]
])

/** A URL's host as an address or a name: without IPv6 brackets or a trailing dot, lower case. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase()

const inList = (list: BlockList, host: string): boolean => {
  const family = isIP(host)
  return family !== 0 && list.check(host, family === 4 ? "ipv4" : "ipv6")
}

const isLocal = (host: string): boolean => host === "localhost" || host.endsWith(".localhost") || inList(LOCAL, host)

/** Whether a URL reaches this service's listener: its port, and its host or a local form of it. */
const reachesListener = (url: URL, own: OwnAddresses): boolean => {
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
  if (own.port === 0 || port !== own.port) return false
  const host = hostOf(url)
  let listening: string
  try {
    listening = hostOf(new URL(`http://${isIP(own.host) === 6 ? `[${own.host}]` : own.host}`))
  } catch {
    listening = own.host.toLowerCase()
  }
  if (host === listening) return true
  // a listener on a loopback or every address (0.0.0.0, ::) is reached by any local form; on every
  // address, by this machine's own addresses too
  if (isLocal(listening) && isLocal(host)) return true
  return (listening === "0.0.0.0" || listening === "::") &&
    Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.address.toLowerCase() === host) === true)
}

/**
 * A webhook URL read: its canonical form, which the deliveries use, or why it is refused (a
 * link-local address, this service's own listener or public URL). `isWebhookUrl` first.
 */
export const readWebhookUrl = (text: string, own: OwnAddresses): Either.Either<string, string> => {
  if (!isWebhookUrl(text)) return Either.left("the URL must be http:// or https://")
  const url = new URL(text)
  const host = hostOf(url)
  if (inList(LINK_LOCAL, host)) return Either.left(`${url.host} is a link-local address, where cloud metadata services answer with the machine's credentials`)
  if (METADATA_NAMES.has(host)) return Either.left(`${url.host} is a cloud metadata service, which answers with the machine's credentials`)
  if (reachesListener(url, own)) return Either.left(`${url.host} is this service's own listener (SVC_HOST=${own.host}, SVC_PORT=${own.port})`)
  const publicOrigin = Option.flatMap(own.publicUrl, (text) => Option.liftThrowable(() => new URL(text).origin)())
  if (Option.isSome(publicOrigin) && publicOrigin.value === url.origin) return Either.left(`${url.origin} is this service's own address (SVC_PUBLIC_URL)`)
  return Either.right(url.href)
}

/** A URL as logs and the deliveries list show it: scheme, host and port, never the path (it often holds a token). */
export const shownUrl = (text: string): string => {
  try {
    const url = new URL(text)
    return url.pathname === "/" && url.search === "" ? url.origin : `${url.origin}/…`
  } catch {
    return "(invalid URL)"
  }
}

/** The file's lines as webhooks per scope, each URL read by `readWebhookUrl`. */
export const parseWebhooksFile = (text: string, path: string, own: OwnAddresses): Either.Either<Map<string, Array<string>>, string> => {
  const byScope = new Map<string, Array<string>>()
  const lines = text.split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim()
    if (line.length === 0 || line.startsWith("#")) continue
    const at = line.indexOf("=")
    const where = `SVC_ALERT_WEBHOOKS_FILE (${path}) line ${index + 1}`
    if (at <= 0) return Either.left(`${where} must be <scope>=<url>`)
    const scope = line.slice(0, at).trim()
    const url = line.slice(at + 1).trim()
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(scope)) return Either.left(`${where}: scopes are 1-64 characters of [A-Za-z0-9_.-]`)
    const read = readWebhookUrl(url, own)
    if (Either.isLeft(read)) return Either.left(`${where}: ${read.left}`)
    byScope.set(scope, [...(byScope.get(scope) ?? []), read.right])
  }
  return Either.right(byScope)
}

export interface RawAlertSettings {
  readonly webhooksFile: Option.Option<string>
  readonly webhooks: ReadonlyArray<string>
  readonly secret: Option.Option<Redacted.Redacted<string>>
  readonly minSeverity: Option.Option<string>
  readonly publicUrl: Option.Option<string>
  /** SVC_HOST and SVC_PORT, which no webhook may call. */
  readonly listener: { readonly host: string; readonly port: number }
}

/** The settings checked together (and the file read): a message naming the variable when refused. */
export const readAlertSettings = (raw: RawAlertSettings): Either.Either<AlertSettings, { readonly name: string; readonly message: string }> =>
  Either.gen(function*() {
    const webhooks = new Map<string, ReadonlyArray<string>>()
    const own: OwnAddresses = { ...raw.listener, publicUrl: raw.publicUrl }
    if (Option.isSome(raw.webhooksFile)) {
      const path = raw.webhooksFile.value
      let text: string
      try {
        text = readFileSync(path, "utf8")
      } catch (error) {
        return yield* Either.left({
          name: "SVC_ALERT_WEBHOOKS_FILE",
          message: `SVC_ALERT_WEBHOOKS_FILE (${path}) cannot be read: ${error instanceof Error && "code" in error ? String(error.code) : "error"}`
        })
      }
      const parsed = yield* Either.mapLeft(parseWebhooksFile(text, path, own), (message) => ({ name: "SVC_ALERT_WEBHOOKS_FILE", message }))
      for (const [scope, urls] of parsed) webhooks.set(scope, urls)
    }
    const listed: Array<string> = []
    for (const [index, url] of raw.webhooks.entries()) {
      const read = readWebhookUrl(url, own)
      if (Either.isLeft(read)) return yield* Either.left({ name: "SVC_ALERT_WEBHOOKS", message: `SVC_ALERT_WEBHOOKS entry ${index + 1}: ${read.left}` })
      listed.push(read.right)
    }
    if (listed.length > 0) webhooks.set(OPEN_SCOPE, [...(webhooks.get(OPEN_SCOPE) ?? []), ...listed])
    const secrets = Option.match(raw.secret, {
      onNone: () => [],
      onSome: (secret) => Redacted.value(secret).split(",").map((part) => part.trim()).filter((part) => part.length > 0)
    })
    if (secrets.some((secret) => secret.length < MIN_ALERT_SECRET) || secrets.length > 2) {
      return yield* Either.left({ name: "SVC_ALERT_SECRET", message: `SVC_ALERT_SECRET must be one secret of at least ${MIN_ALERT_SECRET} characters, or two separated by a comma while rotating` })
    }
    if (webhooks.size > 0 && secrets.length === 0) {
      return yield* Either.left({ name: "SVC_ALERT_SECRET", message: `SVC_ALERT_SECRET is required when webhooks are set (at least ${MIN_ALERT_SECRET} characters): receivers check each call's signature` })
    }
    const minSeverity = Option.match(raw.minSeverity, {
      onNone: (): SeverityName | undefined => "high",
      onSome: (text) => SEVERITIES.find((entry) => entry.name === text.trim().toLowerCase())?.name
    })
    if (minSeverity === undefined || minSeverity === "none") {
      return yield* Either.left({ name: "SVC_ALERT_MIN_SEVERITY", message: "SVC_ALERT_MIN_SEVERITY must be low, medium, high or critical" })
    }
    return { webhooks, secrets: secrets.map((secret) => Redacted.make(secret)), minSeverity, publicUrl: raw.publicUrl }
  })
