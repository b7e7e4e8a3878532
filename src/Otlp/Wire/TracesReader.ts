/**
 * An `ExportTraceServiceRequest` read from its protobuf bytes straight into the OTLP/JSON form of
 * Model.ts, in one pass (issue 52): no protobufjs messages, no `Long`s, no strings built a chunk at
 * a time, and each object made once, with its fields in the order the stored text has always had
 * them (the pending span groups are `JSON.stringify`'d models, and their ids are hashes of that
 * text). Proto.ts keeps protobufjs for logs, metrics and the responses.
 *
 * It reads as protobufjs 8 did with Proto.ts's descriptor (test/otlp/traces-reader.test.ts checks
 * them against each other on real and mutated requests):
 * - a field whose wire type is not its declared one is skipped as an unknown field; field number 0,
 *   wire types 4, 6 and 7 out of place, and bad varints, lengths and end-group tags are refused;
 * - scalars are proto3's: a later value replaces an earlier one, and a later default clears it;
 * - a message field that appears twice is merged (repeated fields appended, scalars replaced);
 * - AnyValue is a oneof: the last case read wins, and merging into the same case merges its values;
 * - strings must be valid UTF-8 (as protobufjs's `stringVerify`);
 * - AnyValue nesting past `MAX_ANY_VALUE_DEPTH` is refused (the same limit and message as before,
 *   and as OTLP/JSON); messages nested past `MESSAGE_DEPTH_LIMIT`, and groups past it, likewise.
 * Where a request has more than one fault, the reason given may be another one than protobufjs's.
 */
import { isUtf8 } from "node:buffer"
import * as Either from "effect/Either"
import type { Mutable } from "effect/Types"
import type {
  AnyValue,
  InstrumentationScope,
  KeyValue,
  Resource,
  ResourceSpans,
  ScopeSpans,
  Span,
  SpanEvent,
  SpanLink,
  SpanStatus,
  TracesRequest
} from "./Model.js"
import { MAX_ANY_VALUE_DEPTH } from "./Model.js"

/**
 * Messages nested deeper than this are refused: room for `MAX_ANY_VALUE_DEPTH` kvlists (three
 * messages a level) plus the envelope, so the AnyValue limit is the one that applies. Proto.ts
 * gives protobufjs the same limit.
 */
export const MESSAGE_DEPTH_LIMIT = 3 * MAX_ANY_VALUE_DEPTH + 16

/** Thrown inside the reader, turned into a Left at its edge. */
class Malformed extends Error {}

/** Pads a base-10⁷ digit group to its seven digits. */
const seven = (digits: number): string => {
  const s = String(digits)
  return "0000000".slice(s.length) + s
}

/**
 * The unsigned 64-bit integer `high·2³² + low` in decimal, exactly, with doubles only: above 2⁵³ it
 * is split into 24-bit limbs (low, mid, high: 24, 24, 16 bits) summed in base 10⁷, where
 * 2²⁴ = 1·10⁷ + 6777216 and 2⁴⁸ = 28147497·10⁷ + 6710656, so no partial sum leaves 2⁵³. Cheaper
 * than long.js's toString or a BigInt per timestamp.
 */
export const unsignedDecimal = (low: number, high: number): string => {
  if (high <= 0x1fffff) return String(high * 4294967296 + low)
  const a = low & 0xffffff
  const b = ((low >>> 24) | (high << 8)) & 0xffffff
  const c = high >>> 16
  let digitA = a + b * 6777216 + c * 6710656
  let digitB = b + c * 8147497
  let digitC = c * 2
  if (digitA >= 10000000) {
    digitB += Math.floor(digitA / 10000000)
    digitA %= 10000000
  }
  if (digitB >= 10000000) {
    digitC += Math.floor(digitB / 10000000)
    digitB %= 10000000
  }
  // Above 2⁵³ the value has at least 16 digits, so digitC is never 0.
  return String(digitC) + seven(digitB) + seven(digitA)
}

/** A signed 64-bit integer (two's complement `high·2³² + low`) in decimal. */
export const signedDecimal = (low: number, high: number): string => {
  if ((high | 0) >= 0) return unsignedDecimal(low >>> 0, high >>> 0)
  const negLow = (~low + 1) >>> 0
  const negHigh = (~high + (negLow === 0 ? 1 : 0)) >>> 0
  return "-" + unsignedDecimal(negLow, negHigh)
}

// ---------------------------------------------------------------------------------------------
// The wire format
// ---------------------------------------------------------------------------------------------

/** A view of the same memory as a Buffer, for its native string, hex and base64 (no copy). */
export const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** The bytes being read and the position in them; every read is bounded by its message's end. */
interface Cursor {
  readonly buf: Buffer
  pos: number
}

const outOfRange = (): Malformed => new Malformed("index out of range")

/** A varint's low 32 bits (up to 10 bytes, as protobuf's uint32 and int32 read them). */
const varint32 = (r: Cursor, end: number): number => {
  const buf = r.buf
  let value = 0
  for (let i = 0; i < 10; i++) {
    if (r.pos >= end) throw outOfRange()
    const byte = buf[r.pos++]!
    if (i < 5) value = (value | ((byte & 127) << (i * 7))) >>> 0
    if (byte < 128) return value
  }
  throw new Malformed("invalid varint encoding")
}

/** A tag: field number and wire type, at most 5 bytes and 32 bits. */
const tag = (r: Cursor, end: number): number => {
  const buf = r.buf
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (r.pos >= end) throw outOfRange()
    const byte = buf[r.pos++]!
    if (i === 4 && (byte >= 128 || (byte & 112) !== 0)) throw new Malformed("invalid tag encoding")
    value = (value | ((byte & 127) << (i * 7))) >>> 0
    if (byte < 128) return value
  }
  throw new Malformed("invalid tag encoding")
}

/** A length prefix (below 2³²) and the end it gives, inside `end`. */
const delimited = (r: Cursor, end: number): number => {
  const buf = r.buf
  let value = 0
  for (let i = 0; i < 5; i++) {
    if (r.pos >= end) throw outOfRange()
    const byte = buf[r.pos++]!
    if (i === 4) {
      if (byte > 7) throw new Malformed("invalid length encoding")
      value = (value | (byte << 28)) >>> 0
      break
    }
    value = (value | ((byte & 127) << (i * 7))) >>> 0
    if (byte < 128) break
  }
  const stop = r.pos + value
  if (stop > end) throw outOfRange()
  return stop
}

/** A 64-bit varint as its two 32-bit halves, written into `halves` (no object per integer; read at once). */
const halves: [number, number] = [0, 0]
const varint64 = (r: Cursor, end: number): void => {
  const buf = r.buf
  let low = 0
  let high = 0
  for (let i = 0; i < 10; i++) {
    if (r.pos >= end) throw outOfRange()
    const byte = buf[r.pos++]!
    if (i < 4) low = (low | ((byte & 127) << (i * 7))) >>> 0
    else if (i === 4) {
      low = (low | ((byte & 127) << 28)) >>> 0
      high = (high | ((byte & 127) >> 4)) >>> 0
    } else high = (high | ((byte & 127) << ((i - 5) * 7 + 3))) >>> 0
    if (byte < 128) {
      halves[0] = low
      halves[1] = high
      return
    }
  }
  throw new Malformed("invalid varint encoding")
}

const fixed32 = (r: Cursor, end: number): number => {
  if (r.pos + 4 > end) throw outOfRange()
  const value = r.buf.readUInt32LE(r.pos)
  r.pos += 4
  return value
}

/** A fixed64 in decimal ("0" for zero). */
const fixed64 = (r: Cursor, end: number): string => {
  if (r.pos + 8 > end) throw outOfRange()
  const low = r.buf.readUInt32LE(r.pos)
  const high = r.buf.readUInt32LE(r.pos + 4)
  r.pos += 8
  return unsignedDecimal(low, high)
}

const double = (r: Cursor, end: number): number => {
  if (r.pos + 8 > end) throw outOfRange()
  const value = r.buf.readDoubleLE(r.pos)
  r.pos += 8
  return value
}

const REPLACEMENT = "\uFFFD"

/** A length-prefixed string, valid UTF-8 or refused (one native decode; validated only when it may not be). */
const string = (r: Cursor, end: number): string => {
  const stop = delimited(r, end)
  const start = r.pos
  r.pos = stop
  if (start === stop) return ""
  const text = r.buf.toString("utf8", start, stop)
  if (text.includes(REPLACEMENT) && !isUtf8(r.buf.subarray(start, stop))) {
    throw new Malformed("The encoded data was not valid for encoding utf-8")
  }
  return text
}

/** Length-prefixed bytes in `encoding` ("" when empty). */
const bytes = (r: Cursor, end: number, encoding: "hex" | "base64"): string => {
  const stop = delimited(r, end)
  const start = r.pos
  r.pos = stop
  return start === stop ? "" : r.buf.toString(encoding, start, stop)
}

/** Skips a field of `wireType` (an unknown field, or a known one with another wire type). */
const skip = (r: Cursor, end: number, wireType: number, field: number, depth: number): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  switch (wireType) {
    case 0:
      for (;;) {
        if (r.pos >= end) throw outOfRange()
        if (r.buf[r.pos++]! < 128) return
      }
    case 1:
      if (r.pos + 8 > end) throw outOfRange()
      r.pos += 8
      return
    case 2:
      r.pos = delimited(r, end)
      return
    case 3:
      for (;;) {
        const t = tag(r, end)
        const nested = t >>> 3
        if (nested === 0) throw new Malformed("illegal tag: field number 0")
        if ((t & 7) === 4) {
          if (nested !== field) throw new Malformed("invalid end group tag")
          return
        }
        skip(r, end, t & 7, nested, depth + 1)
      }
    case 5:
      if (r.pos + 4 > end) throw outOfRange()
      r.pos += 4
      return
    default:
      throw new Malformed(`invalid wire type ${wireType} at offset ${r.pos}`)
  }
}

/** The next field's tag, refusing field number 0 (as protobufjs does for any field it skips or reads). */
const nextTag = (r: Cursor, end: number): number => {
  const t = tag(r, end)
  if (t >>> 3 === 0) throw new Malformed("illegal tag: field number 0")
  return t
}

// ---------------------------------------------------------------------------------------------
// The messages, each read into locals and made once in the form's field order
// ---------------------------------------------------------------------------------------------

const LEN = 2
const VARINT = 0
const I64 = 1
const I32 = 5

/** An AnyValue's case while it is read: the last case wins, a message case merges into itself. */
interface ValueState {
  kind: number // 0 none, else the field number of the case
  text: string
  flag: boolean
  number: number
  items: Array<AnyValue> | null
  pairs: Array<KeyValue> | null
}

/** AnyValue at `level` (1 for an attribute's value), merged into `state`. */
const readAnyValue = (r: Cursor, end: number, depth: number, level: number, state: ValueState): void => {
  if (level > MAX_ANY_VALUE_DEPTH) throw new Malformed(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`)
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    switch (field) {
      case 1:
        if (wire !== LEN) break
        state.text = string(r, end)
        state.kind = 1
        continue
      case 2:
        if (wire !== VARINT) break
        state.flag = varint32(r, end) !== 0
        state.kind = 2
        continue
      case 3:
        if (wire !== VARINT) break
        varint64(r, end)
        state.text = signedDecimal(halves[0], halves[1])
        state.kind = 3
        continue
      case 4:
        if (wire !== I64) break
        state.number = double(r, end)
        state.kind = 4
        continue
      case 5: {
        if (wire !== LEN) break
        const stop = delimited(r, end)
        const items = state.kind === 5 && state.items !== null ? state.items : []
        readValues(r, stop, depth + 1, level, items)
        state.items = items
        state.kind = 5
        continue
      }
      case 6: {
        if (wire !== LEN) break
        const stop = delimited(r, end)
        const pairs = state.kind === 6 && state.pairs !== null ? state.pairs : []
        readPairs(r, stop, depth + 1, level + 1, pairs)
        state.pairs = pairs
        state.kind = 6
        continue
      }
      case 7:
        if (wire !== LEN) break
        state.text = bytes(r, end, "base64")
        state.kind = 7
        continue
    }
    skip(r, end, wire, field, depth)
  }
}

const anyValueOf = (state: ValueState): AnyValue => {
  switch (state.kind) {
    case 1:
      return { stringValue: state.text }
    case 2:
      return { boolValue: state.flag }
    case 3:
      return { intValue: state.text }
    case 4:
      return { doubleValue: state.number }
    case 5:
      return { arrayValue: { values: state.items ?? [] } }
    case 6:
      return { kvlistValue: { values: state.pairs ?? [] } }
    case 7:
      return { bytesValue: state.text }
    default:
      return {}
  }
}

const freshState = (): ValueState => ({ kind: 0, text: "", flag: false, number: 0, items: null, pairs: null })

/** ArrayValue's values (AnyValues one level deeper than the array's own), appended to `into`. */
const readValues = (r: Cursor, end: number, depth: number, level: number, into: Array<AnyValue>): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    if (t === ((1 << 3) | LEN)) {
      const stop = delimited(r, end)
      const state = freshState()
      readAnyValue(r, stop, depth + 1, level + 1, state)
      into.push(anyValueOf(state))
      continue
    }
    skip(r, end, t & 7, t >>> 3, depth)
  }
}

/** A KeyValueList's (or attributes') KeyValues, their values at `level`, appended to `into`. */
const readPairs = (r: Cursor, end: number, depth: number, level: number, into: Array<KeyValue>): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    if (t === ((1 << 3) | LEN)) {
      const stop = delimited(r, end)
      into.push(readKeyValue(r, stop, depth + 1, level))
      continue
    }
    skip(r, end, t & 7, t >>> 3, depth)
  }
}

/** A KeyValue whose value sits at `level`: refused past the limit even without a value, as before. */
const readKeyValue = (r: Cursor, end: number, depth: number, level: number): KeyValue => {
  if (level > MAX_ANY_VALUE_DEPTH) throw new Malformed(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`)
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  let key = ""
  let state: ValueState | null = null
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 1 && wire === LEN) {
      key = string(r, end)
      continue
    }
    if (field === 2 && wire === LEN) {
      const stop = delimited(r, end)
      state ??= freshState()
      readAnyValue(r, stop, depth + 1, level, state)
      continue
    }
    skip(r, end, wire, field, depth)
  }
  return { key, value: state === null ? {} : anyValueOf(state) }
}

/** An attributes field (a repeated KeyValue): one KeyValue appended to `into`. */
const readAttribute = (r: Cursor, end: number, depth: number, into: Array<KeyValue>): void => {
  const stop = delimited(r, end)
  into.push(readKeyValue(r, stop, depth + 1, 1))
}

/** Resource, merged into `into` (its attributes, its dropped count). */
interface ResourceState {
  attributes: Array<KeyValue>
  dropped: number
}

const readResource = (r: Cursor, end: number, depth: number, into: ResourceState): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 1 && wire === LEN) {
      readAttribute(r, end, depth, into.attributes)
      continue
    }
    if (field === 2 && wire === VARINT) {
      into.dropped = varint32(r, end)
      continue
    }
    skip(r, end, wire, field, depth)
  }
}

interface ScopeState {
  name: string
  version: string
  attributes: Array<KeyValue>
}

const readScope = (r: Cursor, end: number, depth: number, into: ScopeState): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 1 && wire === LEN) into.name = string(r, end)
    else if (field === 2 && wire === LEN) into.version = string(r, end)
    else if (field === 3 && wire === LEN) readAttribute(r, end, depth, into.attributes)
    else if (field === 4 && wire === VARINT) varint32(r, end)
    else skip(r, end, wire, field, depth)
  }
}

interface StatusState {
  message: string
  code: number
}

const readStatus = (r: Cursor, end: number, depth: number, into: StatusState): void => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 2 && wire === LEN) into.message = string(r, end)
    else if (field === 3 && wire === VARINT) into.code = varint32(r, end) | 0
    else skip(r, end, wire, field, depth)
  }
}

const readEvent = (r: Cursor, end: number, depth: number): SpanEvent => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  let time = "0"
  let name = ""
  const attributes: Array<KeyValue> = []
  let dropped = 0
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 1 && wire === I64) time = fixed64(r, end)
    else if (field === 2 && wire === LEN) name = string(r, end)
    else if (field === 3 && wire === LEN) readAttribute(r, end, depth, attributes)
    else if (field === 4 && wire === VARINT) dropped = varint32(r, end)
    else skip(r, end, wire, field, depth)
  }
  const event: Mutable<SpanEvent> = { timeUnixNano: time, name, attributes }
  if (dropped !== 0) event.droppedAttributesCount = dropped
  return event
}

const readLink = (r: Cursor, end: number, depth: number): SpanLink => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  let traceId = ""
  let spanId = ""
  let traceState = ""
  const attributes: Array<KeyValue> = []
  let flags = 0
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 1 && wire === LEN) traceId = bytes(r, end, "hex")
    else if (field === 2 && wire === LEN) spanId = bytes(r, end, "hex")
    else if (field === 3 && wire === LEN) traceState = string(r, end)
    else if (field === 4 && wire === LEN) readAttribute(r, end, depth, attributes)
    else if (field === 5 && wire === VARINT) varint32(r, end)
    else if (field === 6 && wire === I32) flags = fixed32(r, end)
    else skip(r, end, wire, field, depth)
  }
  const link: Mutable<SpanLink> = { traceId, spanId, attributes }
  if (traceState !== "") link.traceState = traceState
  if (flags !== 0) link.flags = flags
  return link
}

const readSpan = (r: Cursor, end: number, depth: number): Span => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  let traceId = ""
  let spanId = ""
  let traceState = ""
  let parentSpanId = ""
  let flags = 0
  let name = ""
  let kind = 0
  let start = "0"
  let stop = "0"
  const attributes: Array<KeyValue> = []
  let droppedAttributes = 0
  const events: Array<SpanEvent> = []
  let droppedEvents = 0
  const links: Array<SpanLink> = []
  let droppedLinks = 0
  let status: StatusState | null = null
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (wire === LEN) {
      if (field === 1) traceId = bytes(r, end, "hex")
      else if (field === 2) spanId = bytes(r, end, "hex")
      else if (field === 3) traceState = string(r, end)
      else if (field === 4) parentSpanId = bytes(r, end, "hex")
      else if (field === 5) name = string(r, end)
      else if (field === 9) readAttribute(r, end, depth, attributes)
      else if (field === 11) events.push(readEvent(r, delimited(r, end), depth + 1))
      else if (field === 13) links.push(readLink(r, delimited(r, end), depth + 1))
      else if (field === 15) readStatus(r, delimited(r, end), depth + 1, (status ??= { message: "", code: 0 }))
      else skip(r, end, wire, field, depth)
    } else if (wire === VARINT) {
      if (field === 6) kind = varint32(r, end) | 0
      else if (field === 10) droppedAttributes = varint32(r, end)
      else if (field === 12) droppedEvents = varint32(r, end)
      else if (field === 14) droppedLinks = varint32(r, end)
      else skip(r, end, wire, field, depth)
    } else if (wire === I64 && (field === 7 || field === 8)) {
      if (field === 7) start = fixed64(r, end)
      else stop = fixed64(r, end)
    } else if (wire === I32 && field === 16) flags = fixed32(r, end)
    else skip(r, end, wire, field, depth)
  }
  const span: Mutable<Span> = { traceId, spanId, name, startTimeUnixNano: start, endTimeUnixNano: stop, attributes, events, links }
  if (parentSpanId !== "") span.parentSpanId = parentSpanId
  if (traceState !== "") span.traceState = traceState
  if (flags !== 0) span.flags = flags
  if (kind !== 0) span.kind = kind
  if (droppedAttributes !== 0) span.droppedAttributesCount = droppedAttributes
  if (droppedEvents !== 0) span.droppedEventsCount = droppedEvents
  if (droppedLinks !== 0) span.droppedLinksCount = droppedLinks
  if (status !== null) {
    const made: Mutable<SpanStatus> = {}
    if (status.code !== 0) made.code = status.code
    if (status.message !== "") made.message = status.message
    span.status = made
  }
  return span
}

/**
 * A ResourceSpans or a ScopeSpans: its items in field 2 (scope spans, spans), one message in
 * field 1 merged however often it is said (the resource, the scope), its schema URL in field 3.
 */
const readLevel = <Item, Head>(
  r: Cursor,
  end: number,
  depth: number,
  readItem: (r: Cursor, end: number, depth: number) => Item,
  fresh: () => Head,
  readHead: (r: Cursor, end: number, depth: number, into: Head) => void
): { readonly items: Array<Item>; readonly head: Head | null; readonly schemaUrl: string } => {
  if (depth > MESSAGE_DEPTH_LIMIT) throw new Malformed("max depth exceeded")
  const items: Array<Item> = []
  let head: Head | null = null
  let schemaUrl = ""
  while (r.pos < end) {
    const t = nextTag(r, end)
    const field = t >>> 3
    const wire = t & 7
    if (field === 2 && wire === LEN) items.push(readItem(r, delimited(r, end), depth + 1))
    else if (field === 1 && wire === LEN) readHead(r, delimited(r, end), depth + 1, (head ??= fresh()))
    else if (field === 3 && wire === LEN) schemaUrl = string(r, end)
    else skip(r, end, wire, field, depth)
  }
  return { items, head, schemaUrl }
}

const freshScope = (): ScopeState => ({ name: "", version: "", attributes: [] })
const freshResource = (): ResourceState => ({ attributes: [], dropped: 0 })

const readScopeSpans = (r: Cursor, end: number, depth: number): ScopeSpans => {
  const { head: scope, items: spans, schemaUrl } = readLevel(r, end, depth, readSpan, freshScope, readScope)
  const scoped: Mutable<ScopeSpans> = { spans }
  if (scope !== null) {
    const made: Mutable<InstrumentationScope> = { name: scope.name }
    if (scope.version !== "") made.version = scope.version
    if (scope.attributes.length > 0) made.attributes = scope.attributes
    scoped.scope = made
  }
  if (schemaUrl !== "") scoped.schemaUrl = schemaUrl
  return scoped
}

const readResourceSpans = (r: Cursor, end: number, depth: number): ResourceSpans => {
  const { head: resource, items: scopeSpans, schemaUrl } = readLevel(r, end, depth, readScopeSpans, freshResource, readResource)
  const resourced: Mutable<ResourceSpans> = { scopeSpans }
  if (resource !== null) {
    const made: Mutable<Resource> = { attributes: resource.attributes }
    if (resource.dropped !== 0) made.droppedAttributesCount = resource.dropped
    resourced.resource = made
  }
  if (schemaUrl !== "") resourced.schemaUrl = schemaUrl
  return resourced
}

/** Why decoding failed, in a few words: the decoder's own reason, or a stack that ran out. */
export const reasonOf = (error: unknown): string =>
  error instanceof RangeError && /call stack/i.test(error.message)
    ? "nested too deeply"
    : error instanceof Error
      ? error.message
      : String(error)

/** An `ExportTraceServiceRequest` into the OTLP/JSON form; Left on malformed bytes. */
export const readTraces = (input: Uint8Array): Either.Either<TracesRequest, string> => {
  const buf = asBuffer(input)
  const r: Cursor = { buf, pos: 0 }
  const end = buf.length
  try {
    const resourceSpans: Array<ResourceSpans> = []
    while (r.pos < end) {
      const t = nextTag(r, end)
      if (t === ((1 << 3) | LEN)) {
        const stop = delimited(r, end)
        resourceSpans.push(readResourceSpans(r, stop, 1))
        continue
      }
      skip(r, end, t & 7, t >>> 3, 0)
    }
    return Either.right({ resourceSpans })
  } catch (error) {
    return Either.left(`not an OTLP ExportTraceServiceRequest: ${reasonOf(error)}`)
  }
}
