/**
 * The alert settings (DECISIONS §19): where each scope's webhooks are, the secret their calls are
 * signed with, the severity that alerts, and the service's public address for links.
 * - SVC_ALERT_WEBHOOKS_FILE: lines `<scope>=<url>` (`#` comments, blank lines skipped), the scope
 *   being a key's name or the shared scope a role names (`alice=admin@billing` → `billing`);
 * - SVC_ALERT_WEBHOOKS: with auth off, the one scope's URLs, comma-separated;
 * - SVC_ALERT_SECRET: at least 32 characters, required when any webhook is set; two, comma-
 *   separated, while a secret is rotated (each call is signed with both).
 * The file is read once, when the configuration is (a change needs a restart).
 */
import { Either, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
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

/** A URL as logs and the deliveries list show it: scheme, host and port, never the path (it often holds a token). */
export const shownUrl = (text: string): string => {
  try {
    const url = new URL(text)
    return url.pathname === "/" && url.search === "" ? url.origin : `${url.origin}/…`
  } catch {
    return "(invalid URL)"
  }
}

/** The file's lines as webhooks per scope. */
export const parseWebhooksFile = (text: string, path: string): Either.Either<Map<string, Array<string>>, string> => {
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
    if (!isWebhookUrl(url)) return Either.left(`${where}: the URL must be http:// or https://`)
    byScope.set(scope, [...(byScope.get(scope) ?? []), url])
  }
  return Either.right(byScope)
}

export interface RawAlertSettings {
  readonly webhooksFile: Option.Option<string>
  readonly webhooks: ReadonlyArray<string>
  readonly secret: Option.Option<Redacted.Redacted<string>>
  readonly minSeverity: Option.Option<string>
  readonly publicUrl: Option.Option<string>
}

/** The settings checked together (and the file read): a message naming the variable when refused. */
export const readAlertSettings = (raw: RawAlertSettings): Either.Either<AlertSettings, { readonly name: string; readonly message: string }> =>
  Either.gen(function*() {
    const webhooks = new Map<string, ReadonlyArray<string>>()
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
      const parsed = yield* Either.mapLeft(parseWebhooksFile(text, path), (message) => ({ name: "SVC_ALERT_WEBHOOKS_FILE", message }))
      for (const [scope, urls] of parsed) webhooks.set(scope, urls)
    }
    if (raw.webhooks.length > 0) webhooks.set(OPEN_SCOPE, [...(webhooks.get(OPEN_SCOPE) ?? []), ...raw.webhooks])
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
