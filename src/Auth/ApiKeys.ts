/**
 * API keys (SEED §5, DECISIONS §5). Keys come from SVC_API_KEYS and SVC_API_KEYS_FILE, merged;
 * only their SHA-256 digests are kept, and a presented key is compared with every digest in
 * constant time. The key file is re-read when it changes: a bad new file keeps the old keys and
 * logs why (never the keys). Key names are internal: they name rate-limit buckets and, with auth
 * required, data scopes (directories under SVC_HOME: Auth/Scopes.ts), and never appear in logs,
 * errors, metrics or telemetry. One key set behind two interfaces: `ApiKeys`, Effects only, and the
 * guards' synchronous `ApiKeysFastLane` (ApiKeysFastLane.ts).
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { createHash, timingSafeEqual } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import { type ApiKeyEntry, AppConfig, parseKeyList } from "../Config.js"
import { unknownRoleNames } from "../Config/KeyRoles.js"
import { ApiKeysFastLane } from "./ApiKeysFastLane.js"

export interface KeyDigest {
  readonly name: string
  readonly digest: Buffer
}

export interface ApiKeysShape {
  /** The name of the key presented, if it is one; constant time in the presented value. */
  readonly verify: (presented: string) => Effect.Effect<Option.Option<string>>
  /** Re-reads the key file now (the watcher calls this when the file changes). */
  readonly reload: Effect.Effect<void>
}

export class ApiKeys extends Context.Tag("ApiKeys")<ApiKeys, ApiKeysShape>() {}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

export const digestKeys = (entries: ReadonlyArray<ApiKeyEntry>): Array<KeyDigest> =>
  entries.map((entry) => ({ name: entry.name, digest: sha256(Redacted.value(entry.key)) }))

/** Compares against every digest without stopping early, so timing does not reveal a match. */
export const verifyAgainst = (digests: ReadonlyArray<KeyDigest>, presented: string): string | undefined => {
  const candidate = sha256(presented)
  let found: string | undefined = undefined
  for (const entry of digests) {
    if (timingSafeEqual(entry.digest, candidate) && found === undefined) found = entry.name
  }
  return found
}

/** Parses a key file: one `name=key` per line, `#` comments and blank lines skipped. */
export const parseKeyFile = (text: string, path: string): Either.Either<Array<ApiKeyEntry>, string> =>
  parseKeyList(
    text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith("#")),
    `SVC_API_KEYS_FILE (${path})`
  )

/**
 * Merges the two sources; a key present in both is refused. A name may hold several keys (within
 * a source or across both), so a key can be rotated with an overlap and keep its name, and so its
 * data (Auth/Scopes.ts).
 */
export const mergeKeys = (
  fromEnv: ReadonlyArray<ApiKeyEntry>,
  fromFile: ReadonlyArray<ApiKeyEntry>
): Either.Either<Array<ApiKeyEntry>, string> => {
  const keys = new Set(fromEnv.map((entry) => Redacted.value(entry.key)))
  for (const entry of fromFile) {
    if (keys.has(Redacted.value(entry.key))) return Either.left("SVC_API_KEYS and SVC_API_KEYS_FILE share a key")
  }
  return Either.right([...fromEnv, ...fromFile])
}

export class ApiKeysError extends Data.TaggedError("ApiKeysError")<{ readonly message: string }> {}

const readKeyFile = (path: string): Either.Either<Array<ApiKeyEntry>, string> => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    return Either.left(`SVC_API_KEYS_FILE (${path}) cannot be read: ${error instanceof Error && "code" in error ? String(error.code) : "error"}`)
  }
  return parseKeyFile(text, path)
}

/** How often the key file's modification time is checked. */
export const KEY_FILE_POLL = "1 second"

/**
 * The keys, read at start. `watch`: re-read the key file when it changes (background work: only a
 * serving process watches, DECISIONS §16; a command reads the keys once).
 */
const apiKeys = (watch: boolean) =>
  Effect.gen(function*() {
    const { auth } = yield* AppConfig
    const loaded: Either.Either<ReadonlyArray<ApiKeyEntry>, string> = Option.match(auth.keysFile, {
      onNone: () => Either.right(auth.keys),
      onSome: (path) => Either.flatMap(readKeyFile(path), (fromFile) => mergeKeys(auth.keys, fromFile))
    })
    const initial = yield* Either.mapLeft(loaded, (message) => new ApiKeysError({ message }))
    // the key file's names are known only now (Config.ts checked SVC_API_KEYS's alone)
    const unknown = Option.isSome(auth.keysFile) ? unknownRoleNames(auth.roles, new Set(initial.map((entry) => entry.name)), "SVC_API_KEYS and SVC_API_KEYS_FILE") : undefined
    if (unknown !== undefined) return yield* new ApiKeysError({ message: unknown })
    // Read on every request, replaced whole on reload: a plain cell is enough.
    let current = digestKeys(initial)
    // Suspended: the file is read each time the effect runs, not once when it is built.
    const reload = Effect.suspend(() => Option.match(auth.keysFile, {
      onNone: () => Effect.void,
      onSome: (path) =>
        Either.match(Either.flatMap(readKeyFile(path), (fromFile) => mergeKeys(auth.keys, fromFile)), {
          onLeft: (message) =>
            Effect.logWarning("the API key file changed but was not loaded; the previous keys stay in force").pipe(
              Effect.annotateLogs({ reason: message })
            ),
          onRight: (entries) =>
            Effect.sync(() => {
              current = digestKeys(entries)
            }).pipe(Effect.zipRight(Effect.logInfo("API keys reloaded").pipe(Effect.annotateLogs({ keys: entries.length }))))
        })
    }))
    // Watch the file by modification time and size (works for in-place edits and atomic renames).
    yield* Option.match(watch ? auth.keysFile : Option.none(), {
      onNone: () => Effect.void,
      onSome: (path) => {
        const stamp = () => {
          try {
            const stat = statSync(path)
            return `${stat.mtimeMs}:${stat.size}:${stat.ino}`
          } catch {
            return "missing"
          }
        }
        let last = stamp()
        return Effect.suspend(() => {
          const next = stamp()
          if (next === last) return Effect.void
          last = next
          return reload
        }).pipe(Effect.repeat(Schedule.spaced(KEY_FILE_POLL)), Effect.forkScoped, Effect.asVoid)
      }
    })
    // One key set behind both: the guards' lane reads it at once, the service as effects.
    const configured = () => current.length > 0
    const verify = (presented: string) => verifyAgainst(current, presented)
    return Context.make(ApiKeysFastLane, { configured, verify }).pipe(Context.add(ApiKeys, {
      verify: (presented) => Effect.sync(() => Option.fromNullable(verify(presented))),
      reload
    }))
  })

/** The keys of a serving process: the key file watched. */
export const ApiKeysLive = Layer.scopedContext(apiKeys(true))

/** The keys of a command (`svc analyze`, `svc mcp`): read once, nothing left running. */
export const ApiKeysOnceLive = Layer.scopedContext(apiKeys(false))
