/**
 * OTLP/JSON logs as OTLP protobuf: a run's verdicts, kept in the outbox as OTLP/JSON
 * (Alerts/Delivery.ts), read back by the OTLP/JSON reader and encoded by the protobuf codec (loaded
 * on the first use) when SVC_EVALUATION_PROTOCOL is `http/protobuf`.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { readLogsJson } from "./Json.js"

const codec = Effect.promise(() => import("./Proto.js"))

/** The protobuf `ExportLogsServiceRequest` of an OTLP/JSON one, or why there is none. */
export const logsJsonAsProtobuf = (json: string): Effect.Effect<Uint8Array, string> =>
  Effect.gen(function*() {
    const value = yield* Effect.try({ try: (): unknown => JSON.parse(json), catch: () => "not JSON" })
    const read = readLogsJson(value)
    if (Either.isLeft(read)) return yield* Effect.fail(`not OTLP/JSON logs (${read.left})`)
    return (yield* codec).encodeLogs(read.right)
  })
