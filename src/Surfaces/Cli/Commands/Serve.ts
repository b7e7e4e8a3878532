/** `svc serve`: the service, exactly as `npm start` runs it. */
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { commandHelp } from "../Help.js"
import { endProgram } from "../Running.js"

/**
 * `serving`: told once the service runs. A signal then stops it as intended (it drains, and the
 * process ends with 0, as `npm start`), where it ends any other command with 130 or 143. This is
 * the one ending src/cli.ts cannot take from the command's value: a signal interrupts the command,
 * and an interrupted effect returns nothing.
 */
export const makeServe = (serving: () => void) =>
  Command.make("serve", {}, () =>
    Effect.gen(function*() {
      const { setFlagsFromString } = yield* Effect.promise(() => import("node:v8"))
      // As boot.ts does for `npm start`: young-generation growth held until the service is ready.
      setFlagsFromString("--semi-space-growth-factor=1")
      const { serveProgram } = yield* Effect.promise(() => import("../../../Serve.js"))
      const { listenForSignals, ShutdownSignals } = yield* Effect.promise(() => import("../../../Lifecycle/Signals.js"))
      serving()
      // A start-up failure has printed its one line: a configuration error is a usage error.
      return yield* serveProgram.pipe(Effect.provideService(ShutdownSignals, listenForSignals()), endProgram)
    })).pipe(
      Command.withDescription(
        commandHelp(
          "Run the service (as `npm start`): JSON over HTTP on SVC_HOST:SVC_PORT (default 127.0.0.1:8000), configured from the environment (README, Configuration). SIGTERM drains.",
          [["svc serve", "serve on 127.0.0.1:8000"], ["SVC_PORT=9000 OPENAI_API_KEY=sk-... svc serve", "another port, a hosted provider"]]
        )
      )
    )
