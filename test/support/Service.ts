/**
 * Starts the real application in this process on a loopback port (port 0), configured through
 * ConfigProvider.fromMap exactly as the environment would configure it. Tests talk HTTP to it.
 */
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { AppLive } from "../../src/App.js"
import { withoutRuntimeMetrics } from "../../src/Program.js"
import { appConfig, type AppConfigShape } from "../../src/Config.js"
import { ServerHandle } from "../../src/Edge/Server.js"
import { Readiness } from "../../src/Lifecycle/Readiness.js"

export interface RunningService {
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
  readonly setReadiness: (state: "starting" | "ready" | "draining") => Promise<void>
}

export const startService = (env: Record<string, string> = {}): Promise<RunningService> => startServiceWith(env, AppLive)

/** The same with another composition of the application (a test's variant of `AppLive`). */
export const startServiceWith = async (
  env: Record<string, string>,
  app: (config: AppConfigShape) => Layer.Layer<ServerHandle | Readiness, unknown>
): Promise<RunningService> => {
  // No run workers unless a test asks (SVC_WORKERS): they would open SVC_HOME's store at start.
  const provider = ConfigProvider.fromMap(new Map(Object.entries({ SVC_PORT: "0", SVC_LOG_LEVEL: "none", SVC_WORKERS: "0", ...env })))
  return Effect.runPromise(
    Effect.gen(function*() {
      const config = yield* appConfig
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(app(config), scope).pipe(
        Effect.tapErrorCause(() => Scope.close(scope, Exit.void))
      )
      const { address } = Context.get(context, ServerHandle)
      const readiness = Context.get(context, Readiness)
      const port = address.port
      return {
        url: `http://127.0.0.1:${port}`,
        port,
        close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
        setReadiness: (state: "starting" | "ready" | "draining") => Effect.runPromise(readiness.set(state))
      }
    }).pipe(Effect.withConfigProvider(provider), withoutRuntimeMetrics)
  )
}
