/**
 * TracesReader.ts (trace export requests read in one pass from the protobuf bytes) against
 * protobufjs reading the same bytes with Proto.ts's descriptor, the decoder it replaced on the
 * receiver's path: on requests from the OpenTelemetry SDK's own serializer, on random requests, and
 * on those requests mutated (bytes changed, cut, inserted, fields repeated). Both must accept and
 * refuse the same inputs, and what they accept must be the same model written as the same text
 * (pending span groups are that text, and their ids are its hashes). The reference below converts
 * protobufjs's plain objects (`toObject`) into the model's form in its own way.
 */
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api"
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { AnyValue, KeyValue, TracesRequest } from "../../src/Otlp/Wire/Model.js"
import { MAX_ANY_VALUE_DEPTH } from "../../src/Otlp/Wire/Model.js"
import { encodeTraces, TracesRequestType } from "../../src/Otlp/Wire/Proto.js"
import { readTraces } from "../../src/Otlp/Wire/TracesReader.js"

type Plain = { readonly [key: string]: unknown }
const isPlain = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value)
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const str = (value: unknown): string => (typeof value === "string" ? value : "")
const num = (value: unknown): number => (typeof value === "number" ? value : 0)
const hexOf = (base64: unknown): string => Buffer.from(str(base64), "base64").toString("hex")

/** Adds `key` to `into` when `value` is not its default (the model leaves defaults out). */
const unlessDefault = (into: Record<string, unknown>, key: string, value: unknown, absent: unknown) => {
  if (value !== absent) into[key] = value
}

class TooDeep extends Error {}

const referenceValue = (value: unknown, level: number): AnyValue => {
  if (level > MAX_ANY_VALUE_DEPTH) throw new TooDeep()
  const v = isPlain(value) ? value : {}
  if ("stringValue" in v) return { stringValue: str(v["stringValue"]) }
  if ("intValue" in v) return { intValue: str(v["intValue"]) }
  if ("boolValue" in v) return { boolValue: v["boolValue"] === true }
  if ("doubleValue" in v) return { doubleValue: num(v["doubleValue"]) }
  if ("arrayValue" in v) {
    const array = v["arrayValue"]
    return { arrayValue: { values: list(isPlain(array) ? array["values"] : undefined).map((item) => referenceValue(item, level + 1)) } }
  }
  if ("kvlistValue" in v) {
    const kvlist = v["kvlistValue"]
    return { kvlistValue: { values: referencePairs(isPlain(kvlist) ? kvlist["values"] : undefined, level + 1) } }
  }
  if ("bytesValue" in v) return { bytesValue: str(v["bytesValue"]) }
  return {}
}

const referencePairs = (pairs: unknown, level: number): Array<KeyValue> =>
  list(pairs).map((pair) => {
    const p = isPlain(pair) ? pair : {}
    return { key: str(p["key"]), value: referenceValue(p["value"], level) }
  })

/** protobufjs's reading of `bytes`, in the model's form and field order; Left when it refuses them. */
const reference = (bytes: Uint8Array): Either.Either<unknown, string> => {
  let plain: Plain
  try {
    plain = TracesRequestType.toObject(TracesRequestType.decode(bytes), { longs: String, bytes: String })
  } catch (error) {
    return Either.left(String(error))
  }
  try {
    const resourceSpans = list(plain["resourceSpans"]).map((rsValue) => {
      const rs = isPlain(rsValue) ? rsValue : {}
      const scopeSpans = list(rs["scopeSpans"]).map((ssValue) => {
        const ss = isPlain(ssValue) ? ssValue : {}
        const spans = list(ss["spans"]).map((spanValue) => {
          const s = isPlain(spanValue) ? spanValue : {}
          const span: Record<string, unknown> = {
            traceId: hexOf(s["traceId"]),
            spanId: hexOf(s["spanId"]),
            name: str(s["name"]),
            startTimeUnixNano: str(s["startTimeUnixNano"]) || "0",
            endTimeUnixNano: str(s["endTimeUnixNano"]) || "0",
            attributes: referencePairs(s["attributes"], 1),
            events: list(s["events"]).map((eventValue) => {
              const e = isPlain(eventValue) ? eventValue : {}
              const event: Record<string, unknown> = { timeUnixNano: str(e["timeUnixNano"]) || "0", name: str(e["name"]), attributes: referencePairs(e["attributes"], 1) }
              unlessDefault(event, "droppedAttributesCount", num(e["droppedAttributesCount"]), 0)
              return event
            }),
            links: list(s["links"]).map((linkValue) => {
              const l = isPlain(linkValue) ? linkValue : {}
              const link: Record<string, unknown> = { traceId: hexOf(l["traceId"]), spanId: hexOf(l["spanId"]), attributes: referencePairs(l["attributes"], 1) }
              unlessDefault(link, "traceState", str(l["traceState"]), "")
              unlessDefault(link, "flags", num(l["flags"]), 0)
              return link
            })
          }
          unlessDefault(span, "parentSpanId", hexOf(s["parentSpanId"]), "")
          unlessDefault(span, "traceState", str(s["traceState"]), "")
          unlessDefault(span, "flags", num(s["flags"]), 0)
          unlessDefault(span, "kind", num(s["kind"]), 0)
          unlessDefault(span, "droppedAttributesCount", num(s["droppedAttributesCount"]), 0)
          unlessDefault(span, "droppedEventsCount", num(s["droppedEventsCount"]), 0)
          unlessDefault(span, "droppedLinksCount", num(s["droppedLinksCount"]), 0)
          const status = s["status"]
          if (isPlain(status)) {
            const made: Record<string, unknown> = {}
            unlessDefault(made, "code", num(status["code"]), 0)
            unlessDefault(made, "message", str(status["message"]), "")
            span["status"] = made
          }
          return span
        })
        const scoped: Record<string, unknown> = { spans }
        const scope = ss["scope"]
        if (isPlain(scope)) {
          const made: Record<string, unknown> = { name: str(scope["name"]) }
          unlessDefault(made, "version", str(scope["version"]), "")
          const attributes = referencePairs(scope["attributes"], 1)
          if (attributes.length > 0) made["attributes"] = attributes
          scoped["scope"] = made
        }
        unlessDefault(scoped, "schemaUrl", str(ss["schemaUrl"]), "")
        return scoped
      })
      const resourced: Record<string, unknown> = { scopeSpans }
      const resource = rs["resource"]
      if (isPlain(resource)) {
        const made: Record<string, unknown> = { attributes: referencePairs(resource["attributes"], 1) }
        unlessDefault(made, "droppedAttributesCount", num(resource["droppedAttributesCount"]), 0)
        resourced["resource"] = made
      }
      unlessDefault(resourced, "schemaUrl", str(rs["schemaUrl"]), "")
      return resourced
    })
    // compared as text with the reader's model
    return Either.right({ resourceSpans })
  } catch (error) {
    if (error instanceof TooDeep) return Either.left("AnyValue nested too deeply")
    throw error
  }
}

/** The reader and the reference agree: both refuse, or both accept the same model as the same text. */
const agree = (bytes: Uint8Array): "accepted" | "refused" => {
  const ours = readTraces(bytes)
  const theirs = reference(bytes)
  expect(Either.isRight(ours), `reader: ${Either.isLeft(ours) ? ours.left : "accepted"}; protobufjs: ${Either.isLeft(theirs) ? theirs.left : "accepted"}`).toBe(Either.isRight(theirs))
  if (Either.isRight(ours) && Either.isRight(theirs)) {
    expect(JSON.stringify(ours.right)).toBe(JSON.stringify(theirs.right))
    return "accepted"
  }
  if (Either.isLeft(ours)) expect(ours.left).toMatch(/^not an OTLP ExportTraceServiceRequest: /)
  return "refused"
}

const sdkRequest = async (): Promise<Uint8Array> => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "reader-test", "deployment.environment": "ci" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)]
  })
  const tracer = provider.getTracer("reader-test-scope", "0.1.0")
  const root = tracer.startSpan("invoke_agent planner", { kind: SpanKind.SERVER, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner" } })
  const chat = tracer.startSpan(
    "chat gpt-4o",
    {
      kind: SpanKind.CLIENT,
      links: [{ context: { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 }, attributes: { "link.kind": "follows" } }],
      attributes: {
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 1234,
        "gen_ai.request.temperature": 0.2,
        "gen_ai.response.finish_reasons": ["stop", "length"],
        "a.big": 9_007_199_254_740_991,
        "a.negative": -7,
        "a.unicode": "héllo wörld ✓ 😀",
        "a.empty": "",
        "a.flags": [true, false]
      }
    },
    trace.setSpan(context.active(), root)
  )
  chat.addEvent("gen_ai.choice", { "gen_ai.choice.index": 0, message: "x".repeat(200) })
  chat.setStatus({ code: SpanStatusCode.ERROR, message: "rate limited" })
  chat.end()
  root.setStatus({ code: SpanStatusCode.OK })
  root.end()
  await provider.forceFlush()
  const bytes = ProtobufTraceSerializer.serializeRequest([...exporter.getFinishedSpans()])
  if (bytes === undefined) expect.fail("the SDK serialized nothing")
  return bytes
}

// Random requests in the model's form (encodeTraces writes them with the descriptor).
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "gen_ai.system", "é€😀", "\uFEFFbom", "x".repeat(70)))
const id = (length: number) => fc.oneof(fc.constant(""), fc.uint8Array({ minLength: length, maxLength: length }).map((b) => Buffer.from(b).toString("hex")))
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String)
const i64 = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }).map(String)
const anyValue: fc.Arbitrary<AnyValue> = fc.letrec<{ value: AnyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.record({ stringValue: text }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ intValue: i64 }),
    fc.record({ doubleValue: fc.double({ noNaN: true }) }),
    fc.record({ bytesValue: fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString("base64")) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie("value"), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: text, value: tie("value") }), { maxLength: 3 }) }) }),
    fc.constant({})
  )
})).value
const attributes = fc.array(fc.record({ key: text, value: anyValue }), { maxLength: 4 })
const span = fc.record(
  {
    traceId: id(16),
    spanId: id(8),
    name: text,
    startTimeUnixNano: u64,
    endTimeUnixNano: u64,
    attributes,
    events: fc.array(fc.record({ timeUnixNano: u64, name: text, attributes, droppedAttributesCount: fc.nat(5) }), { maxLength: 2 }),
    links: fc.array(fc.record({ traceId: id(16), spanId: id(8), attributes, traceState: text, flags: fc.nat(300) }), { maxLength: 2 }),
    parentSpanId: id(8),
    traceState: text,
    flags: fc.nat(1000),
    kind: fc.integer({ min: -2, max: 5 }),
    droppedAttributesCount: fc.nat(3),
    droppedEventsCount: fc.nat(3),
    droppedLinksCount: fc.nat(3),
    status: fc.record({ code: fc.integer({ min: -1, max: 2 }), message: text })
  },
  { requiredKeys: ["traceId", "spanId", "name", "startTimeUnixNano", "endTimeUnixNano", "attributes", "events", "links"] }
)
const request: fc.Arbitrary<TracesRequest> = fc.record({
  resourceSpans: fc.array(
    fc.record(
      {
        resource: fc.record({ attributes, droppedAttributesCount: fc.nat(3) }),
        schemaUrl: text,
        scopeSpans: fc.array(
          fc.record({ scope: fc.record({ name: text, version: text, attributes }, { requiredKeys: ["name"] }), schemaUrl: text, spans: fc.array(span, { maxLength: 3 }) }, { requiredKeys: ["spans"] }),
          { maxLength: 2 }
        )
      },
      { requiredKeys: ["scopeSpans"] }
    ),
    { maxLength: 2 }
  )
})

/** A request's bytes changed: one byte set, cut short, two bytes inserted, or a slice repeated at the end. */
const mutated = fc.tuple(request.map(encodeTraces), fc.nat(), fc.nat(255), fc.nat(3), fc.nat(40)).map(([bytes, at, byte, how, length]) => {
  const copy = Buffer.from(bytes)
  if (copy.length === 0) return copy
  const offset = at % copy.length
  if (how === 0) {
    copy[offset] = byte
    return copy
  }
  if (how === 1) return copy.subarray(0, offset)
  if (how === 2) return Buffer.concat([copy.subarray(0, offset), Buffer.from([byte, length]), copy.subarray(offset)])
  return Buffer.concat([copy, copy.subarray(offset, offset + length)])
})

describe("TracesReader: trace requests read in one pass, as protobufjs read them", () => {
  it("reads the OpenTelemetry SDK's own requests as protobufjs does, to the same text", async () => {
    const bytes = await sdkRequest()
    expect(agree(bytes)).toBe("accepted")
    const model = Either.getOrThrow(readTraces(bytes))
    const spans = model.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
    expect(spans.map((s) => s.name).sort()).toEqual(["chat gpt-4o", "invoke_agent planner"])
    const chat = spans.find((s) => s.name === "chat gpt-4o")
    expect(chat?.attributes.find((a) => a.key === "a.big")?.value).toEqual({ intValue: "9007199254740991" })
    expect(chat?.attributes.find((a) => a.key === "a.negative")?.value).toEqual({ intValue: "-7" })
    expect(chat?.attributes.find((a) => a.key === "a.unicode")?.value).toEqual({ stringValue: "héllo wörld ✓ 😀" })
    expect(chat?.status).toEqual({ code: 2, message: "rate limited" })
    // flags: sampled (0x01) and OTLP's "is_remote is known" bit (0x100) the SDK sets on links
    expect(chat?.links[0]).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", flags: 0x101 })
  })

  it("agrees on random requests, byte for byte", () => {
    fc.assert(fc.property(request, (value) => {
      const bytes = encodeTraces(value)
      expect(agree(bytes)).toBe("accepted")
    }), { numRuns: 600 })
  })

  it("agrees on mutated requests: the same ones refused, the others read to the same text", () => {
    const seen = { accepted: 0, refused: 0 }
    fc.assert(fc.property(mutated, (bytes) => {
      seen[agree(bytes)]++
    }), { numRuns: 4000 })
    // both outcomes were exercised, not only one
    expect(seen.accepted).toBeGreaterThan(200)
    expect(seen.refused).toBeGreaterThan(200)
  })

  it("agrees on random bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      agree(bytes)
    }), { numRuns: 3000 })
  })

  it("follows protobuf's rules where a request says a thing twice or in another form", () => {
    const field = (number: number, wire: number, ...payload: ReadonlyArray<number>) => [(number << 3) | wire, ...payload]
    const delimited = (number: number, body: ReadonlyArray<number>) => field(number, 2, body.length, ...body)
    const utf8 = (value: string) => [...Buffer.from(value, "utf8")]
    const requestOf = (spanBody: ReadonlyArray<number>, resourceSpanExtra: ReadonlyArray<number> = []) =>
      Uint8Array.from(delimited(1, [...delimited(2, delimited(2, spanBody)), ...resourceSpanExtra]))
    const only = (bytes: Uint8Array) => {
      expect(agree(bytes)).toBe("accepted")
      return Either.getOrThrow(readTraces(bytes)).resourceSpans[0]!
    }
    const keyValue = (key: string, value: ReadonlyArray<number>) => delimited(9, [...delimited(1, utf8(key)), ...delimited(2, value)])
    // a oneof said twice: the last case wins
    const twice = only(requestOf([...delimited(5, utf8("s")), ...keyValue("k", [...delimited(1, utf8("text")), ...field(3, 0, 5)])]))
    expect(twice.scopeSpans[0]!.spans[0]!.attributes).toEqual([{ key: "k", value: { intValue: "5" } }])
    // a scalar said again as its default clears it; a name with the wrong wire type is skipped
    const cleared = only(requestOf([...delimited(5, utf8("first")), ...delimited(5, []), ...field(6, 0, 3), ...field(6, 0, 0), ...field(5, 0, 7)]))
    expect(cleared.scopeSpans[0]!.spans[0]).toMatchObject({ name: "" })
    expect(cleared.scopeSpans[0]!.spans[0]).not.toHaveProperty("kind")
    // a message said twice is merged: the resource's attributes from both
    const resource = (key: string) => delimited(1, delimited(1, [...delimited(1, utf8(key)), ...delimited(2, delimited(1, utf8("v")))]))
    const merged = only(requestOf(delimited(5, utf8("s")), [...resource("a"), ...resource("b")]))
    expect(merged.resource?.attributes.map((a) => a.key)).toEqual(["a", "b"])
    // an array said twice in one value (and a value said twice in one attribute) is one array of both
    const int = (n: number) => delimited(1, field(3, 0, n))
    const arrays = only(requestOf([
      ...delimited(5, utf8("s")),
      ...delimited(9, [...delimited(1, utf8("k")), ...delimited(2, [...delimited(5, int(1)), ...delimited(5, int(2))]), ...delimited(2, delimited(5, int(3)))])
    ]))
    expect(arrays.scopeSpans[0]!.spans[0]!.attributes[0]!.value).toEqual({ arrayValue: { values: [{ intValue: "1" }, { intValue: "2" }, { intValue: "3" }] } })
    // a count said again: the later one, and a later zero clears it
    const dropped = (first: number, second: number) =>
      only(requestOf(delimited(5, utf8("s")), [...delimited(1, field(2, 0, first)), ...delimited(1, field(2, 0, second))])).resource
    expect(dropped(3, 5)).toEqual({ attributes: [], droppedAttributesCount: 5 })
    expect(dropped(3, 0)).toEqual({ attributes: [] })
    // unknown fields, a group among them, are skipped
    const unknown = only(requestOf([...delimited(5, utf8("s")), ...field(99, 0, 1), ...field(98, 3), ...field(1, 0, 1), ...field(98, 4), ...field(97, 5, 1, 2, 3, 4)]))
    expect(unknown.scopeSpans[0]!.spans[0]!.name).toBe("s")
    // refused: a string that is not UTF-8, field number 0, an end-group tag out of place
    for (const bad of [requestOf(delimited(5, [0x61, 0xed, 0xa0, 0x80])), requestOf(field(0, 0, 1)), requestOf(field(5, 4))]) {
      expect(agree(bad)).toBe("refused")
    }
  })
})
