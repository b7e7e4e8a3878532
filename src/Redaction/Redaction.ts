/**
 * The redaction every surface's intake applies (DECISIONS §20), configured once: the classes
 * (SVC_REDACT), the operator's rules (SVC_REDACT_RULES) and the root key of the placeholders' hashes.
 *
 * The root key: SVC_REDACT_KEY when set (every replica given the same key writes the same
 * placeholders); else one generated once and kept where the replicas share state: in Redis when
 * SVC_REDIS_URL is set (the first replica to start writes it, SET NX), else in SVC_HOME/redact.key
 * (mode 0600). If neither can be read or written the process generates its own and says so:
 * placeholders are then stable for that process only. The key is never logged.
 * Each data scope (Auth/Scopes.ts) hashes with its own key, derived from the root key: the same
 * value reads as the same placeholder within a scope, and as unrelated ones across scopes.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { createHash, randomBytes } from "node:crypto"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type Caller, callerScope } from "../Auth/Caller.js"
import { AppConfig, InvalidConfiguration } from "../Config.js"
import { makePrivateDir, PRIVATE_FILE } from "../Config/Paths.js"
import type { InternalError } from "../Errors.js"
import { RedisStore } from "../Store/Redis.js"
import { parseRules } from "./CustomRules.js"
import { makeRedactor, type ScopedRedactor } from "./Redactor.js"
import { RULES } from "./Rules.js"

export interface RedactionShape {
  /**
   * The redactor of the caller's data scope; fails closed when auth is required and no key was
   * verified (the guards refuse such a request first).
   */
  readonly forCaller: Effect.Effect<ScopedRedactor, InternalError, Caller>
}

export class Redaction extends Context.Tag("Redaction")<Redaction, RedactionShape>() {}

const KEY_FILE = "redact.key"
const HEX_KEY = /^[0-9a-f]{64}$/

/** The key kept in SVC_HOME, written once (0600) when there is none. */
const homeKey = (home: string) =>
  Effect.tryPromise(async () => {
    const path = join(home, KEY_FILE)
    const existing = await readFile(path, "utf8").then((text) => text.trim(), () => undefined)
    if (existing !== undefined && HEX_KEY.test(existing)) return existing
    await makePrivateDir(home)
    const fresh = randomBytes(32).toString("hex")
    // `wx`: a second process starting at the same moment keeps the first one's key
    await writeFile(path, `${fresh}\n`, { flag: "wx", mode: PRIVATE_FILE }).catch(async () => undefined)
    const written = (await readFile(path, "utf8")).trim()
    if (!HEX_KEY.test(written)) throw new Error(`${path} does not hold a key`)
    return written
  })

/** The root key's bytes. */
const rootKey = Effect.gen(function*() {
  const config = yield* AppConfig
  const store = yield* RedisStore
  if (Option.isSome(config.redact.key)) return createHash("sha256").update(Redacted.value(config.redact.key.value)).digest()
  if (config.redact.classes.length === 0) return randomBytes(32)
  if (store.configured) {
    const key = store.key("redact-key")
    const shared = yield* store.setIfAbsent(key, randomBytes(32).toString("hex"), "redact_key").pipe(
      Effect.zipRight(store.get(key, "redact_key")),
      // Redis may still be connecting as the service starts
      Effect.retry(Schedule.spaced("250 millis").pipe(Schedule.compose(Schedule.recurs(6)))),
      Effect.option
    )
    if (Option.isSome(shared) && shared.value !== null && HEX_KEY.test(shared.value)) return Buffer.from(shared.value, "hex")
    yield* Effect.logWarning("the redaction key could not be read from Redis; SVC_HOME's is used, and placeholders may differ from other replicas' (set SVC_REDACT_KEY)")
  }
  const kept = yield* Effect.either(homeKey(config.home))
  if (Either.isRight(kept)) return Buffer.from(kept.right, "hex")
  yield* Effect.logWarning("SVC_HOME could not keep the redaction key; this process uses its own, so placeholders are stable within it only (set SVC_REDACT_KEY)")
  return randomBytes(32)
})

export const RedactionLive = Layer.effect(
  Redaction,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const classes = new Set(config.redact.classes)
    const refused = (reason: string) => new InvalidConfiguration({ message: `invalid configuration:\nSVC_REDACT_RULES: ${reason}` })
    const extra = yield* Option.match(config.redact.rulesFile, {
      onNone: () => Effect.succeed([]),
      onSome: (file) =>
        Effect.tryPromise({ try: () => readFile(file, "utf8"), catch: () => refused(`${file} cannot be read`) }).pipe(
          Effect.flatMap((text) => Either.mapLeft(parseRules(text, file, new Set(RULES.map((rule) => rule.kind))), refused))
        )
    })
    const redactor = makeRedactor(yield* rootKey, { classes, extra })
    return {
      forCaller: Effect.map(callerScope, (scope) => redactor.forScope(scope))
    }
  })
)
