/**
 * The checks as a service (DECISIONS §23): SVC_CHECKS_FILE read once at start-up (a file that does
 * not read stops it, naming the place), and the checks run over a trace with its caller's scope's
 * settings. Every surface that diagnoses a trace goes through it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { readFile } from "node:fs/promises"
import { Caller } from "../Auth/Caller.js"
import { AppConfig, InvalidConfiguration } from "../Config.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import type { NormalizedTrace } from "../Traces/Model.js"
import { CHECKS } from "./Registry.js"
import { runChecks } from "./Run.js"
import { type ChecksSettings, DEFAULT_SETTINGS, parseChecksFile } from "./Settings.js"

export interface ChecksShape {
  /** The checks' findings on a trace, with the settings of the caller's scope (Auth/Caller.ts). */
  readonly run: (trace: NormalizedTrace) => Effect.Effect<ReadonlyArray<CheckFinding>, never, Caller>
}

export class Checks extends Context.Tag("Checks")<Checks, ChecksShape>() {}

/** The checks with the settings given (tests, and the CLI's local backend through the layer below). */
export const makeChecks = (settings: ChecksSettings): ChecksShape => ({
  run: (trace) =>
    Effect.map(Caller, (caller) => {
      const data = caller.scopes?.data
      return runChecks(trace, settings.forScope(data === undefined || data._tag === "Shared" ? null : data.name))
    })
})

export const ChecksLive = Layer.effect(
  Checks,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const refused = (reason: string) => new InvalidConfiguration({ message: `invalid configuration:\nSVC_CHECKS_FILE: ${reason}` })
    const settings = yield* Option.match(config.checks.file, {
      onNone: () => Effect.succeed(DEFAULT_SETTINGS),
      onSome: (file) =>
        Effect.tryPromise({ try: () => readFile(file, "utf8"), catch: () => refused(`${file} cannot be read`) }).pipe(
          Effect.flatMap((text) => Effect.mapError(parseChecksFile(text, file, CHECKS), refused))
        )
    })
    return makeChecks(settings)
  })
)
