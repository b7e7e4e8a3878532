/**
 * OTLP/JSON logs as OTLP protobuf (Alerts/Delivery.ts's `LogsEncoding`): a run's verdicts, kept in the
 * outbox as OTLP/JSON, read back by the receiver's OTLP/JSON reader and encoded by its protobuf
 * codec (loaded on the first use) when SVC_EVALUATION_PROTOCOL is `http/protobuf`.
 */
import { Effect, Either, Layer } from "effect"
import { LogsEncoding } from "../Alerts/Delivery.js"
import { readLogsJson } from "./Json.js"

const codec = Effect.promise(() => import("./Proto.js"))

export const LogsEncodingLive = Layer.succeed(LogsEncoding, (json: string) =>
  Effect.gen(function*() {
    const value = yield* Effect.try({ try: (): unknown => JSON.parse(json), catch: () => "not JSON" })
    const read = readLogsJson(value)
    if (Either.isLeft(read)) return yield* Effect.fail(`not OTLP/JSON logs (${read.left})`)
    return (yield* codec).encodeLogs(read.right)
  }))
