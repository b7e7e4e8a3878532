/**
 * The analysis engine (DECISIONS §3, §4). Per mode:
 * - quick: 1 call, small budget: findings and interventions in one pass;
 * - standard: 2 calls, medium budget: analysis, then interventions grounded in the playbooks;
 * - forensic: 4 passes, large budget: analysis (map over up to 4 chunks when the trace is beyond
 *   the budget), verification of each finding against only the elements it cites, a root-cause
 *   pass, and playbook grounding.
 * Signals are computed first and given as facts. A schema-invalid answer gets one repair attempt
 * that shows the model its validation errors. The final output is grounded server-side.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Catalogue } from "../Catalogue/Catalogue.js"
import type { LoadedPattern } from "../Catalogue/CatalogueLoader.js"
import type { AnalysisResult, ModelOutput, Signals } from "../Catalogue/Detection.js"
import { weakerSeverity } from "../Catalogue/Severity.js"
import type { Mode } from "../Catalogue/Resources.js"
import { AppConfig } from "../Config.js"
import { AnalyzerError, type LlmResolutionError } from "../Errors.js"
import { type JsonValue, structuredOutputSchema } from "../Catalogue/JsonSchema.js"
import { Home } from "../Home/Home.js"
import { recordModelCall } from "../Observability/Metrics.js"
import type { ModelCall, ModelMessage, ModelReply } from "../Providers/ModelCall.js"
import { ModelClients } from "../Providers/ModelClients.js"
import { withCallSpan } from "../Providers/CallSpan.js"
import { Tracing } from "../Observability/Tracing.js"
import { resolveProvider } from "../Providers/Resolution.js"
import { oneLine } from "../Text.js"
import { type AnalysisRequest, Analyzer } from "./Analyzer.js"
import { AnalysisProgress, type ProgressState } from "./Progress.js"
import { groundOutput } from "./Evidence.js"
import {
  analysisMessage,
  candidatesBlock,
  GROUNDING_PASS,
  groundingMessage,
  intakeNote,
  repairMessage,
  ROOT_CAUSE_INSTRUCTIONS,
  rootCauseMessage,
  systemPrompt,
  VERIFICATION_INSTRUCTIONS,
  verificationMessage
} from "./Prompts.js"
import { chunkTrace, renderTrace, type RenderedView } from "./Render.js"
import { elementText, resolveRef } from "./TraceRefs.js"

/** Budgets in characters (about 4 characters per token): trace view, per element, output. */
export const MODE_PLANS = {
  quick: { traceChars: 18_000, elementChars: 1_500, maxOutputTokens: 4096, maxChunks: 1 },
  standard: { traceChars: 100_000, elementChars: 4_000, maxOutputTokens: 8192, maxChunks: 1 },
  forensic: { traceChars: 320_000, elementChars: 8_000, maxOutputTokens: 8192, maxChunks: 4 }
} as const satisfies Record<Mode, { traceChars: number; elementChars: number; maxOutputTokens: number; maxChunks: number }>

const Verdicts = Schema.Struct({
  verdicts: Schema.Array(
    Schema.Struct({
      finding_id: Schema.String.annotations({ description: "The id of the finding judged." }),
      verdict: Schema.Literal("confirmed", "weakened", "refuted").annotations({
        description: "What the cited elements show of the finding."
      }),
      confidence: Schema.Number.pipe(Schema.between(0, 1)).annotations({ description: "Confidence after verification, 0..1." }),
      reason: Schema.String.annotations({ description: "One sentence: why." })
    })
  )
}).annotations({ identifier: "Verdicts", description: "Verification verdicts, one per finding." })
// Made on the first verification call (JSON Schema generation at import was about 3 ms of start-up).
let verdictsJson: ReturnType<typeof structuredOutputSchema> | undefined
const verdictsJsonSchema = () => (verdictsJson ??= structuredOutputSchema(Verdicts))
const decodeVerdicts = Schema.decodeUnknownEither(Verdicts, { errors: "all", onExcessProperty: "ignore" })

export interface UsageCounter {
  calls: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
}

const formatIssues = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 12)
    .map((issue) => `- ${issue.path.length === 0 ? "(root)" : issue.path.map(String).join(".")}: ${issue.message}`)
    .join("\n")

/** Merges the drafts of a forensic map step into one draft (ids made unique per chunk). */
export const mergeDrafts = (drafts: ReadonlyArray<ModelOutput>): ModelOutput => {
  const [first, ...rest] = drafts
  if (first === undefined) throw new Error("mergeDrafts needs at least one draft")
  if (rest.length === 0) return first
  return {
    ...first,
    summary: drafts.map((draft, i) => `Part ${i + 1}: ${draft.summary}`).join(" "),
    findings: drafts.flatMap((draft, i) => draft.findings.map((finding) => ({ ...finding, id: `p${i + 1}-${finding.id}` }))),
    interventions: drafts.flatMap((draft) => draft.interventions)
  }
}

/** Applies verification verdicts: refuted findings go, weakened ones lose a severity level. */
export const applyVerdicts = (draft: ModelOutput, verdicts: typeof Verdicts.Type["verdicts"]): ModelOutput => {
  const byId = new Map(verdicts.map((verdict) => [verdict.finding_id, verdict]))
  return {
    ...draft,
    findings: draft.findings.flatMap((finding) => {
      const verdict = byId.get(finding.id)
      if (verdict === undefined) return [finding]
      if (verdict.verdict === "refuted") return []
      if (verdict.verdict === "weakened") {
        return [{ ...finding, severity: weakerSeverity(finding.severity), confidence: Math.min(finding.confidence, verdict.confidence) }]
      }
      return [{ ...finding, confidence: verdict.confidence }]
    })
  }
}

/** The full text of the elements a set of findings cites, for the verification pass. */
export const citedElements = (trace: unknown, findings: ModelOutput["findings"], cap: number): string => {
  const refs = Array.from(new Set(findings.flatMap((finding) => finding.evidence.map((item) => item.ref))))
  return refs.flatMap((ref) => {
    const element = resolveRef(trace, ref)
    if (element === undefined) return []
    const text = oneLine(elementText(element))
    return [`${ref} ${text.length > cap ? `${text.slice(0, cap)} […]` : text}`]
  }).join("\n")
}

export const handoffFor = (pattern: LoadedPattern, profile: string, interventions: ModelOutput["interventions"]) => {
  const upstream = pattern.composition.upstream
  const downstream = pattern.composition.downstream[profile] ?? []
  const composed = interventions.flatMap((i) => (i.compose_pattern === null ? [] : [i.compose_pattern]))
  const downstreamNames = Array.from(new Set([...downstream.map((link) => link.pattern), ...composed]))
  const reasons = [...upstream.map((link) => `${link.pattern} (before): ${link.reason}`), ...downstream.map((link) => `${link.pattern}: ${link.reason}`)]
  return {
    upstream: upstream.map((link) => link.pattern),
    downstream: downstreamNames,
    rationale: reasons.length > 0
      ? reasons.join(" ")
      : `The composition manifest of ${pattern.code.slug} names no pattern for the profile ${profile}.`
  }
}

export const AnalyzerLive = Layer.effect(
  Analyzer,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const clients = yield* ModelClients
    const catalogue = yield* Catalogue
    const home = yield* Home
    const tracing = yield* Tracing

    /** One structured call, validated, with one repair attempt on schema failure. */
    const callValidated = <A>(
      generate: (call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>,
      request: {
        readonly system: ReadonlyArray<string>
        readonly user: string
        readonly objectName: string
        readonly jsonSchema: { readonly [key: string]: JsonValue }
        readonly maxOutputTokens: number
        readonly cacheKey: string
        readonly deadline: number
      },
      validate: (value: unknown) => Either.Either<A, ParseResult.ParseError>
    ): Effect.Effect<A, AnalyzerError> =>
      Effect.gen(function*() {
        const messages: Array<ModelMessage> = [{ role: "user", content: request.user }]
        const call = (): ModelCall => ({
          system: request.system,
          messages,
          objectName: request.objectName,
          jsonSchema: request.jsonSchema,
          maxOutputTokens: request.maxOutputTokens,
          cacheKey: request.cacheKey,
          deadline: request.deadline
        })
        const first = yield* generate(call())
        const checked = validate(first.value)
        if (Either.isRight(checked)) return checked.right
        const errors = formatIssues(checked.left)
        messages.push({ role: "assistant", content: JSON.stringify(first.value) }, { role: "user", content: repairMessage(errors) })
        const second = yield* generate(call())
        const rechecked = validate(second.value)
        if (Either.isRight(rechecked)) return rechecked.right
        return yield* new AnalyzerError({
          message: `the model's output failed the detection schema after one repair attempt: ${
            formatIssues(rechecked.left).replace(/\n/g, " ").slice(0, 600)
          }`
        })
      })

    const analyze = (request: AnalysisRequest): Effect.Effect<AnalysisResult, AnalyzerError | LlmResolutionError> =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        const target = yield* resolveProvider(config.providers, request.model)
        const { pattern, mode } = request
        const plan = MODE_PLANS[mode]
        const signals: Signals = request.trace.signals()
        const trace = request.trace.canonical
        const origin = request.origin
        const derived: ReadonlySet<string> = new Set(origin?.derived ?? [])
        const originNote = origin === undefined ? undefined : intakeNote(origin)
        const candidates = origin === undefined ? undefined : candidatesBlock(origin.candidates, origin.refOfEvent)
        const usage: UsageCounter = { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }
        // Every call of one pattern and mode shares its static prefix: one cache routing key for them.
        const cacheKey = `pattern-analysis-service:${pattern.code.slug}:${mode}`
        const progress = yield* AnalysisProgress
        /** Calls in the verification pass and the evidence check show as verifying. */
        let phase: Extract<ProgressState, "calling" | "verifying"> = "calling"
        const tell = () =>
          progress.report(pattern.code.slug, { state: phase, calls: usage.calls, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens })
        /** A model call, counted and measured: metrics and one telemetry line (no trace content, no keys). */
        const generate = (call: ModelCall): Effect.Effect<ModelReply, AnalyzerError> =>
          Effect.gen(function*() {
            tell()
            const started = yield* Clock.currentTimeMillis
            const record = (outcome: "ok" | "error", reply: ModelReply | undefined) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.all([
                  recordModelCall({
                    provider: target.provider,
                    model: target.model,
                    outcome,
                    inputTokens: reply?.inputTokens ?? 0,
                    cachedInputTokens: reply?.cachedInputTokens ?? 0,
                    outputTokens: reply?.outputTokens ?? 0,
                    seconds: (now - started) / 1000
                  }),
                  home.telemetry({
                    time: new Date(now).toISOString(),
                    request_id: request.requestId,
                    pattern: pattern.code.slug,
                    mode,
                    provider: target.provider,
                    model: target.model,
                    input_tokens: reply?.inputTokens ?? 0,
                    cached_input_tokens: reply?.cachedInputTokens ?? 0,
                    output_tokens: reply?.outputTokens ?? 0,
                    elapsed_ms: now - started,
                    outcome
                  })
                ], { discard: true }))
            const reply = yield* withCallSpan(
              tracing,
              target,
              call,
              { pattern: pattern.code.slug, mode },
              clients.generate(target, call).pipe(
                Effect.onExit((exit) => record(exit._tag === "Success" ? "ok" : "error", exit._tag === "Success" ? exit.value : undefined))
              )
            )
            usage.calls += 1
            usage.inputTokens += reply.inputTokens
            usage.outputTokens += reply.outputTokens
            usage.cachedInputTokens += reply.cachedInputTokens
            tell()
            yield* request.answered
            return reply
          })
        const detectionCall = (system: ReadonlyArray<string>, user: string) =>
          callValidated(
            generate,
            {
              system,
              user,
              objectName: `${pattern.code.name}Detection`,
              jsonSchema: pattern.code.modelOutputJsonSchema(),
              maxOutputTokens: plan.maxOutputTokens,
              cacheKey,
              deadline: request.deadline
            },
            pattern.code.validateModelOutput
          )

        let output: ModelOutput
        let coverage: { elements_total: number; elements_seen: number; condensed: boolean; chunks: number }
        if (mode === "forensic") {
          const chunks = chunkTrace(trace, signals, plan.traceChars, plan.elementChars, plan.maxChunks, derived)
          const views = chunks.views
          const drafts = yield* Effect.forEach(
            views,
            (view, index) =>
              detectionCall(
                systemPrompt(pattern, { instructions: pattern.prompts.forensic }),
                analysisMessage(pattern, signals, view, { index, count: views.length }, originNote, candidates)
              ),
            { concurrency: 2 }
          )
          const merged = mergeDrafts(drafts)
          // Verify against the cited elements only; evidence that does not exist is removed first.
          phase = "verifying"
          tell()
          const pregrounded = groundOutput(merged, trace, pattern.playbookKeys, catalogue.slugs, pattern.code.slug).output
          const verdicts = pregrounded.findings.length === 0
            ? { verdicts: [] }
            : yield* callValidated(
              generate,
              {
                system: systemPrompt(pattern, { instructions: VERIFICATION_INSTRUCTIONS }),
                user: verificationMessage(pregrounded.findings, citedElements(trace, pregrounded.findings, plan.elementChars)),
                objectName: "Verdicts",
                jsonSchema: verdictsJsonSchema(),
                maxOutputTokens: 4096,
                cacheKey,
                deadline: request.deadline
              },
              decodeVerdicts
            )
          const verified = applyVerdicts(pregrounded, verdicts.verdicts)
          phase = "calling"
          const overview: RenderedView = renderTrace(trace, signals, plan.traceChars, plan.elementChars, derived)
          const rooted = yield* detectionCall(
            systemPrompt(pattern, { instructions: ROOT_CAUSE_INSTRUCTIONS }),
            rootCauseMessage(pattern, verified, signals, overview)
          )
          output = yield* detectionCall(systemPrompt(pattern, GROUNDING_PASS), groundingMessage(rooted))
          coverage = {
            elements_total: chunks.elementsTotal,
            elements_seen: chunks.elementsSeen,
            condensed: chunks.elementsSeen < chunks.elementsTotal,
            chunks: views.length
          }
        } else {
          const view = renderTrace(trace, signals, plan.traceChars, plan.elementChars, derived)
          const draft = yield* detectionCall(
            systemPrompt(pattern, { instructions: pattern.prompts[mode] }),
            analysisMessage(pattern, signals, view, undefined, originNote, candidates)
          )
          output = mode === "standard"
            ? yield* detectionCall(systemPrompt(pattern, GROUNDING_PASS), groundingMessage(draft))
            : draft
          coverage = { elements_total: view.elementsTotal, elements_seen: view.elementsSeen, condensed: view.condensed, chunks: 1 }
        }

        phase = "verifying"
        tell()
        const grounded = groundOutput(
          output,
          trace,
          pattern.playbookKeys,
          catalogue.slugs,
          pattern.code.slug
        )
        const finishedAt = yield* Clock.currentTimeMillis
        const detection = {
          ...grounded.output,
          // Every evidence item of a raw trace points back into it (DECISIONS §12).
          findings: origin === undefined
            ? grounded.output.findings
            : grounded.output.findings.map((finding) => ({
              ...finding,
              evidence: finding.evidence.map((item) => ({ ...item, source: origin.sourceOf(item.ref) }))
            })),
          handoff: handoffFor(pattern, grounded.output.profile, grounded.output.interventions),
          signals,
          evidence_check: grounded.check,
          coverage,
          usage: {
            llm_calls: usage.calls,
            input_tokens: usage.inputTokens,
            cached_input_tokens: usage.cachedInputTokens,
            output_tokens: usage.outputTokens,
            elapsed_ms: finishedAt - startedAt
          },
          drift: null,
          generated_at: new Date(finishedAt).toISOString(),
          ...(origin === undefined ? {} : {
            intake: {
              format: origin.format,
              trace_id: origin.traceId,
              events: origin.events,
              skipped: origin.skipped,
              success: origin.success,
              derived: origin.derived,
              hints: origin.hinted
            }
          })
        }
        return { model: target.model, detection }
      })

    return { analyze }
  })
)
