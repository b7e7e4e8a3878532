/**
 * One TaggedError per error kind (SEED §7, DECISIONS §5). Handlers fail with the class; on the
 * wire each is `{detail:{error:<kind>, message}}` with its status. The wire form is produced in
 * one place, `wire` below, used both by the HttpApi contract (so OpenAPI and the typed client see
 * it) and by the outer middleware for errors raised outside any endpoint.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", { message: Schema.String }) {}
/** A raw trace in no supported format (DECISIONS §12); the message names the formats and what was seen. */
export class UnsupportedTraceFormat extends Schema.TaggedError<UnsupportedTraceFormat>()("UnsupportedTraceFormat", {
  message: Schema.String
}) {}
export class InvalidMode extends Schema.TaggedError<InvalidMode>()("InvalidMode", { message: Schema.String }) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {}
/** The request's Host or Origin is not this service's (DNS rebinding), or the key's role does not allow it (DECISIONS §16). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {}
/** Too much held at once (request bodies in flight, DECISIONS §16): retry after a moment. */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int
}) {}
/** An `external_id` already names another trace's run in this scope (DECISIONS §17). */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {}
/** The runs store cannot be read or written (DECISIONS §17): retry after a moment; analyze and diagnose are unaffected. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int
}) {}
export class UnknownPattern extends Schema.TaggedError<UnknownPattern>()("UnknownPattern", { message: Schema.String }) {}
/** The 404 of a name outside the catalogue (the catalogue's routes, and analyze's, answered at the edge). */
export const unknownPattern = (name: string) =>
  new UnknownPattern({
    message: `no pattern named ${JSON.stringify(name.slice(0, 80))}; GET /v1/patterns lists the catalogue`
  })
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {}
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String,
  /** The methods the path does allow, for the Allow header. */
  allow: Schema.String
}) {}
export class RequestTooLarge extends Schema.TaggedError<RequestTooLarge>()("RequestTooLarge", { message: Schema.String }) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int,
  limit: Schema.Int
}) {}
export class AuthMisconfigured extends Schema.TaggedError<AuthMisconfigured>()("AuthMisconfigured", {
  message: Schema.String
}) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { message: Schema.String }) {}
export class LlmResolutionError extends Schema.TaggedError<LlmResolutionError>()("LlmResolutionError", {
  message: Schema.String
}) {}
export class AnalyzerError extends Schema.TaggedError<AnalyzerError>()("AnalyzerError", {
  message: Schema.String,
  /** The provider's overload or outage (429, 5xx, unreachable): another attempt later may succeed (a run's retry, DECISIONS §17). */
  retryable: Schema.optional(Schema.Boolean)
}) {}
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", { message: Schema.String }) {}

export type ApiError =
  | ValidationError
  | UnsupportedTraceFormat
  | InvalidMode
  | Unauthorized
  | Forbidden
  | Overloaded
  | UnknownPattern
  | NotFound
  | Conflict
  | StoreUnavailable
  | MethodNotAllowed
  | RequestTooLarge
  | UnsupportedMediaType
  | RateLimited
  | AuthMisconfigured
  | InternalError
  | LlmResolutionError
  | AnalyzerError
  | Timeout

/** The documented kind and status of each error. */
export const errorKinds = {
  ValidationError: { kind: "validation_error", status: 400 },
  UnsupportedTraceFormat: { kind: "unsupported_trace_format", status: 400 },
  InvalidMode: { kind: "invalid_mode", status: 400 },
  Unauthorized: { kind: "unauthorized", status: 401 },
  Forbidden: { kind: "forbidden", status: 403 },
  Overloaded: { kind: "overloaded", status: 503 },
  UnknownPattern: { kind: "unknown_pattern", status: 404 },
  NotFound: { kind: "not_found", status: 404 },
  Conflict: { kind: "conflict", status: 409 },
  StoreUnavailable: { kind: "store_unavailable", status: 503 },
  MethodNotAllowed: { kind: "method_not_allowed", status: 405 },
  RequestTooLarge: { kind: "request_too_large", status: 413 },
  UnsupportedMediaType: { kind: "unsupported_media_type", status: 415 },
  RateLimited: { kind: "rate_limited", status: 429 },
  AuthMisconfigured: { kind: "auth_misconfigured", status: 500 },
  InternalError: { kind: "internal_error", status: 500 },
  LlmResolutionError: { kind: "llm_resolution_error", status: 502 },
  AnalyzerError: { kind: "analyzer_error", status: 502 },
  Timeout: { kind: "timeout", status: 504 }
} as const satisfies Record<ApiError["_tag"], { kind: string; status: number }>

export type ErrorKind = (typeof errorKinds)[keyof typeof errorKinds]["kind"]

export const ErrorDetail = <K extends string>(kind: K) =>
  Schema.Struct({
    error: Schema.Literal(kind).annotations({ description: "The error kind." }),
    message: Schema.String.annotations({ description: "What went wrong and, where it helps, what to do." })
  })

/**
 * What a decode refused, for a person: each path once (`label: given more than once; give it
 * once`), at most ten, prefixed with `at`. A union's members each refuse the value: their
 * `Expected A, actual X` are told as one (`Expected "open" | "resolved" | "ignored", actual
 * "closed"`); other issues of one path after its first would only repeat it.
 */
export const describeIssues = (issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>, at: ReadonlyArray<string> = []): string => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) {
    const path = [...at, ...issue.path.map(String)].join(".")
    byPath.set(path, [...(byPath.get(path) ?? []), issue.message])
  }
  const lines = Array.from(byPath, ([path, messages]) => {
    const expected = messages.map((message) => EXPECTED.exec(message))
    const actual = expected[0]?.[2]
    // an optional field's `undefined` is no help to whoever gave a value
    const alternatives = expected.map((match) => match?.[1]).filter((alternative) => alternative !== "undefined")
    const message = expected.every((match) => match !== null && match[2] === actual) && alternatives.length > 0
      ? `Expected ${alternatives.join(" | ")}, actual ${actual}`
      : messages[0] ?? ""
    return path === "" ? message : `${path}: ${message}`
  })
  return lines.slice(0, 10).join("; ") + (lines.length > 10 ? `; and ${lines.length - 10} more` : "")
}
const EXPECTED = /^Expected (.+), actual (.+)$/s

/** A schema's refusal of what was sent (a body, or its field `at`) as the documented 400. */
export const refusalOf = (error: ParseResult.ParseError, at: ReadonlyArray<string> = []): ValidationError =>
  new ValidationError({ message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error), at) })

/** The wire body of an error: `{detail:{error, message}}`. */
export const errorBody = (kind: string, message: string) => ({ detail: { error: kind, message } })

/** The wire schema of one error class: `{detail:{error:<kind>, message}}` with its status. */
const wire = <Tag extends ApiError["_tag"], Self extends { readonly _tag: Tag; readonly message: string }, Fields>(
  tag: Tag,
  schema: Schema.Schema<Self, { readonly _tag: Tag; readonly message: string } & Fields>,
  defaults: Fields
) => {
  const { kind, status } = errorKinds[tag]
  return Schema.transform(Schema.Struct({ detail: ErrorDetail(kind) }), schema, {
    strict: false,
    decode: (body) => ({ ...defaults, _tag: tag, message: body.detail.message }),
    encode: (error) => ({ detail: { error: kind, message: error.message } })
  }).annotations({
    identifier: `${tag}Error`,
    description: `\`${kind}\` (HTTP ${status}).`,
    ...HttpApiSchema.annotations({ status })
  })
}

export const ValidationErrorWire = wire("ValidationError", ValidationError, {})
export const UnsupportedTraceFormatWire = wire("UnsupportedTraceFormat", UnsupportedTraceFormat, {})
export const InvalidModeWire = wire("InvalidMode", InvalidMode, {})
export const UnauthorizedWire = wire("Unauthorized", Unauthorized, {})
export const ForbiddenWire = wire("Forbidden", Forbidden, {})
export const OverloadedWire = wire("Overloaded", Overloaded, { retryAfterSeconds: 1 })
export const UnknownPatternWire = wire("UnknownPattern", UnknownPattern, {})
export const NotFoundWire = wire("NotFound", NotFound, {})
export const ConflictWire = wire("Conflict", Conflict, {})
export const StoreUnavailableWire = wire("StoreUnavailable", StoreUnavailable, { retryAfterSeconds: 1 })
export const RequestTooLargeWire = wire("RequestTooLarge", RequestTooLarge, {})
export const UnsupportedMediaTypeWire = wire("UnsupportedMediaType", UnsupportedMediaType, {})
export const RateLimitedWire = wire("RateLimited", RateLimited, { retryAfterSeconds: 0, limit: 0 })
export const AuthMisconfiguredWire = wire("AuthMisconfigured", AuthMisconfigured, {})
export const InternalErrorWire = wire("InternalError", InternalError, {})
export const LlmResolutionErrorWire = wire("LlmResolutionError", LlmResolutionError, {})
export const AnalyzerErrorWire = wire("AnalyzerError", AnalyzerError, {})
export const TimeoutWire = wire("Timeout", Timeout, {})
