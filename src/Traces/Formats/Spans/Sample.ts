/**
 * Detection samples of span bodies (DECISIONS §12): attribute keys, event names and scope names
 * of the first few span records, read with bounded loops only and never throwing.
 */
import * as Predicate from "effect/Predicate"
import { str } from "../Common.js"
import { first, type Json } from "./Attributes.js"
import { hasOtlpKeys, isAttributeMap, looksLikeSpan, scopeNameOf } from "./Records.js"

export interface SpanSample {
  /** The body has OTLP top-level keys (`resourceSpans` / `resourceLogs`). */
  readonly otlp: boolean
  /** Attribute keys, event names and the scope name of the first few span-like records. */
  readonly records: ReadonlyArray<{ readonly keys: ReadonlyArray<string>; readonly eventNames: ReadonlyArray<string>; readonly scope: string | undefined }>
}

const MAX_SAMPLE_KEYS = 400

const sampleKeys = (value: unknown): Array<string> => {
  if (Array.isArray(value)) {
    const keys: Array<string> = []
    for (let i = 0; i < value.length && i < MAX_SAMPLE_KEYS; i++) {
      const entry: unknown = value[i]
      if (Predicate.isRecord(entry) && typeof entry["key"] === "string") keys.push(entry["key"])
    }
    return keys
  }
  return Predicate.isRecord(value) ? Object.keys(value).slice(0, MAX_SAMPLE_KEYS) : []
}

const sampleRecord = (record: Json, scope: string | undefined) => {
  const events = first(record["events"], record["span_events"])
  const eventNames: Array<string> = []
  if (Array.isArray(events)) {
    for (let i = 0; i < events.length && i < 20; i++) {
      const event: unknown = events[i]
      if (Predicate.isRecord(event)) {
        const name = str(event["name"]) ?? str(event["event_name"]) ?? str(event["eventName"])
        if (name !== undefined) eventNames.push(name)
      }
    }
  }
  return { keys: sampleKeys(record["attributes"]), eventNames, scope: scopeNameOf(record) ?? scope }
}

/**
 * The first `limit` span records of a body (for `detect`): cheap, bounded loops only, and never
 * throws. Records must look like spans (an `attributes` field, or ids) to be sampled.
 */
export const sampleSpans = (body: unknown, limit = 20): SpanSample => {
  const records: Array<SpanSample["records"][number]> = []
  const take = (list: unknown, scope: string | undefined) => {
    if (!Array.isArray(list)) return
    for (let i = 0; i < list.length && records.length < limit; i++) {
      const record: unknown = list[i]
      if (Predicate.isRecord(record) && ("attributes" in record || looksLikeSpan(record))) records.push(sampleRecord(record, scope))
    }
  }
  const otlpSample = (request: Json) => {
    const groups = request["resourceSpans"]
    if (!Array.isArray(groups)) return
    for (let g = 0; g < groups.length && g < 20 && records.length < limit; g++) {
      const group: unknown = groups[g]
      if (!Predicate.isRecord(group)) continue
      const scopes = first(group["scopeSpans"], group["instrumentationLibrarySpans"])
      if (!Array.isArray(scopes)) continue
      for (let s = 0; s < scopes.length && s < 20 && records.length < limit; s++) {
        const scope: unknown = scopes[s]
        if (Predicate.isRecord(scope)) take(scope["spans"], scopeNameOf(scope))
      }
    }
  }
  try {
    if (Array.isArray(body)) {
      const head: unknown = body[0]
      if (Predicate.isRecord(head) && hasOtlpKeys(head)) {
        for (let i = 0; i < body.length && i < 5; i++) {
          const item: unknown = body[i]
          if (Predicate.isRecord(item)) otlpSample(item)
        }
        return { otlp: true, records }
      }
      if (Predicate.isRecord(head) && Array.isArray(head["spans"]) && !looksLikeSpan(head)) {
        take(head["spans"], undefined)
        return { otlp: false, records }
      }
      take(body, undefined)
      return { otlp: false, records }
    }
    if (!Predicate.isRecord(body)) return { otlp: false, records }
    if (hasOtlpKeys(body)) {
      otlpSample(body)
      return { otlp: Array.isArray(body["resourceSpans"]) || Array.isArray(body["resourceLogs"]), records }
    }
    if (Array.isArray(body["spans"])) take(body["spans"], undefined)
    else if (looksLikeSpan(body) && "attributes" in body) records.push(sampleRecord(body, undefined))
    else if (isAttributeMap(body)) records.push(sampleRecord({ attributes: body }, undefined))
    return { otlp: false, records }
  } catch {
    return { otlp: false, records: [] }
  }
}

/** True when a sampled record carries OpenInference attributes (or comes from its instrumentation). */
export const isOpenInferenceSample = (record: SpanSample["records"][number]): boolean =>
  (record.scope !== undefined && record.scope.toLowerCase().startsWith("openinference")) ||
  record.keys.some(
    (key) => key === "openinference.span.kind" || key.startsWith("llm.input_messages") || key.startsWith("llm.output_messages")
  )
