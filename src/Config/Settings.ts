/**
 * Readers for one environment variable each, built on Effect's `Config`: each reads the text,
 * trims it, parses it, and refuses a malformed value with `NAME must be <accepted form> (got "…")`.
 *
 * Effect's value readers accept other forms than the ones documented here, so they are not used
 * for the value itself: `Config.integer` takes `1e5`, `0x10` and an empty value, `Config.port`
 * refuses port 0 (an ephemeral port) and `080`, `Config.boolean` and `Config.literal` are
 * case-sensitive and have no aliases (`warn`, `none`), `Config.duration` wants `10 seconds`
 * where we take `10`, `10s` or `1500ms`; none of them trims, and their messages do not name the
 * variable. Defaults are the caller's (`Config.withDefault`), as are absent-means-none settings
 * (`Config.option`).
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

const shown = (raw: string) => (raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)

/** The one refusal every reader gives: the variable, the accepted form, the value (cut at 60 characters). */
export const invalid = (name: string, accepted: string, raw: string) =>
  ConfigError.InvalidData([name], `${name} must be ${accepted} (got "${shown(raw)}")`)

/** A variable read by `parse` from its trimmed text; none: refused. */
export const setting = <A>(name: string, accepted: string, parse: (text: string) => Option.Option<A>): Config.Config<A> =>
  Config.string(name).pipe(Config.mapOrFail((raw) => Either.fromOption(parse(raw.trim()), () => invalid(name, accepted, raw))))

/** A variable read by `parse` from its trimmed text; unset or blank: none; malformed: refused. */
export const optionalSetting = <A>(name: string, accepted: string, parse: (text: string) => Option.Option<A>): Config.Config<Option.Option<A>> =>
  Config.option(Config.string(name)).pipe(
    Config.mapOrFail((raw) =>
      Option.isNone(raw) || raw.value.trim() === ""
        ? Either.right(Option.none())
        : Either.map(Either.fromOption(parse(raw.value.trim()), () => invalid(name, accepted, raw.value)), Option.some)
    )
  )

/** Decimal digits only (no sign, exponent or `0x`), within `min`-`max`. */
export const integer = (name: string, accepted: string, range: { readonly min: number; readonly max: number }): Config.Config<number> =>
  setting(name, accepted, (text) => {
    if (!/^\d+$/.test(text)) return Option.none()
    const value = Number(text)
    return Number.isSafeInteger(value) && value >= range.min && value <= range.max ? Option.some(value) : Option.none()
  })

const TRUE = ["true", "1", "yes", "on"]
const FALSE = ["false", "0", "no", "off", ""]

/** true/1/yes/on or false/0/no/off, case ignored; an empty value is false. */
export const flag = (name: string): Config.Config<boolean> =>
  setting(name, "true or false", (text) => {
    const lower = text.toLowerCase()
    return TRUE.includes(lower) ? Option.some(true) : FALSE.includes(lower) ? Option.some(false) : Option.none()
  })

/** One of `literals`, case ignored, or an alias of one (`warn` for `warning`). */
export const choice = <const L extends string>(
  name: string,
  accepted: string,
  literals: ReadonlyArray<L>,
  aliases: Readonly<Record<string, L>> = {}
): Config.Config<L> =>
  setting(name, accepted, (text) => {
    const lower = text.toLowerCase()
    return Option.fromNullable(literals.find((literal) => literal === lower) ?? (Object.hasOwn(aliases, lower) ? aliases[lower] : undefined))
  })

/** Seconds as a number, or with a unit: `120`, `120s`, `1500ms`, `2m`. */
export const parseDuration = (raw: string): Duration.Duration | undefined => {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(raw)
  if (match === null) return undefined
  const value = Number(match[1])
  if (!Number.isFinite(value) || value <= 0) return undefined
  const unit = match[2] ?? "s"
  return Duration.millis(unit === "ms" ? value : unit === "m" ? value * 60_000 : value * 1000)
}

const isZero = (text: string) => /^0+(\.0+)?\s*(ms|s|m)?$/.test(text)

/**
 * Every duration setting: positive (`examples` shown in the refusal), or, with `orZero`, zero or
 * more (a delay that may be skipped).
 */
export const duration = (
  name: string,
  options: { readonly examples?: string; readonly orZero?: boolean } = {}
): Config.Config<Duration.Duration> =>
  options.orZero === true
    ? setting(name, "a duration in seconds >= 0", (text) => (isZero(text) ? Option.some(Duration.zero) : Option.fromNullable(parseDuration(text))))
    : setting(
      name,
      `a positive duration in seconds${options.examples === undefined ? "" : ` (${options.examples})`}`,
      (text) => Option.fromNullable(parseDuration(text))
    )

/**
 * Entries separated by commas, each trimmed and `normalize`d, empty ones dropped; every entry must
 * be `valid`. `noneWord` (case ignored) means no entries.
 */
export const list = (
  name: string,
  accepted: string,
  entry: { readonly valid: (entry: string) => boolean; readonly normalize?: (entry: string) => string; readonly noneWord?: string }
): Config.Config<ReadonlyArray<string>> =>
  setting(name, accepted, (text) => {
    if (entry.noneWord !== undefined && text.toLowerCase() === entry.noneWord) return Option.some([])
    const normalize = entry.normalize ?? ((value: string) => value)
    const entries = text.split(",").map((value) => normalize(value.trim())).filter((value) => value.length > 0)
    return entries.every(entry.valid) ? Option.some(entries) : Option.none()
  })

/** Free text; unset or blank: none. */
export const optionalText = (name: string): Config.Config<Option.Option<string>> =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((text) => text.trim().length > 0)))

/** A secret; unset or blank: none. */
export const optionalSecret = (name: string): Config.Config<Option.Option<Redacted.Redacted<string>>> =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((secret) => Redacted.value(secret).trim().length > 0)))

/**
 * A secret that must be `valid` when set (trimmed); unset or blank: none. A malformed one is
 * refused without showing it: it may hold a password.
 */
export const optionalCheckedSecret = (
  name: string,
  accepted: string,
  valid: (text: string) => boolean
): Config.Config<Option.Option<Redacted.Redacted<string>>> =>
  Config.option(
    Config.redacted(name).pipe(
      Config.mapOrFail((secret) => {
        const text = Redacted.value(secret).trim()
        return text.length === 0 || valid(text)
          ? Either.right(Redacted.make(text))
          : Either.left(ConfigError.InvalidData([name], `${name} must be ${accepted} (the value is not shown)`))
      })
    )
  ).pipe(Config.map(Option.filter((secret) => Redacted.value(secret).length > 0)))

/** An http(s) base URL, `http://` when no scheme is given, without trailing slashes; unset: none. */
export const optionalHttpUrl = (name: string): Config.Config<Option.Option<string>> =>
  Config.option(
    setting(name, "an http(s) URL", (text) => {
      if (text === "") return Option.none()
      const withScheme = /^[a-z]+:\/\//i.test(text) ? text : `http://${text}`
      try {
        const url = new URL(withScheme)
        return url.protocol === "http:" || url.protocol === "https:" ? Option.some(withScheme.replace(/\/+$/, "")) : Option.none()
      } catch {
        return Option.none()
      }
    })
  )

/** The first of two settings that is set (a variable and its alias). */
export const firstSet = <A>(
  preferred: Config.Config<Option.Option<A>>,
  alias: Config.Config<Option.Option<A>>
): Config.Config<Option.Option<A>> =>
  Config.all([preferred, alias]).pipe(Config.map(([first, second]) => Option.orElse(first, () => second)))
