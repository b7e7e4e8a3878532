/**
 * Shared span reading for the span-based formats (`otel`, `openinference`; DECISIONS §12): turns
 * each of the span container shapes into flat lists of spans and log records, groups them by trace,
 * arranges each trace's spans into a tree (iteratively: no recursion over the input, cycles broken
 * and counted), and offers the span importers one way of building a normalized trace from it
 * (`readSpanTraces`): chat messages in each of the common shapes, history de-duplication through
 * `TraceBuilder.addHistory`, tool executions matched with the tool calls the model asked for,
 * errors, handoffs, and task / success derived the same way for both formats; also the message
 * helpers both formats use (`ModelCall`, `stampMessages`, `firstText`).
 *
 * Shapes read: OTLP/JSON `ExportTraceServiceRequest` (`resourceSpans` → `scopeSpans` (or the older
 * `instrumentationLibrarySpans`) → `spans`, attributes as KeyValue lists of AnyValues), an
 * `ExportLogsServiceRequest` (`resourceLogs` → `scopeLogs` → `logRecords`), both together, a
 * list of such requests (JSON Lines), a plain list of spans as SDKs and exporters write them
 * (plain `attributes` objects; ids as `traceId`/`spanId`/`parentSpanId`, `trace_id`/`span_id`/
 * `parent_span_id`/`parent_id`, or in `context`/`spanContext`/`parentSpanContext`; times as ISO
 * strings, epoch numbers in s/ms/µs/ns, OTel hrtime `[seconds, nanos]` or `*UnixNano` strings),
 * wrappers such as `{spans: [...]}` and AWS ADOT's `{session_id, span_count, spans}`, and a single
 * span object.
 *
 * The modules under `Spans/`: `Shapes` (span, event, log record), `Attributes` (AnyValues,
 * JSON-encoded values, flattened attribute trees), `Times`, `Records` (the container shapes),
 * `Sample` (detection), `Tree` (traces, trees, timelines), `Messages` (chat messages),
 * `Session` (the interpreter's interface and span error helpers) and `Read` (building traces).
 */
export { attributesOf, fromAnyValue, parseJsonish, textOf, unflatten, type Attributes } from "./Spans/Attributes.js"
export { firstText, hasContent, parseMessage, parseMessages, roleOf, stampMessage, stampMessages, type Message, type MessageItem, type MessageParts, type ModelCall } from "./Spans/Messages.js"
export { readSpanTraces } from "./Spans/Read.js"
export { operationOf, readSpanBody, statusOf, traceloopEntityOf } from "./Spans/Records.js"
export { isOpenInferenceSample, sampleSpans, type SpanSample } from "./Spans/Sample.js"
export {
  addSpanErrors,
  durationOf,
  exceptionText,
  spanFacts,
  spanErrorText,
  spanSource,
  type CallPlace,
  type SpanInterpreter,
  type ToolExecution,
  type ToolOutcome,
  type TraceSession
} from "./Spans/Session.js"
export type { LogRecord, Span, SpanBody, SpanEvent, SpanStatus, StatusCode } from "./Spans/Shapes.js"
export { isoOf, nanosOf } from "./Spans/Times.js"
export { buildTree, groupByTrace, orderSpans, timeline, walkTree, type SpanTree, type Step, type TraceGroup } from "./Spans/Tree.js"
