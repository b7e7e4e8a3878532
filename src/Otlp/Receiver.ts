/**
 * The OTLP receiver (DECISIONS §18): one effect per export request, whichever encoding it came in.
 *
 *   decode (protobuf or OTLP/JSON, into Model's one form) → spans and logs of this service's own
 *   `service.name` dropped, and log records that are not a GenAI event of a trace → spans with
 *   invalid ids refused → spans per second per scope (SVC_OTLP_RATE_LIMIT, 429; given back if the
 *   batch is refused later) → the store (503) → spans per trace (SVC_OTLP_MAX_SPANS_PER_TRACE,
 *   refused in partialSuccess; a group kept already is neither) and redaction (§20) → pending
 *   bytes (SVC_OTLP_PENDING_BYTES[_PER_SCOPE], 429) → kept, per trace, in the store → 200 with
 *   what was refused.
 *
 * A 200 means the batch is in the store: the answer is written after the store's statements return.
 * The receiver is the one owner of the codec: it decodes the requests and encodes their answers.
 * Traces are completed and made runs by Assembly.ts.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { Caller, callerScope } from "../Auth/Caller.js"
import { AppConfig } from "../Config.js"
import { type InternalError, RateLimited, type StoreUnavailable, ValidationError } from "../Errors.js"
import { eventLoopTurn, makeSlices } from "../Lifecycle/Slices.js"
import { otlpMetrics } from "../Observability/Metrics.js"
import { Redaction } from "../Redaction/Redaction.js"
import type { RedactionPass } from "../Redaction/Redactor.js"
import { inStore, RunStoreAccess } from "../Store/RunStoreAccess.js"
import type { OtlpStoreShape, PendingGroup, PendingTrace } from "../Store/Otlp.js"
import { bytesAsText } from "../Text.js"
import { exportResponseJson, readLogsJson, readMetricsJson, readTracesJson } from "./Wire/Json.js"
import type { AnyValue, Encoding, KeyValue, LogsRequest, TracesRequest, LogRecord, PartialSuccess, Resource, Signal, Span } from "./Wire/Model.js"
import { SpanRateLimiter } from "./SpanRate.js"
import { endsRoot, stringAttribute } from "./Spans.js"
import { JSON_TYPE, PROTOBUF_TYPE } from "./Wire/Status.js"

export type ReceiveFailure = ValidationError | RateLimited | StoreUnavailable | InternalError

export interface OtlpReceiverShape {
  /** The store, opened if it is not yet: 503 before the body is read further (DECISIONS §16's order). */
  readonly ready: Effect.Effect<void, StoreUnavailable>
  /** The `Export…ServiceResponse` of a request kept, in its encoding. */
  readonly response: (signal: Signal, encoding: Encoding, partial: PartialSuccess | null) => Effect.Effect<{ readonly contentType: string; readonly body: Uint8Array }>
  /**
   * One export request's body, decoded, checked and kept; what was refused (null: nothing).
   * `ownOnly` is called when every item was this service's own (its request makes no span, DECISIONS §21).
   */
  readonly receive: (signal: Signal, body: OtlpBody, ownOnly?: () => void) => Effect.Effect<PartialSuccess | null, ReceiveFailure, Caller>
}

/** An export request's body as the surface read it: OTLP/JSON parsed (under the JSON bounds), or protobuf bytes. */
export type OtlpBody =
  | { readonly encoding: "json"; readonly value: unknown }
  | { readonly encoding: "protobuf"; readonly bytes: Uint8Array }

export class OtlpReceiver extends Context.Tag("OtlpReceiver")<OtlpReceiver, OtlpReceiverShape>() {}

const TRACE_ID = /^[0-9a-f]{32}$/
const SPAN_ID = /^[0-9a-f]{16}$/
const ZERO_TRACE = "0".repeat(32)
const ZERO_SPAN = "0".repeat(16)

/** The log records kept: GenAI message and evaluation events (DECISIONS §18); others are dropped. */
const GENAI_EVENTS: ReadonlySet<string> = new Set([
  "gen_ai.system.message",
  "gen_ai.user.message",
  "gen_ai.assistant.message",
  "gen_ai.tool.message",
  "gen_ai.choice",
  "gen_ai.client.inference.operation.details",
  "gen_ai.evaluation.result"
])

/** A log record's event name: OTLP's `eventName`, else the `event.name` attribute (GenAI instrumentations write either). */
const eventNameOf = (record: LogRecord): string | undefined => record.eventName ?? stringAttribute(record.attributes, "event.name")

// ---------------------------------------------------------------------------------------------
// An item as it is kept: redacted (DECISIONS §20) in one walk from the decoded item. Every string
// value of attributes, event and log attributes and bodies, and status messages is redacted; never
// ids, names, times or keys. Bytes are read as the text they hold and redacted like
// a string (a text redacted is kept as a string); bytes that are no text cannot be read for secrets
// and are dropped.
//
// The strings of one item are gathered and scanned together (one pass call, not one per value), and
// an item redaction leaves as it was (most are) is kept as it came: no redacted copy of the batch is
// built, and each group's text is written once from the decoded items (docs/performance.md, OTLP).

/** The strings an item's values hold, in the order `rebuildValue` reads them back; whether a value changes anyway (bytes that are no text). */
interface Gathered {
  readonly strings: Array<string>
  changed: boolean
}
const gatherValue = (value: AnyValue, into: Gathered): void => {
  if ("stringValue" in value) into.strings.push(value.stringValue)
  else if ("arrayValue" in value) for (const each of value.arrayValue.values) gatherValue(each, into)
  else if ("kvlistValue" in value) gatherAttributes(value.kvlistValue.values, into)
  else if ("bytesValue" in value) {
    const text = bytesAsText(value.bytesValue)
    if (text === undefined) into.changed = true
    else into.strings.push(text)
  }
}
const gatherAttributes = (attributes: ReadonlyArray<KeyValue>, into: Gathered): void => {
  for (const attribute of attributes) gatherValue(attribute.value, into)
}

/** The redacted strings of a gathered item, read back in order. */
interface Scanned {
  readonly strings: ReadonlyArray<string>
  next: number
}
const NO_VALUE: AnyValue = {}
// A value redaction leaves as it was is kept, not copied.
const rebuildValue = (value: AnyValue, scanned: Scanned): AnyValue => {
  if ("stringValue" in value) {
    const text = scanned.strings[scanned.next++] ?? value.stringValue
    return text === value.stringValue ? value : { stringValue: text }
  }
  if ("arrayValue" in value) {
    let out: Array<AnyValue> | undefined
    const values = value.arrayValue.values
    for (let index = 0; index < values.length; index++) {
      const each = values[index]
      if (each === undefined) continue
      const rebuilt = rebuildValue(each, scanned)
      if (rebuilt !== each) (out ??= values.slice())[index] = rebuilt
    }
    return out === undefined ? value : { arrayValue: { values: out } }
  }
  if ("kvlistValue" in value) {
    const values = rebuildAttributes(value.kvlistValue.values, scanned)
    return values === value.kvlistValue.values ? value : { kvlistValue: { values } }
  }
  if ("bytesValue" in value) {
    const text = bytesAsText(value.bytesValue)
    if (text === undefined) return NO_VALUE
    const rebuilt = scanned.strings[scanned.next++] ?? text
    return rebuilt === text ? value : { stringValue: rebuilt }
  }
  return value
}
const rebuildAttributes = (attributes: ReadonlyArray<KeyValue>, scanned: Scanned): ReadonlyArray<KeyValue> => {
  let out: Array<KeyValue> | undefined
  for (let index = 0; index < attributes.length; index++) {
    const attribute = attributes[index]
    if (attribute === undefined) continue
    const value = rebuildValue(attribute.value, scanned)
    if (value !== attribute.value) (out ??= attributes.slice())[index] = { key: attribute.key, value }
  }
  return out ?? attributes
}

/** How an item's values are gathered for redaction and, when one changed, rebuilt in the same order. */
interface Redactable<A> {
  readonly gather: (item: A, into: Gathered) => void
  readonly rebuild: (item: A, scanned: Scanned) => A
}

/** An item with its values redacted by `pass` (none: as it came); the item itself when nothing changed. */
const redacted = <A>(item: A, of: Redactable<A>, pass: RedactionPass | undefined): A => {
  if (pass === undefined) return item
  const gathered: Gathered = { strings: [], changed: false }
  of.gather(item, gathered)
  const strings = gathered.strings.length === 0 ? gathered.strings : pass.texts(gathered.strings)
  let changed = gathered.changed
  for (let index = 0; !changed && index < strings.length; index++) changed = strings[index] !== gathered.strings[index]
  return changed ? of.rebuild(item, { strings, next: 0 }) : item
}

const SPAN_VALUES: Redactable<Span> = {
  gather: (span, into) => {
    gatherAttributes(span.attributes, into)
    for (const event of span.events) gatherAttributes(event.attributes, into)
    for (const link of span.links) gatherAttributes(link.attributes, into)
    if (span.status?.message !== undefined) into.strings.push(span.status.message)
  },
  rebuild: (span, scanned) => ({
    ...span,
    attributes: rebuildAttributes(span.attributes, scanned),
    events: span.events.map((event) => ({ ...event, attributes: rebuildAttributes(event.attributes, scanned) })),
    links: span.links.map((link) => ({ ...link, attributes: rebuildAttributes(link.attributes, scanned) })),
    ...(span.status?.message === undefined ? {} : { status: { ...span.status, message: scanned.strings[scanned.next++] ?? span.status.message } })
  })
}
const LOG_VALUES: Redactable<LogRecord> = {
  gather: (record, into) => {
    gatherAttributes(record.attributes, into)
    if (record.body !== undefined) gatherValue(record.body, into)
  },
  rebuild: (record, scanned) => ({
    ...record,
    attributes: rebuildAttributes(record.attributes, scanned),
    ...(record.body === undefined ? {} : { body: rebuildValue(record.body, scanned) })
  })
}
const RESOURCE_VALUES: Redactable<Resource> = {
  gather: (resource, into) => gatherAttributes(resource.attributes, into),
  rebuild: (resource, scanned) => ({ ...resource, attributes: rebuildAttributes(resource.attributes, scanned) })
}

// ---------------------------------------------------------------------------------------------
// A batch, flattened: each span or record with its resource and instrumentation scope (by index,
// so a group is made of the ones that share both).

interface Located<A> {
  readonly item: A
  readonly traceId: string
  /** Index of its resource group and scope group in the request. */
  readonly resource: number
  readonly scope: number
}

interface Flattened<A> {
  /** The items kept, by trace in arrival order; a trace's are let go once its groups are written. */
  readonly byTrace: Map<string, Array<Located<A>>>
  /** How many items `byTrace` held. */
  kept: number
  readonly resources: Array<Resource | undefined>
  readonly scopes: Array<{ readonly scope: unknown; readonly schemaUrl?: string | undefined }>
  /** Items refused for an invalid id, dropped as this service's own, or dropped as not GenAI. */
  invalid: number
  own: number
  dropped: number
}

/** A resource group without a resource, as the groups keep it. */
const NO_RESOURCE: Resource = { attributes: [] }

/** An item as it is kept: redacted, where it came from, and whether it ends its trace's root. */
interface Stored<A> {
  readonly resource: number
  readonly scope: number
  readonly root: boolean
  readonly item: A
}

const validIds = (traceId: string, spanId: string): boolean =>
  TRACE_ID.test(traceId) && traceId !== ZERO_TRACE && SPAN_ID.test(spanId) && spanId !== ZERO_SPAN

const message = (parts: ReadonlyArray<string>): string => parts.join("; ")

/** Export requests worked on at once per process (see `batches`). */
const BATCHES_AT_ONCE = 2

export const OtlpReceiverLive = Layer.effect(
  OtlpReceiver,
  Effect.gen(function*() {
    const { otlp, telemetry } = yield* AppConfig
    /** This service's own spans (`service.name`, OTEL_SERVICE_NAME), dropped on arrival: no loop when it exports to itself. */
    const ownServiceName = telemetry.serviceName
    const access = yield* RunStoreAccess
    const redaction = yield* Redaction
    const limiter = Option.map(otlp.rateLimit, (rate) => new SpanRateLimiter(rate))
    // Batches decoded and kept at once, per process. The work is CPU and the SQLite driver's calls
    // are synchronous, so more at once adds no throughput, only batches held decoded (memory: a
    // 512-span batch is a few MB of objects); the others wait with their bodies, which
    // SVC_API_MAX_INFLIGHT_BYTES bounds.
    const batches = yield* Effect.makeSemaphore(BATCHES_AT_ONCE)
    // the protobuf codec, loaded on the first protobuf request: the service starts without protobufjs
    const protobufCodec = yield* Effect.cached(Effect.promise(() => import("./Wire/Proto.js")))
    /** Pending bytes as last read from the store, with what this process added since (read at most once a second). */
    let pending: { at: number; all: number; byScope: Map<string, number> } = { at: Number.NEGATIVE_INFINITY, all: 0, byScope: new Map() }
    const PENDING_FRESH_MS = 1_000

    /** A body decoded by `read` (JSON) or `codec` (protobuf); 400 naming what is wrong. */
    const decode = <A>(
      signal: Signal,
      body: OtlpBody,
      read: (value: unknown) => Either.Either<A, string>,
      codec: (proto: typeof import("./Wire/Proto.js"), bytes: Uint8Array) => Either.Either<A, string>
    ) =>
      Effect.gen(function*() {
        const decoded = body.encoding === "json" ? read(body.value) : codec(yield* protobufCodec, body.bytes)
        return Either.isLeft(decoded)
          ? yield* new ValidationError({ message: `the body is not an OTLP ${signal} export request: ${decoded.left}` })
          : decoded.right
      })

    /**
     * A request's items, located by resource and instrumentation scope: those of this service's
     * own `service.name` counted out; each other one kept, refused or dropped as `sort` says.
     */
    const flatten = <A>(
      groups: ReadonlyArray<{ readonly resource?: Resource | undefined; readonly scoped: ReadonlyArray<{ readonly scope?: unknown; readonly schemaUrl?: string | undefined; readonly items: ReadonlyArray<A> }> }>,
      sort: (item: A) => { readonly _tag: "Keep"; readonly traceId: string } | { readonly _tag: "Invalid" } | { readonly _tag: "Drop" }
    ): Flattened<A> => {
      const out: Flattened<A> = { byTrace: new Map(), kept: 0, resources: [], scopes: [], invalid: 0, own: 0, dropped: 0 }
      for (const group of groups) {
        const own = stringAttribute(group.resource?.attributes, "service.name") === ownServiceName
        const resource = out.resources.push(group.resource) - 1
        for (const scoped of group.scoped) {
          if (own) {
            out.own += scoped.items.length
            continue
          }
          const scope = out.scopes.push({ scope: scoped.scope, schemaUrl: scoped.schemaUrl }) - 1
          for (const item of scoped.items) {
            const sorted = sort(item)
            if (sorted._tag === "Keep") {
              const located = { item, traceId: sorted.traceId, resource, scope }
              const list = out.byTrace.get(sorted.traceId)
              if (list === undefined) out.byTrace.set(sorted.traceId, [located])
              else list.push(located)
              out.kept++
            } else if (sorted._tag === "Invalid") out.invalid++
            else out.dropped++
          }
        }
      }
      return out
    }
    const INVALID = { _tag: "Invalid" } as const
    const DROP = { _tag: "Drop" } as const

    /** The spans of a traces request: those with invalid ids refused. */
    const flattenSpans = (request: TracesRequest): Flattened<Span> =>
      flatten(
        request.resourceSpans.map((group) => ({ resource: group.resource, scoped: group.scopeSpans.map((scoped) => ({ scope: scoped.scope, schemaUrl: scoped.schemaUrl, items: scoped.spans })) })),
        (span) => (validIds(span.traceId, span.spanId) ? { _tag: "Keep", traceId: span.traceId } : INVALID)
      )

    /** The log records of a logs request: those that are not a GenAI event of a trace dropped. */
    const flattenLogs = (request: LogsRequest): Flattened<LogRecord> =>
      flatten(
        request.resourceLogs.map((group) => ({ resource: group.resource, scoped: group.scopeLogs.map((scoped) => ({ scope: scoped.scope, schemaUrl: scoped.schemaUrl, items: scoped.logRecords })) })),
        (record) => {
          const name = eventNameOf(record)
          return !TRACE_ID.test(record.traceId) || record.traceId === ZERO_TRACE || name === undefined || !GENAI_EVENTS.has(name)
            ? DROP
            : { _tag: "Keep", traceId: record.traceId }
        }
      )

    const pendingBytes = (store: OtlpStoreShape, scope: string, now: number) =>
      Effect.gen(function*() {
        if (now - pending.at > PENDING_FRESH_MS || !pending.byScope.has(scope)) {
          const read = yield* store.pendingBytes(scope)
          const byScope = now - pending.at > PENDING_FRESH_MS ? new Map<string, number>() : pending.byScope
          byScope.set(scope, read.scope)
          pending = { at: now, all: read.all, byScope }
        }
        return { all: pending.all, scope: pending.byScope.get(scope) ?? 0 }
      })

    /** 429 when `bytes` more would pass a pending bound (the bytes held as `pendingBytes` read them). */
    const refusePending = (held: { readonly all: number; readonly scope: number }, bytes: number): Effect.Effect<void, RateLimited> => {
      const overAll = held.all + bytes > otlp.pendingBytes
      if (!overAll && held.scope + bytes <= otlp.pendingBytesPerScope) return Effect.void
      const which = overAll ? `SVC_OTLP_PENDING_BYTES=${otlp.pendingBytes}` : `SVC_OTLP_PENDING_BYTES_PER_SCOPE=${otlp.pendingBytesPerScope}`
      const retryAfterSeconds = Math.min(otlp.quietSeconds, 30)
      return Effect.fail(new RateLimited({
        message: `pending spans would pass ${which} bytes until their traces complete; retry after ${retryAfterSeconds} s`,
        retryAfterSeconds,
        limit: overAll ? otlp.pendingBytes : otlp.pendingBytesPerScope
      }))
    }

    /** How a batch's items of one signal are kept: their values redacted, under which key of a group, and which of them is a trace's root. */
    interface ItemKind<A> {
      readonly signal: "traces" | "logs"
      readonly kind: PendingGroup["kind"]
      readonly noun: string
      readonly values: Redactable<A>
      readonly isRoot: (item: A) => boolean
    }
    const SPANS: ItemKind<Span> = { signal: "traces", kind: "spans", noun: "spans", values: SPAN_VALUES, isRoot: endsRoot }
    const LOGS: ItemKind<LogRecord> = { signal: "logs", kind: "logs", noun: "log records", values: LOG_VALUES, isRoot: () => false }

    /** Keeps a flattened batch: limits, per-trace groups, redaction, the store; what was refused. */
    const keep = <A>(flat: Flattened<A>, of: ItemKind<A>, scope: string, keyName: string | null, ownOnly: () => void) =>
      Effect.gen(function*() {
        otlpMetrics.items(of.signal, "own", flat.own)
        if (flat.own > 0 && flat.kept === 0 && flat.invalid === 0 && flat.dropped === 0) ownOnly()
        otlpMetrics.items(of.signal, "dropped", flat.dropped)
        const refusals: Array<string> = []
        let rejected = flat.invalid
        if (flat.invalid > 0) refusals.push(`${flat.invalid} ${of.noun} with an invalid trace or span id`)
        if (flat.kept === 0) {
          otlpMetrics.items(of.signal, "rejected", rejected)
          return rejected === 0 ? null : { rejected, errorMessage: message(refusals) }
        }

        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(limiter)) {
          const wait = limiter.value.take(scope, flat.kept, now)
          if (wait > 0) {
            return yield* new RateLimited({
              message: `this scope sends more than SVC_OTLP_RATE_LIMIT=${limiter.value.rate} spans per second; retry after ${wait} s`,
              retryAfterSeconds: wait,
              limit: limiter.value.rate
            })
          }
        }

        // what the limiter took is given back when the batch is refused after it (store, pending bytes)
        const kept = Effect.gen(function*() {
          const store = yield* access.otlp
          // a scope past a bound already is refused before its batch is redacted and grouped: a
          // backlog's 429s cost little, and the CPU goes to completing it (issue 47)
          yield* refusePending(yield* inStore("otlp", pendingBytes(store, scope, now)), 0)
          const byTrace = flat.byTrace
          const known = yield* inStore("otlp", store.known(scope, Array.from(byTrace.keys())))
          const redactor = yield* redaction.forCaller
          const pass = redactor.enabled ? redactor.pass() : undefined
          const resources = flat.resources.map((resource) => redacted(resource ?? NO_RESOURCE, RESOURCE_VALUES, pass))

          /**
           * A trace's items as the groups kept: one per resource and instrumentation scope, in the order they
           * came; with `oneEach`, one per item.
           */
          const groupsOf = (items: ReadonlyArray<Stored<A>>, oneEach = false) => {
            const grouped = new Map<number, { resource: number; scope: number; items: Array<A>; members: Array<Stored<A>> }>()
            let rooted = false
            for (const [index, each] of items.entries()) {
              const key = oneEach ? index : each.resource * 65_536 + each.scope
              let group = grouped.get(key)
              if (group === undefined) {
                group = { resource: each.resource, scope: each.scope, items: [], members: [] }
                grouped.set(key, group)
              }
              if (each.root) rooted = true
              group.items.push(each.item)
              group.members.push(each)
            }
            const groups: Array<PendingGroup & { readonly members: ReadonlyArray<Stored<A>> }> = []
            for (const group of grouped.values()) {
              const scoped = flat.scopes[group.scope]
              const body = JSON.stringify({
                resource: resources[group.resource] ?? NO_RESOURCE,
                scope: scoped?.scope ?? null,
                schemaUrl: scoped?.schemaUrl,
                [of.kind === "spans" ? "spans" : "logRecords"]: group.items
              })
              groups.push({ id: createHash("sha256").update(body).digest("hex").slice(0, 32), kind: of.kind, body, items: group.items.length, bytes: Buffer.byteLength(body), members: group.members })
            }
            return { groups, rooted }
          }

          const traces: Array<PendingTrace> = []
          let over = 0
          let batchBytes = 0
          // redacting and grouping a batch's traces is its CPU: in slices (Lifecycle/Slices.ts)
          const slices = yield* makeSlices()
          for (const [traceId, items] of byTrace) {
            yield* slices.next
            // each item redacted once, whatever groups it then goes into; the decoded items of a trace
            // are let go once its groups are written (the batch is not held decoded while it is stored)
            byTrace.delete(traceId)
            const located = items.map((each): Stored<A> => ({ resource: each.resource, scope: each.scope, root: of.isRoot(each.item), item: redacted(each.item, of.values, pass) }))
            const before = known.get(traceId)
            // a trace no longer open takes nothing: all of it is late, counted by the store
            const room = before === undefined || before.state === "open" ? Math.max(0, otlp.maxSpansPerTrace - (before?.items ?? 0)) : located.length
            let made = groupsOf(located)
            if (located.length > room) {
              // past the cap: what is kept already (this batch sent again) is neither counted nor refused; the
              // cap cuts the rest. What the cap leaves is kept item by item, each its own group: a group cut
              // short is another text than the one sent, so the batch sent again would find nothing of it
              // kept and refuse all of it; item by item, it finds the items kept the first time and refuses
              // the ones refused then, as many as the first answer said.
              const single = groupsOf(located, true)
              const stored = yield* inStore("otlp", store.existing(scope, traceId, [...made.groups, ...single.groups].map((group) => group.id)))
              const keptAlone = new Set(single.groups.filter((group) => stored.has(group.id)).flatMap((group) => group.members))
              const fresh = made.groups.filter((group) => !stored.has(group.id)).flatMap((group) => group.members).filter((each) => !keptAlone.has(each))
              const kept = fresh.slice(0, room)
              over += fresh.length - kept.length
              made = groupsOf(kept, true)
            }
            if (made.groups.length === 0) continue
            const groups: Array<PendingGroup> = made.groups.map(({ body, bytes, id, items, kind }) => ({ body, bytes, id, items, kind }))
            for (const group of groups) batchBytes += group.bytes
            traces.push({ traceId, rooted: made.rooted, items: groups.reduce((sum, group) => sum + group.items, 0), groups })
          }
          if (over > 0) refusals.push(`${over} past SVC_OTLP_MAX_SPANS_PER_TRACE=${otlp.maxSpansPerTrace} for their trace`)
          rejected += over

          yield* refusePending(yield* inStore("otlp", pendingBytes(store, scope, now)), batchBytes)

          const states = yield* inStore("otlp", store.add(scope, keyName, now, traces))
          let late = 0
          const lateTraces: Array<string> = []
          for (const trace of traces) {
            const state = states.get(trace.traceId)
            if (state === undefined || state.state === "open") continue
            late += trace.items
            if (lateTraces.length < 3) lateTraces.push(`${trace.traceId}${state.runId === null ? "" : ` (run ${state.runId})`}`)
          }
          pending.all += batchBytes
          pending.byScope.set(scope, (pending.byScope.get(scope) ?? 0) + batchBytes)
          if (late > 0) refusals.push(`${late} arrived after their trace completed: ${lateTraces.join(", ")}`)
          otlpMetrics.items(of.signal, "late", late)
          otlpMetrics.items(of.signal, "rejected", rejected)
          otlpMetrics.items(of.signal, "accepted", traces.reduce((sum, trace) => sum + trace.items, 0) - late)
          rejected += late
          return rejected === 0 ? null : { rejected, errorMessage: message(refusals) }
        })
        return yield* Option.match(limiter, {
          onNone: () => kept,
          onSome: (spans) => Effect.tapError(kept, () => Effect.sync(() => spans.giveBack(scope, flat.kept)))
        })
      })

    const receive: OtlpReceiverShape["receive"] = (signal, body, ownOnly = () => undefined) =>
      batches.withPermits(1)(Effect.gen(function*() {
        // a turn of the event loop first (Lifecycle/Slices.ts): batches waiting for a permit would
        // otherwise follow each other in microtasks, no probe answered while any waits
        yield* eventLoopTurn
        const { keyName } = yield* Caller
        const scope = yield* callerScope
        switch (signal) {
          case "metrics": {
            // accepted and discarded (DECISIONS §18)
            const metrics = yield* decode(signal, body, readMetricsJson, (proto, body) => proto.decodeMetrics(body))
            otlpMetrics.items("metrics", "dropped", metrics.dataPoints)
            return null
          }
          case "traces":
            return yield* keep(flattenSpans(yield* decode(signal, body, readTracesJson, (proto, body) => proto.decodeTraces(body))), SPANS, scope, keyName, ownOnly)
          case "logs":
            return yield* keep(flattenLogs(yield* decode(signal, body, readLogsJson, (proto, body) => proto.decodeLogs(body))), LOGS, scope, keyName, ownOnly)
        }
      }))

    const utf8 = new TextEncoder()
    const response: OtlpReceiverShape["response"] = (signal, encoding, partial) =>
      encoding === "protobuf"
        ? Effect.map(protobufCodec, (proto) => ({ contentType: PROTOBUF_TYPE, body: proto.encodeExportResponse(signal, partial) }))
        : Effect.succeed({ contentType: JSON_TYPE, body: utf8.encode(JSON.stringify(exportResponseJson(signal, partial))) })

    return { ready: Effect.asVoid(access.otlp), receive, response }
  })
)
