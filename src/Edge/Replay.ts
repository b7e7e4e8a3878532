/**
 * The bytes the edge read, replayed to the HttpApi app: the request the app sees is node's, but
 * its body is the one the edge already read under the limits (Body.ts), so the contract decodes
 * an endpoint's payload (`.handle`) from it as if it had read the stream itself. `json` is the
 * intake's strict reading (Intake/Json.ts: 415 unless JSON, then the shape bounds, UTF-8 and a JSON
 * object, each 400): the contract's payloads are JSON objects. Its other readers give a JSON body's
 * bytes and refuse any other body with the 415 a JSON payload's route answers; a body in another
 * form (a trace as JSON Lines or a zip, OTLP's protobuf) is read by its handler from the edge's
 * bytes (`handleRaw`).
 *
 * HttpApi runs a payload's reader under `orDie`, so a refusal travels as a defect: a `RequestError`
 * whose cause is the documented error, which `Forward.ts` answers as that error.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import type * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Inspectable, Stream } from "effect"
import { type ApiError, UnsupportedMediaType } from "../Errors.js"
import { isJsonContentType, parseJsonObject, requireJson } from "../Intake/Json.js"

const JSON_MEDIA = "application/json"

class ReplayedRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  /**
   * HttpApi picks a body's reader by `content-type` including `application/json`; a `+json` media
   * type is JSON to this service as well (isJsonContentType), so it is shown as JSON.
   */
  readonly headers: HttpServerRequest.HttpServerRequest["headers"]

  constructor(private readonly request: HttpServerRequest.HttpServerRequest, private readonly bytes: Uint8Array) {
    super()
    const contentType = request.headers["content-type"]
    this.headers = contentType !== undefined && isJsonContentType(contentType) && !contentType.toLowerCase().includes(JSON_MEDIA)
      ? { ...request.headers, "content-type": JSON_MEDIA }
      : request.headers
  }

  get source() {
    return this.request.source
  }
  get url() {
    return this.request.url
  }
  get originalUrl() {
    return this.request.originalUrl
  }
  get method() {
    return this.request.method
  }
  get cookies() {
    return this.request.cookies
  }
  get remoteAddress() {
    return this.request.remoteAddress
  }
  get upgrade() {
    return this.request.upgrade
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]): HttpServerRequest.HttpServerRequest {
    return new ReplayedRequest(this.request.modify(options), this.bytes)
  }
  toJSON(): unknown {
    return { _id: "ReplayedRequest", method: this.method, url: this.url, bytes: this.bytes.byteLength }
  }

  private refused(error: ApiError): HttpServerError.RequestError {
    return new HttpServerError.RequestError({ request: this, reason: "Decode", cause: error })
  }

  /** The body's bytes if it is JSON, else the 415 of a JSON payload's route. */
  private get jsonBytes(): Effect.Effect<Uint8Array, HttpServerError.RequestError> {
    return requireJson(this.headers["content-type"], { jsonLines: false, what: "the body" }).pipe(
      Effect.as(this.bytes),
      Effect.mapError((error) => this.refused(error))
    )
  }

  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.flatMap(this.jsonBytes, (bytes) => Effect.mapError(parseJsonObject(bytes), (error) => this.refused(error)))
  }
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.map(this.jsonBytes, (bytes) => decoder.decode(bytes))
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.RequestError> {
    return Effect.map(this.jsonBytes, (bytes) => {
      const copy = new ArrayBuffer(bytes.byteLength)
      new Uint8Array(copy).set(bytes)
      return copy
    })
  }
  /** A form (HttpApi asks for one by the media type, so only a body that is not JSON comes here): the 415. */
  private get form(): Effect.Effect<never, HttpServerError.RequestError> {
    return Effect.flatMap(this.jsonBytes, () => Effect.fail(this.refused(new UnsupportedMediaType({ message: "send the body as JSON with Content-Type: application/json" }))))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return this.form
  }
  get stream(): Stream.Stream<Uint8Array, HttpServerError.RequestError> {
    return Stream.fromEffect(this.jsonBytes)
  }
  get multipart(): Effect.Effect<Multipart.Persisted, Multipart.MultipartError> {
    return Effect.mapError(this.form, (error) => new Multipart.MultipartError({ reason: "Parse", cause: error }))
  }
  get multipartStream(): Stream.Stream<Multipart.Part, Multipart.MultipartError> {
    return Stream.fromEffect(this.multipart).pipe(Stream.flatMap(() => Stream.empty))
  }
}

const decoder = new TextDecoder()

/** `request` with the body the edge read. */
export const replayed = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array): HttpServerRequest.HttpServerRequest =>
  new ReplayedRequest(request, bytes)

/** The documented error a replayed body's reader refused with, carried out of HttpApi as a defect; else undefined. */
export const replayRefusal = (defect: unknown, isApiError: (u: unknown) => u is ApiError): ApiError | undefined => {
  const error = defect instanceof Multipart.MultipartError ? defect.cause : defect
  return HttpServerError.isServerError(error) && error._tag === "RequestError" && isApiError(error.cause) ? error.cause : undefined
}
