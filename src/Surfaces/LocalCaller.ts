/**
 * The guards for a surface that runs in the caller's own process (`svc mcp` over stdio, the `svc`
 * commands in-process): the same `Guards` the edge runs for each HTTP request, run here once
 * per call. The API key comes from SVC_API_KEY (required when SVC_API_REQUIRE_AUTH=true; its name
 * picks the data scope), and the rate limit counts each call.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { AnalysisCaller } from "../Analysis/AnalyzeService.js"
import type { Operation } from "../Auth/Operations.js"
import { type GuardFailure, type GuardRequest, Guards } from "../Auth/Guards.js"
import { Unauthorized } from "../Errors.js"

/**
 * An effect that runs the guards for the operation (`LOCAL_OPERATIONS`) and, when they pass, names
 * the caller with a fresh request id. `command` names the command in the message of a missing or
 * wrong key (`svc mcp`, `svc analyze`).
 */
export const makeLocalCaller = (apiKey: Option.Option<Redacted.Redacted>, command: string, operation: Operation) =>
  Effect.map(Guards, (guards): Effect.Effect<AnalysisCaller, GuardFailure> => {
    const request: GuardRequest = {
      key: Option.match(apiKey, { onNone: () => undefined, onSome: (key) => Redacted.value(key) }),
      address: "local",
      forwardedFor: undefined,
      operation
    }
    return guards.check(request).pipe(
      Effect.map((passed) => ({ keyName: passed.keyName, requestId: crypto.randomUUID() })),
      // The HTTP wording names headers; here the key comes from the environment.
      Effect.mapError((error) =>
        error._tag === "Unauthorized"
          ? new Unauthorized({
            message: Option.isNone(apiKey)
              ? `an API key is required: set SVC_API_KEY in the environment of \`${command}\``
              : "the API key in SVC_API_KEY is not valid"
          })
          : error
      )
    )
  })
