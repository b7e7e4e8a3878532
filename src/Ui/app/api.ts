/**
 * The dashboard's way to the API: the typed client built from the groups its pages use (runs and
 * problems, src/Contract/KeyedGroups.ts), over the browser's fetch, with the signed-in key.
 *
 * The key lives in this tab's sessionStorage only: never in a URL, never logged. Any 401 calls the
 * app's sign-in (`whenUnauthorized`), which comes back to the page asked for.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { useEffect, useState } from "preact/hooks"
import { ProblemsApiGroup, RunsApiGroup } from "../../Contract/KeyedGroups.js"
import { SubmitRunsResponse } from "../../Contract/RunsContract.js"
import { InternalErrorWire } from "../../Errors.js"

class DashboardApi extends HttpApi.make("dashboard").add(RunsApiGroup).add(ProblemsApiGroup).addError(InternalErrorWire) {}

const KEY = "svc.key"

export const readKey = (): string | null => sessionStorage.getItem(KEY)
export const saveKey = (key: string): void => sessionStorage.setItem(KEY, key)
export const clearKey = (): void => sessionStorage.removeItem(KEY)

let unauthorized: () => void = () => undefined
/** What the app does on a 401: the sign-in, back to the page asked for. */
export const whenUnauthorized = (then: () => void): void => {
  unauthorized = then
}

const authorization = (): Record<string, string> => {
  const key = readKey()
  return key === null ? {} : { authorization: `Bearer ${key}` }
}

const keyed = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  client.pipe(
    HttpClient.mapRequest((request) => {
      const key = readKey()
      return key === null ? request : HttpClientRequest.bearerToken(request, key)
    }),
    HttpClient.tap((response) =>
      Effect.sync(() => {
        if (response.status === 401) unauthorized()
      })
    )
  )

const client = HttpApiClient.make(DashboardApi, { baseUrl: location.origin, transformClient: keyed })

export type Client = Effect.Effect.Success<typeof client>

/** What went wrong, as a person reads it: the API's message, or the failure's. */
export const messageOf = (error: unknown): string => {
  if (Predicate.isRecord(error) && typeof error["message"] === "string" && error["message"].length > 0) return error["message"]
  return "the service could not be reached"
}

export type Result<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly message: string; readonly status?: number }

/** One call of the typed client: its value, or what went wrong. */
export const call = <A, E>(f: (client: Client) => Effect.Effect<A, E>): Promise<Result<A>> =>
  Effect.runPromise(Effect.either(Effect.flatMap(client, f)).pipe(Effect.provide(FetchHttpClient.layer))).then((outcome) =>
    Either.isRight(outcome) ? { ok: true, value: outcome.right } : { ok: false, message: messageOf(outcome.left) }
  )

/** A page of a GET that is polled: its value and ETag, or `unchanged` (304: the same bytes as `etag`'s). */
export type Polled<A> = { readonly _tag: "Value"; readonly value: A; readonly etag: string | null } | { readonly _tag: "Unchanged" } | {
  readonly _tag: "Failed"
  readonly message: string
}

/**
 * A conditional GET (DECISIONS §22: live status by polling with ETag and If-None-Match): the
 * answer decoded by the contract's schema, or `Unchanged` when the service says 304.
 */
export const poll = async <A, I>(path: string, schema: Schema.Schema<A, I>, etag: string | null): Promise<Polled<A>> => {
  try {
    const response = await fetch(path, { headers: { ...authorization(), accept: "application/json", ...(etag === null ? {} : { "if-none-match": etag }) }, cache: "no-store" })
    if (response.status === 304) return { _tag: "Unchanged" }
    if (response.status === 401) unauthorized()
    const body: unknown = await response.json()
    if (!response.ok) return { _tag: "Failed", message: messageOf(Predicate.isRecord(body) ? body["detail"] : undefined) }
    const decoded = Schema.decodeUnknownEither(schema)(body)
    return Either.isRight(decoded) ? { _tag: "Value", value: decoded.right, etag: response.headers.get("etag") } : { _tag: "Failed", message: "the service's answer was not understood" }
  } catch {
    return { _tag: "Failed", message: "the service could not be reached" }
  }
}

/** Whether a key is taken (200 on the runs list), refused (401), or not allowed to read (403): signing in checks it. */
export const checkKey = async (key: string | null): Promise<"ok" | "refused" | "forbidden" | "unreachable"> => {
  try {
    const response = await fetch("/v1/runs?limit=1", { headers: key === null ? {} : { authorization: `Bearer ${key}` }, cache: "no-store" })
    return response.ok ? "ok" : response.status === 401 ? "refused" : response.status === 403 ? "forbidden" : "unreachable"
  } catch {
    return "unreachable"
  }
}

/** A file of a run's report (Markdown, SARIF, HTML, OTLP), fetched with the key and saved by the browser. */
export const download = async (path: string, name: string): Promise<string | null> => {
  try {
    const response = await fetch(path, { headers: authorization(), cache: "no-store" })
    if (response.status === 401) unauthorized()
    if (!response.ok) return `the download failed (HTTP ${response.status})`
    const url = URL.createObjectURL(await response.blob())
    const anchor = document.createElement("a")
    anchor.href = url
    anchor.download = name
    anchor.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
    return null
  } catch {
    return "the service could not be reached"
  }
}

/** Submits a trace file as runs (the body as the file holds it: JSON, JSON Lines or a zip); the answer as the contract has it. */
export const submitFile = async (file: File): Promise<Result<typeof SubmitRunsResponse.Type>> => {
  try {
    const type = file.name.endsWith(".zip") ? "application/zip" : /\.(jsonl|ndjson)$/.test(file.name) ? "application/x-ndjson" : "application/json"
    const response = await fetch("/v1/runs", { method: "POST", headers: { ...authorization(), "content-type": type }, body: file, cache: "no-store" })
    if (response.status === 401) unauthorized()
    const body: unknown = await response.json()
    if (!response.ok) return { ok: false, message: messageOf(Predicate.isRecord(body) ? body["detail"] : undefined), status: response.status }
    const decoded = Schema.decodeUnknownEither(SubmitRunsResponse)(body)
    return Either.isRight(decoded) ? { ok: true, value: decoded.right } : { ok: false, message: "the service's answer was not understood" }
  } catch {
    return { ok: false, message: "the service could not be reached" }
  }
}

/**
 * Polls GETs every `everyMs` with their last ETags (DECISIONS §22) while the page shows them: the
 * answers once each path has one, and the last failure; stops when `settled` says so.
 */
export const usePolled = <A, I>(
  paths: ReadonlyArray<string>,
  schema: Schema.Schema<A, I>,
  everyMs: number,
  settled: (values: ReadonlyArray<A>) => boolean = () => false
): { readonly values: ReadonlyArray<A> | null; readonly error: string | null } => {
  const [values, setValues] = useState<ReadonlyArray<A> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const key = paths.join("\n")
  useEffect(() => {
    const tags: Array<string | null> = paths.map(() => null)
    const latest: Array<{ readonly value: A } | undefined> = paths.map(() => undefined)
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    setValues(null)
    setError(null)
    const round = async () => {
      const answers = await Promise.all(paths.map((path, index) => poll(path, schema, tags[index] ?? null)))
      if (stopped) return
      let failed: string | null = null
      answers.forEach((answer, index) => {
        if (answer._tag === "Value") {
          tags[index] = answer.etag
          latest[index] = { value: answer.value }
        } else if (answer._tag === "Failed") failed = answer.message
      })
      setError(failed)
      const present = latest.flatMap((entry) => (entry === undefined ? [] : [entry.value]))
      if (present.length === paths.length) {
        setValues(present)
        if (settled(present)) return
      }
      timer = setTimeout(() => void round(), everyMs)
    }
    void round()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [key])
  return { values, error }
}
