/**
 * The per-instance home directory, SVC_HOME (DECISIONS §9):
 *   telemetry.jsonl   one line per model call (no trace content, no keys)
 *   learnings.jsonl   one line per new (uncached) detection
 *   baselines/<pattern>/<id>.json   stored detections that later runs are compared with (the
 *                                   shared scope: auth not required)
 *   scopes/<encoded key name>/baselines/<pattern>/<id>.json   the same, per key (auth required;
 *                                   Auth/Scopes.ts encodes the name)
 * With SVC_REDIS_URL the baselines live in Redis instead, shared by every replica, and SVC_HOME's
 * are the fallback while Redis is unavailable (Store/Redis.ts).
 * Lines are buffered and appended whole by a background flusher (never on the request path),
 * files rotate by size, readers skip a torn last line, and an unwritable or full home logs one
 * warning and serving goes on. The buffer is flushed when the service stops.
 * What the service creates here is its own user's alone (the home and its folders 0700, files 0600,
 * the store's and the redaction key's too): it holds traces, reports and keys. A home that already
 * exists keeps its mode, with a warning at start when others may read it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { appendFile, readFile, rename, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { DataScope } from "../Auth/Scopes.js"
import { Drift } from "../Catalogue/Detection.js"
import { Severity } from "../Catalogue/Severity.js"
import { AppConfig } from "../Config.js"
import { makePrivateDir, PRIVATE_FILE } from "../Config/Paths.js"
import { NO_SHARED_STORE, RedisStore, type RedisStoreShape } from "../Store/Redis.js"
import { encodeScopeName, normalise } from "../Text.js"

export const ROTATE_BYTES = 10 * 1024 * 1024
export const KEEP_ROTATED = 3
const FLUSH_EVERY = "250 millis"

export interface TelemetryRecord {
  readonly time: string
  readonly request_id: string
  readonly pattern: string
  readonly mode: string
  readonly provider: string
  readonly model: string
  readonly input_tokens: number
  readonly cached_input_tokens: number
  readonly output_tokens: number
  readonly elapsed_ms: number
  readonly outcome: "ok" | "error"
}

export interface LearningRecord {
  readonly time: string
  readonly pattern: string
  readonly mode: string
  readonly severity: string
  readonly profile: string
  readonly findings: ReadonlyArray<string>
  readonly interventions: ReadonlyArray<string>
}

/**
 * What a baseline keeps of a detection (DECISIONS §13): enough to compare severity, profile and
 * findings, nothing quoted from the trace. Read back by this schema: a file or Redis value that is
 * not one is no baseline.
 */
export const StoredDetection = Schema.Struct({
  severity: Severity,
  confidence: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null }),
  profile: Schema.String,
  findings: Schema.Array(Schema.Struct({ title: Schema.String })),
  generated_at: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export type StoredDetection = typeof StoredDetection.Type

export type Drift = typeof Drift.Type

export interface HomeShape {
  readonly telemetry: (record: TelemetryRecord) => Effect.Effect<void>
  readonly learning: (record: LearningRecord) => Effect.Effect<void>
  /**
   * Compares with the scope's stored baseline, or records this detection as the scope's baseline
   * when it has none. No scope reads or writes another's.
   */
  readonly baseline: (scope: DataScope, pattern: string, id: string, detection: StoredDetection) => Effect.Effect<Drift>
  /** Appends everything buffered so far. */
  readonly flush: Effect.Effect<void>
}

export class Home extends Context.Tag("Home")<Home, HomeShape>() {}


/** Drift between a stored baseline and a new detection; findings are matched by title. */
type Compared = Pick<StoredDetection, "severity" | "profile" | "findings">

export const driftBetween = (id: string, before: Compared, after: Compared): Drift => {
  const beforeTitles = new Map(before.findings.map((f) => [normalise(f.title), f.title]))
  const afterTitles = new Map(after.findings.map((f) => [normalise(f.title), f.title]))
  return {
    baseline: id,
    recorded: false,
    severity_change: before.severity === after.severity ? null : { from: before.severity, to: after.severity },
    profile_change: before.profile === after.profile ? null : { from: before.profile, to: after.profile },
    findings_new: Array.from(afterTitles).filter(([key]) => !beforeTitles.has(key)).map(([, title]) => title),
    findings_resolved: Array.from(beforeTitles).filter(([key]) => !afterTitles.has(key)).map(([, title]) => title)
  }
}

/** Parses JSON lines, skipping a torn (unparsable) last line; other bad lines are skipped too. */
export const parseJsonLines = (text: string): Array<unknown> =>
  text.split("\n").flatMap((line) => {
    if (line.trim().length === 0) return []
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })

const decodeStored = Schema.decodeUnknownOption(Schema.parseJson(StoredDetection))

interface Appender {
  readonly push: (line: string) => void
  readonly flush: Effect.Effect<void>
}

/** Where a scope's baselines live under SVC_HOME. */
export const baselinesDir = (home: string, scope: DataScope): string =>
  scope._tag === "Shared" ? join(home, "baselines") : join(home, "scopes", encodeScopeName(scope.name), "baselines")

const parseStored = (text: string): Option.Option<StoredDetection> => decodeStored(text)

const recordedDrift = (id: string): Drift => ({
  baseline: id,
  recorded: true,
  severity_change: null,
  profile_change: null,
  findings_new: [],
  findings_resolved: []
})

/**
 * SVC_HOME made for the service's user alone when it is new; when it existed, a warning if its group
 * or others may read it (it holds traces, reports and keys; its mode is the operator's to change).
 */
export const makeHomeDir = (dir: string): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const made = yield* Effect.tryPromise({ try: () => makePrivateDir(dir), catch: (error) => error })
    if (made !== undefined) return
    const mode = (yield* Effect.tryPromise({ try: () => stat(dir), catch: (error) => error })).mode & 0o777
    if ((mode & 0o044) !== 0) {
      yield* Effect.logWarning("SVC_HOME can be read by other users; it holds traces, reports and keys: chmod 700 it").pipe(
        Effect.annotateLogs({ home: dir, mode: mode.toString(8).padStart(4, "0") })
      )
    }
  })

export const makeHome = (dir: string, rotateBytes = ROTATE_BYTES, store: RedisStoreShape = NO_SHARED_STORE) =>
  Effect.gen(function*() {
    let warned = false
    const warnOnce = (action: string, error: unknown) =>
      warned
        ? Effect.void
        : Effect.sync(() => {
          warned = true
        }).pipe(
          Effect.zipRight(
            Effect.logWarning("SVC_HOME is not writable; records are dropped and serving continues").pipe(
              Effect.annotateLogs({ home: dir, action, reason: error instanceof Error && "code" in error ? String(error.code) : String(error) })
            )
          )
        )

    const ready = yield* makeHomeDir(dir).pipe(
      Effect.zipRight(Effect.tryPromise({ try: () => makePrivateDir(join(dir, "baselines")), catch: (error) => error })),
      Effect.as(true),
      Effect.catchAll((error) => warnOnce("create", error).pipe(Effect.as(false)))
    )

    const appender = (file: string): Appender => {
      const path = join(dir, file)
      let buffer: Array<string> = []
      const rotate = Effect.tryPromise(async () => {
        const size = await stat(path).then((s) => s.size, () => 0)
        if (size < rotateBytes) return
        for (let i = KEEP_ROTATED - 1; i >= 1; i--) await rename(`${path}.${i}`, `${path}.${i + 1}`).catch(() => undefined)
        await rename(path, `${path}.1`)
      })
      const flush = Effect.suspend(() => {
        if (buffer.length === 0 || !ready) return Effect.void
        const lines = buffer
        buffer = []
        // One append of whole lines: a crash leaves at most a torn last line, which readers skip.
        return rotate.pipe(
          Effect.zipRight(Effect.tryPromise(() => appendFile(path, lines.join(""), { encoding: "utf8", mode: PRIVATE_FILE }))),
          Effect.catchAll((error) => warnOnce(`append ${file}`, error.error))
        )
      })
      return { push: (line) => buffer.push(`${line}\n`), flush }
    }

    const telemetry = appender("telemetry.jsonl")
    const learnings = appender("learnings.jsonl")
    const flush = Effect.all([telemetry.flush, learnings.flush], { discard: true })
    yield* flush.pipe(Effect.repeat(Schedule.spaced(FLUSH_EVERY)), Effect.forkScoped)
    yield* Effect.addFinalizer(() => flush)

    /** The replica's own baselines, in SVC_HOME (the only store without Redis, the fallback with it). */
    const fileBaseline: HomeShape["baseline"] = (scope, pattern, id, detection) =>
      Effect.gen(function*() {
        const folder = join(baselinesDir(dir, scope), pattern)
        const path = join(folder, `${id}.json`)
        const stored = yield* Effect.tryPromise(() => readFile(path, "utf8")).pipe(
          Effect.map(parseStored),
          Effect.orElseSucceed(() => Option.none<StoredDetection>())
        )
        if (Option.isSome(stored)) return driftBetween(id, stored.value, detection)
        // First run with this id: this detection becomes the baseline (written atomically).
        yield* Effect.tryPromise(async () => {
          await makePrivateDir(folder)
          await writeFile(`${path}.tmp`, JSON.stringify(detection), { encoding: "utf8", mode: PRIVATE_FILE })
          await rename(`${path}.tmp`, path)
        }).pipe(Effect.catchAll((error) => warnOnce("write baseline", error.error)))
        return recordedDrift(id)
      })

    /**
     * Baselines shared by every replica (DECISIONS §15): `<prefix>baseline:<scope>:<pattern>:<id>`,
     * the first detection written with SET NX (two replicas recording at once: one wins, the other
     * compares with it). Redis unavailable: this replica's own SVC_HOME serves the request.
     */
    const sharedBaseline: HomeShape["baseline"] = (scope, pattern, id, detection) => {
      const key = store.key("baseline", scope._tag === "Shared" ? "shared" : `key=${encodeScopeName(scope.name)}`, pattern, id)
      const compare = (text: string | null) => Option.flatMap(Option.fromNullable(text), parseStored)
      return store.get(key, "baseline_get").pipe(
        Effect.flatMap((text) => {
          const stored = compare(text)
          if (Option.isSome(stored)) return Effect.succeed(driftBetween(id, stored.value, detection))
          return store.setIfAbsent(key, JSON.stringify(detection), "baseline_set").pipe(
            Effect.flatMap((wrote) =>
              wrote
                ? Effect.succeed(recordedDrift(id))
                : Effect.map(store.get(key, "baseline_get"), (again) =>
                  Option.match(compare(again), { onNone: () => recordedDrift(id), onSome: (value) => driftBetween(id, value, detection) }))
            )
          )
        }),
        Effect.catchTag("RedisUnavailable", () => fileBaseline(scope, pattern, id, detection))
      )
    }
    const baseline = store.configured ? sharedBaseline : fileBaseline

    return {
      telemetry: (record) => Effect.sync(() => telemetry.push(JSON.stringify(record))),
      learning: (record) => Effect.sync(() => learnings.push(JSON.stringify(record))),
      baseline,
      flush
    } satisfies HomeShape
  })

/** SVC_HOME with baselines in its files. Which Home a service gets is chosen once, in Resources.ts. */
export const HomeFilesLive = Layer.scoped(Home, Effect.flatMap(AppConfig, (config) => makeHome(config.home, ROTATE_BYTES)))

/** SVC_HOME with baselines shared through Redis (DECISIONS §15); SVC_HOME's files when Redis is away. */
export const HomeRedisLive = Layer.scoped(
  Home,
  Effect.gen(function*() {
    const config = yield* AppConfig
    return yield* makeHome(config.home, ROTATE_BYTES, yield* RedisStore)
  })
)
