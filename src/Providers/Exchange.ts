/**
 * One POST to a model host and its whole answer, on node:http(s), with the retries of Retry.ts.
 * An attempt is one `Effect.async` around node's request: no fiber, stream or scope of its own.
 * (Until issue 18 this went through the platform's HttpClient, which runs the body's write and the
 * wait for the answer in two more fibers and wraps both in its request, response and error
 * objects; each provider call held them, and their frames, for as long as the provider took:
 * docs/performance.md.) Interruption (the deadline, a client that left) destroys the request.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import type { Agent as HttpsAgent } from "node:https"
import { urlToHttpOptions } from "node:url"
import { isTransientStatus, MAX_RESPONSE_BYTES, retryWait } from "./Retry.js"

/** A provider's whole answer. */
export interface Answer {
  readonly status: number
  readonly body: Buffer
}

/** Why no answer could be had. */
export type ExchangeFailure =
  | { readonly _tag: "Unreachable"; readonly code: string }
  | { readonly _tag: "TooLarge"; readonly bytes: number }

interface Attempt extends Answer {
  readonly retryAfter: string | undefined
}

type Https = typeof import("node:https")
let httpsModule: Promise<Https> | undefined
/**
 * node:https (and TLS under it), loaded by the first call to an https host, not at start-up: a
 * service with a local model host, or none, never loads it (issue 52).
 */
const loadHttps: Effect.Effect<Https> = Effect.promise(() => (httpsModule ??= import("node:https")))

/** Keep-alive agents, one per scheme, that the exchanges share; `close` ends their sockets. */
export const makeAgents = () => {
  const http = new HttpAgent({ keepAlive: true })
  let https: HttpsAgent | undefined
  return {
    http,
    /** The https agent, made with the module's first use. */
    https: (module: Https): HttpsAgent => (https ??= new module.Agent({ keepAlive: true })),
    close: () => {
      http.destroy()
      https?.destroy()
    }
  }
}
export type Agents = ReturnType<typeof makeAgents>

const header = (response: IncomingMessage, name: string): string | undefined => {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** A host's URL as request options, read once per URL (the model hosts are a few, from the config). */
const targets = new Map<string, { readonly secure: boolean; readonly options: ReturnType<typeof urlToHttpOptions> }>()
const targetOf = (url: string) => {
  let target = targets.get(url)
  if (target === undefined) {
    const parsed = new URL(url)
    if (targets.size >= 64) targets.clear()
    target = { secure: parsed.protocol === "https:", options: urlToHttpOptions(parsed) }
    targets.set(url, target)
  }
  return target
}

const attemptOnce = (agents: Agents, url: string, headers: Readonly<Record<string, string>>, body: ReadonlyArray<Buffer>, length: number) =>
  Effect.suspend(() => {
    const { secure, options } = targetOf(url)
    const request = { ...options, method: "POST", headers: { ...headers, "content-length": String(length) } }
    return secure
      ? Effect.flatMap(loadHttps, (https) => send(() => https.request({ ...request, agent: agents.https(https) }), body))
      : send(() => httpRequest({ ...request, agent: agents.http }), body)
  })

/** One attempt: the request `open` makes, its body written, its whole answer read. */
const send = (open: () => ClientRequest, body: ReadonlyArray<Buffer>) =>
  Effect.async<Attempt, ExchangeFailure>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<Attempt, ExchangeFailure>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const request = open()
    const tooLarge = (bytes: number) => {
      // Refused unread: the connection goes, nothing more of the answer is held.
      request.destroy()
      settle(Effect.fail({ _tag: "TooLarge", bytes }))
    }
    request.on("error", (error: NodeJS.ErrnoException) => settle(Effect.fail({ _tag: "Unreachable", code: error.code ?? "Transport" })))
    request.on("response", (response) => {
      const declared = Number(header(response, "content-length") ?? "0")
      if (declared > MAX_RESPONSE_BYTES) return tooLarge(declared)
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.byteLength
        if (size > MAX_RESPONSE_BYTES) tooLarge(size)
        else chunks.push(chunk)
      })
      response.on("error", () => settle(Effect.fail({ _tag: "Unreachable", code: "ECONNRESET" })))
      response.on("end", () => {
        if (!response.complete) return settle(Effect.fail({ _tag: "Unreachable", code: "ECONNRESET" }))
        settle(Effect.succeed({
          status: response.statusCode ?? 0,
          retryAfter: header(response, "retry-after"),
          body: chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size)
        }))
      })
    })
    // One write of the parts (the shared static prefix, then the call's own).
    request.cork()
    for (const part of body) request.write(part)
    request.end()
    return Effect.sync(() => {
      settled = true
      request.destroy()
    })
  })

/**
 * POSTs `body` (its parts in order) to `url` until an answer that is not transient, or out of
 * retries (then the last answer, transient or not, or the last connection error). `deadline` is the
 * absolute time (ms, on `Clock`) the answer is needed by: no retry is started that could not end
 * before it (Retry.ts). The waits are `Clock` sleeps, their jitter drawn from `Random`.
 */
export const exchange = (
  agents: Agents,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: ReadonlyArray<Buffer>,
  deadline: number
) => {
  const length = body.reduce((sum, part) => sum + part.byteLength, 0)
  const from = (attempt: number): Effect.Effect<Answer, ExchangeFailure> =>
    Effect.matchEffect(attemptOnce(agents, url, headers, body, length), {
      onFailure: (failure) => failure._tag === "Unreachable" ? again(attempt, undefined, Effect.fail(failure)) : Effect.fail(failure),
      onSuccess: (answer) => {
        const last = Effect.succeed<Answer>({ status: answer.status, body: answer.body })
        return isTransientStatus(answer.status) ? again(attempt, answer.retryAfter, last) : last
      }
    })
  const again = (attempt: number, retryAfter: string | undefined, last: Effect.Effect<Answer, ExchangeFailure>) =>
    Effect.flatMap(Effect.zip(Clock.currentTimeMillis, Random.next), ([now, jitter]) => {
      const wait = retryWait(attempt, retryAfter, now, deadline, jitter)
      return wait === undefined ? last : Effect.zipRight(Effect.sleep(wait), from(attempt + 1))
    })
  return from(0)
}
