/**
 * The commands in this process (the default): the service's own Layers (Resources.ts), the
 * same configuration from the environment and the same providers, no HTTP server. The analysis
 * resources are built at once; the runs and problems over them (the store, SQL, OTLP) only when a
 * command first asks for them, so `svc diagnose FILE` neither loads nor builds them (issue 52). The guards run
 * per call as for `svc mcp` (SVC_API_KEY, its role, rate limit); the services report progress to
 * the command's listener. Logs go to stderr, at SVC_LOG_LEVEL when it is set, else errors only.
 * The runs are those of the store the configuration names (SVC_HOME/svc.db),
 * with no workers here: a run submitted in-process waits for a `svc serve` on the same store.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { analysisBody, AnalyzeService } from "../../Analysis/AnalyzeService.js"
import { AnalysisProgress, type AnalysisProgressShape } from "../../Analysis/Progress.js"
import { AnalysisResourcesLive, RunsLayerLive } from "../../Resources.js"
import { Catalogue } from "../../Catalogue/Catalogue.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import { Caller, callerFrom } from "../../Auth/Caller.js"
import { LOCAL_OPERATIONS, type Operation } from "../../Auth/Operations.js"
import { Scopes } from "../../Auth/Scopes.js"
import { type ApiError, errorKinds } from "../../Errors.js"
import { TraceReader } from "../../Intake/TraceReader.js"
import { NO_QUERY } from "../../Intake/Intake.js"
import * as Program from "../../Program.js"
import type { ProblemsServiceShape } from "../../Problems/Service.js"
import { makeLocalCaller } from "../LocalCaller.js"
import { type Backend, CliFailure, type ProblemsBackend, type RunsBackend } from "./Backend.js"
import { renderReport } from "./Report.js"

const failureOf = (error: ApiError) => new CliFailure({ kind: errorKinds[error._tag].kind, message: error.message })

const decoder = new TextDecoder()
const json = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes))

export interface LocalOptions {
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** The command, for messages (`svc analyze`). */
  readonly command: string
  readonly progress: AnalysisProgressShape
  /**
   * --max-bytes: the body limit of this in-process service, and at least as many characters of
   * content (a long coding-agent session); the event limits stay as configured.
   */
  readonly maxBytes: Option.Option<number>
}

export const makeLocalBackend = (options: LocalOptions): Effect.Effect<Backend, CliFailure, Scope.Scope> =>
  Effect.gen(function*() {
    // Configuration and logging as every program starts (Program.ts); a failure to start is a
    // command's failure, its line the same: an invalid configuration is a usage error.
    const startFailure = (cause: Cause.Cause<unknown>) => {
      const failure = Program.startFailureOf(cause)
      return Effect.fail(new CliFailure({ kind: failure.configuration ? "usage" : "unexpected", message: failure.message.slice(0, 600) }))
    }
    const started = yield* Program.start({ stream: "stderr", errorsUnlessSet: true }).pipe(Effect.catchAllCause(startFailure))
    const { logging } = started
    const config = Option.match(options.maxBytes, {
      onNone: () => started.config,
      onSome: (bytes) => ({
        ...started.config,
        limits: {
          ...started.config.limits,
          maxBodyBytes: bytes,
          maxStringChars: Math.max(started.config.limits.maxStringChars, bytes),
          maxTotalChars: Math.max(started.config.limits.maxTotalChars, bytes)
        }
      })
    })
    const context = yield* Layer.build(AnalysisResourcesLive(config).pipe(Layer.provide(logging))).pipe(Effect.catchAllCause(startFailure))
    const analyses = Context.get(context, AnalyzeService)
    const diagnoses = Context.get(context, DiagnoseService)
    const reader = Context.get(context, TraceReader)
    const catalogue = Context.get(context, Catalogue)
    const scopes = Context.get(context, Scopes)
    // The runs and problems, built once over the resources above on first use, in this command's scope.
    const scope = yield* Effect.scope
    const runsParts = yield* Effect.cached(
      Effect.gen(function*() {
        const built = yield* Layer.buildWithScope(RunsLayerLive().pipe(Layer.provide(Layer.succeedContext(context)), Layer.provide(logging)), scope)
        const [{ filterOf, RunsService }, { ProblemsService }] = yield* Effect.promise(() =>
          Promise.all([import("../../Runs/RunsService.js"), import("../../Problems/Service.js")])
        )
        return { runs: Context.get(built, RunsService), problems: Context.get(built, ProblemsService), filterOf }
      }).pipe(Effect.catchAllCause(startFailure))
    )
    const callerFor = (operation: Operation) => makeLocalCaller(options.apiKey, options.command, operation).pipe(Effect.provide(context))
    const inProcess = <A, E extends ApiError | CliFailure>(effect: Effect.Effect<A, E>) =>
      effect.pipe(
        Effect.mapError((error) => (error instanceof CliFailure ? error : failureOf(error))),
        Effect.provideService(AnalysisProgress, options.progress),
        Effect.provide(logging)
      )
    const entryOf = (name: string) => {
      const entry = catalogue.get(name)
      return entry === undefined
        ? Effect.fail(
          new CliFailure({ kind: "unknown_pattern", message: `no pattern named ${JSON.stringify(name.slice(0, 80))}; \`svc patterns\` lists the catalogue` })
        )
        : Effect.succeed(entry)
    }

    /** The caller of a runs operation, its key's name picking the scope. */
    const keyNameFor = (operation: Operation) => Effect.map(Effect.flatten(callerFor(operation)), (caller) => caller.keyName)
    /** `effect` for the caller with this key name (Auth/Caller.ts). */
    const forKey = <A, E>(keyName: string | null, effect: Effect.Effect<A, E, Caller>): Effect.Effect<A, E> => Effect.provideServiceEffect(effect, Caller, callerFrom(scopes, keyName))
    /** The guards for the operation, then `work` on the runs and problems (built on first use) for the caller; `asKey` names another key's scope. */
    const partsCall = <A, E>(operation: Operation, work: (parts: Effect.Effect.Success<typeof runsParts>) => Effect.Effect<A, E, Caller>, asKey?: string) =>
      Effect.flatMap(Effect.zip(keyNameFor(operation), runsParts), ([keyName, parts]) => forKey(asKey ?? keyName, work(parts)))
    const runsBackend: RunsBackend = {
      submit: (envelope, text) =>
        inProcess(partsCall(LOCAL_OPERATIONS["runs submit"], ({ runs }) => Effect.map(runs.submit(envelope, NO_QUERY, text), (submitted) => ({ value: submitted, body: submitted })))),
      list: (query) => inProcess(partsCall(LOCAL_OPERATIONS["runs list"], ({ runs }) => runs.list(query))),
      get: (id) => inProcess(partsCall(LOCAL_OPERATIONS["runs show"], ({ runs }) => Effect.map(runs.get(id), (run) => ({ value: run, body: run })))),
      report: (id, output, artifact) =>
        inProcess(partsCall(LOCAL_OPERATIONS["runs show"], ({ runs }) =>
          Effect.flatMap(runs.report(id), ({ report, context }) => renderReport(output, { report, context: { ...context, artifact }, body: { report } })))),
      retry: (id) => inProcess(partsCall(LOCAL_OPERATIONS["runs retry"], ({ runs }) => Effect.map(runs.retry(id), (run) => ({ value: run, body: run })))),
      explain: (id) => inProcess(partsCall(LOCAL_OPERATIONS["runs explain"], ({ runs }) => Effect.map(runs.explain(id), (run) => ({ value: run, body: run })))),
      retryAll: (status) => inProcess(partsCall(LOCAL_OPERATIONS["runs retry"], ({ runs }) => runs.retryAll(status))),
      exportLines: (query) =>
        inProcess(partsCall(LOCAL_OPERATIONS["runs export"], ({ runs, filterOf }) =>
          Effect.gen(function*() {
            const filter = filterOf(query)
            let text = ""
            let cursor: string | null = null
            do {
              const page: { readonly lines: ReadonlyArray<string>; readonly next: string | null } = yield* runs.exportPage(filter, cursor)
              for (const line of page.lines) text += `${line}\n`
              cursor = page.next
            } while (cursor !== null)
            return text
          }))),
      importLines: (lines) => inProcess(partsCall(LOCAL_OPERATIONS["runs import"], ({ runs }) => runs.importLines(lines)))
    }

    const problemsCall = <A, E extends ApiError>(operation: Operation, work: (problems: ProblemsServiceShape) => Effect.Effect<A, E, Caller>, asKey?: string) =>
      inProcess(partsCall(operation, ({ problems }) => work(problems), asKey))
    const problemsBackend: ProblemsBackend = {
      list: (query) => problemsCall(LOCAL_OPERATIONS["problems list"], (problems) => problems.list(query)),
      get: (id) => problemsCall(LOCAL_OPERATIONS["problems show"], (problems) => problems.get(id)),
      update: (id, update) => problemsCall(LOCAL_OPERATIONS["problems update"], (problems) => problems.update(id, update)),
      merge: (id, into) => problemsCall(LOCAL_OPERATIONS["problems merge"], (problems) => problems.merge(id, into)),
      detach: (id, runId) => problemsCall(LOCAL_OPERATIONS["problems detach"], (problems) => problems.detach(id, runId)),
      compare: (query) => problemsCall(LOCAL_OPERATIONS["problems compare"], (problems) => problems.compare(query)),
      digest: problemsCall(LOCAL_OPERATIONS.digest, (problems) => problems.digest),
      // the caller's key needs the admin role; --scope names the key whose scope is rebuilt (this host's operator reaches every scope's store)
      regroup: (scope) => problemsCall(LOCAL_OPERATIONS["problems regroup"], (problems) => problems.regroup, scope)
    }

    return {
      where: "in-process",
      readLimit: config.limits.maxBodyBytes,
      analyze: (slug, envelope) =>
        Effect.flatMap(entryOf(slug), () =>
          inProcess(Effect.gen(function*() {
            const caller = yield* yield* callerFor(LOCAL_OPERATIONS.analyze)
            const { prepared, outcome } = yield* forKey(caller.keyName, analyses.analyze(slug, envelope, caller.requestId))
            const answer = analysisBody(prepared, outcome)
            return { answer, body: answer }
          }))),
      diagnose: (envelope) =>
        inProcess(Effect.gen(function*() {
          const caller = yield* yield* callerFor(LOCAL_OPERATIONS.diagnose)
          const { report, events } = yield* forKey(caller.keyName, diagnoses.diagnose(envelope, caller.requestId))
          return { report, events, body: { report } }
        })),
      check: (envelope) =>
        inProcess(Effect.gen(function*() {
          const caller = yield* yield* callerFor(LOCAL_OPERATIONS.check)
          const result = yield* forKey(caller.keyName, diagnoses.check(envelope))
          return { value: result, body: result }
        })),
      normalize: (envelope) =>
        inProcess(Effect.gen(function*() {
          const caller = yield* yield* callerFor(LOCAL_OPERATIONS.normalize)
          yield* analyses.pace
          return yield* forKey(caller.keyName, reader.normalize(envelope))
        })),
      patterns: Effect.sync(() => json(catalogue.listJson)),
      pattern: (name, part) =>
        Effect.map(entryOf(name), (entry) => {
          switch (part) {
            case "record":
              return json(entry.recordJson)
            case "playbooks":
              return json(entry.playbooksJson)
            case "composition":
              return json(entry.compositionJson)
            case "citations":
              return decoder.decode(entry.citations)
          }
        }),
      runs: runsBackend,
      problems: problemsBackend
    } satisfies Backend
  })
