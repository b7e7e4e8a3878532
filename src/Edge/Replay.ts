/**
 * The bytes the edge read, replayed to the HttpApi app: the request the app sees is node's, but
 * its body is the one the edge already read under the limits (Body.ts), so the contract decodes
 * an endpoint's payload (`.handle`) from it as if it had read the stream itself. The route's
 * payload says which bodies it takes (Routes.ts `BodyForms`, from the contract's members): a body
 * in any other media type is refused with the 415 before anything is parsed. JSON is the intake's
 * strict reading (Intake/Json.ts: the shape bounds, UTF-8, then a JSON object, or for a trace an
 * object or an array, each 400); JSON Lines and a zip are handed on as their bytes, which HttpApi
 * reads for a media type other than JSON and text, for the intake to parse (Intake/Json.ts
 * `traceOfUpload`). The request shows each body by its canonical media type (a `+json` type as
 * `application/json`, JSON Lines' aliases as `application/x-ndjson`, a zip's as
 * `application/zip`): HttpApi picks its reader by a substring of it (`application/jsonl` would
 * read as JSON), and a handler reads the form from it.
 *
 * HttpApi runs a payload's reader under `orDie`, so a refusal travels as a defect: a `RequestError`
 * whose cause is the documented error, which `Forward.ts` answers as that error.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import type * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Stream from "effect/Stream"
import { JSON_LINES_MEDIA, ZIP_MEDIA } from "../Contract/TraceBodies.js"
import type { ApiError } from "../Errors.js"
import { type BodyMedia, bodyMediaOf, parseJsonObject, parseTraceBody, unsupportedMedia } from "../Intake/Json.js"
import type { BodyForms } from "./Routes.js"

const CANONICAL: Readonly<Record<Exclude<BodyMedia, "other">, string>> = {
  json: "application/json",
  jsonLines: JSON_LINES_MEDIA,
  zip: ZIP_MEDIA
}

const takes = (forms: BodyForms, media: BodyMedia): boolean =>
  media === "json" || (media === "jsonLines" && forms.jsonLines) || (media === "zip" && forms.zip)

class ReplayedRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly headers: HttpServerRequest.HttpServerRequest["headers"]
  private readonly media: BodyMedia

  constructor(
    private readonly request: HttpServerRequest.HttpServerRequest,
    private readonly bytes: Uint8Array,
    private readonly forms: BodyForms
  ) {
    super()
    const contentType = request.headers["content-type"]
    this.media = bodyMediaOf(contentType)
    const canonical = this.media === "other" ? undefined : CANONICAL[this.media]
    this.headers = canonical !== undefined && contentType !== undefined && !contentType.toLowerCase().startsWith(canonical)
      ? { ...request.headers, "content-type": canonical }
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
    return new ReplayedRequest(this.request.modify(options), this.bytes, this.forms)
  }
  toJSON(): unknown {
    return { _id: "ReplayedRequest", method: this.method, url: this.url, bytes: this.bytes.byteLength }
  }

  private refused(error: ApiError): HttpServerError.RequestError {
    return new HttpServerError.RequestError({ request: this, reason: "Decode", cause: error })
  }

  /** The body's bytes if its route takes its media type, else the 415 of that route. */
  private get accepted(): Effect.Effect<Uint8Array, HttpServerError.RequestError> {
    return takes(this.forms, this.media)
      ? Effect.succeed(this.bytes)
      : Effect.fail(this.refused(unsupportedMedia(this.request.headers["content-type"], {
        jsonLines: this.forms.jsonLines || this.forms.zip,
        what: this.forms.json === "trace" ? undefined : "the body"
      })))
  }

  /** The body as JSON: for a trace an object or an array, else an object. */
  get json(): Effect.Effect<unknown, HttpServerError.RequestError> {
    return Effect.flatMap(this.accepted, (bytes) =>
      Effect.mapError(
        this.forms.json === "trace" ? parseTraceBody(bytes, false) : parseJsonObject(bytes),
        (error) => this.refused(error)
      ))
  }
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.map(this.accepted, (bytes) => decoder.decode(bytes))
  }
  /** The bytes (HttpApi's reading of a body neither JSON nor text): shared when they fill their buffer, else copied. */
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.RequestError> {
    return Effect.map(this.accepted, (bytes) => {
      if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer
      const copy = new ArrayBuffer(bytes.byteLength)
      new Uint8Array(copy).set(bytes)
      return copy
    })
  }
  /** A form (HttpApi asks for one by the media type, so only a body that is not JSON comes here): the 415. */
  private get form(): Effect.Effect<never, HttpServerError.RequestError> {
    return Effect.flatMap(this.accepted, () => Effect.fail(this.refused(unsupportedMedia(this.request.headers["content-type"], { jsonLines: false, what: "the body" }))))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.RequestError> {
    return this.form
  }
  get stream(): Stream.Stream<Uint8Array, HttpServerError.RequestError> {
    return Stream.fromEffect(this.accepted)
  }
  get multipart(): Effect.Effect<Multipart.Persisted, Multipart.MultipartError> {
    return Effect.mapError(this.form, (error) => new Multipart.MultipartError({ reason: "Parse", cause: error }))
  }
  get multipartStream(): Stream.Stream<Multipart.Part, Multipart.MultipartError> {
    return Stream.fromEffect(this.multipart).pipe(Stream.flatMap(() => Stream.empty))
  }
}

const decoder = new TextDecoder()

/** `request` with the body the edge read, read as its route's payload takes it. */
export const replayed = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array, forms: BodyForms): HttpServerRequest.HttpServerRequest =>
  new ReplayedRequest(request, bytes, forms)

/** The documented error a replayed body's reader refused with, carried out of HttpApi as a defect; else undefined. */
export const replayRefusal = (defect: unknown, isApiError: (u: unknown) => u is ApiError): ApiError | undefined => {
  const error = defect instanceof Multipart.MultipartError ? defect.cause : defect
  return HttpServerError.isServerError(error) && error._tag === "RequestError" && isApiError(error.cause) ? error.cause : undefined
}
