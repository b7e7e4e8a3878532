/**
 * The API-key list rule (DECISIONS §5): `name=key,name2=key2`, names of `[A-Za-z0-9_.-]`, keys
 * long enough and never shared by two entries. SVC_API_KEYS and the key file (Auth/ApiKeys.ts)
 * are held to the same rule.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"

export interface ApiKeyEntry {
  readonly name: string
  readonly key: Redacted.Redacted<string>
}

export const MIN_KEY_LENGTH = 16

/** `name=key,name2=key2`; names `[A-Za-z0-9_.-]`, keys at least 16 characters. */
export const parseKeyList = (
  entries: ReadonlyArray<string>,
  source: string
): Either.Either<Array<ApiKeyEntry>, string> => {
  const out: Array<ApiKeyEntry> = []
  const keys = new Set<string>()
  for (const [index, entry] of entries.entries()) {
    const at = entry.indexOf("=")
    const where = `${source} entry ${index + 1}`
    if (at <= 0) return Either.left(`${where} must be <key_name>=<API_KEY>`)
    const name = entry.slice(0, at).trim()
    const key = entry.slice(at + 1).trim()
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return Either.left(`${where}: key names are 1-64 characters of [A-Za-z0-9_.-]`)
    if (key.length < MIN_KEY_LENGTH) return Either.left(`${where}: keys must be at least ${MIN_KEY_LENGTH} characters`)
    if (keys.has(key)) return Either.left(`${where}: duplicate key (two names share one key)`)
    keys.add(key)
    out.push({ name, key: Redacted.make(key) })
  }
  return Either.right(out)
}

/** A variable holding a key list (unset: no keys); a refusal never shows the value. */
export const keyList = (name: string): Config.Config<Array<ApiKeyEntry>> =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.mapOrFail((raw) => {
      const entries = raw.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
      return Either.mapLeft(parseKeyList(entries, name), (message) => ConfigError.InvalidData([name], `${message} (the value is not shown)`))
    })
  )
