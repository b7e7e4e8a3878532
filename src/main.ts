/**
 * `npm start` (through boot.ts): the service under `NodeRuntime.runMain`, which interrupts it on
 * the first SIGTERM or SIGINT. Lifecycle/Signals.ts adds what the runtime's one signal handler
 * cannot express. The program itself is Serve.ts, shared with `svc serve`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { listenForSignals, ShutdownSignals } from "./Lifecycle/Signals.js"
import { serveProgram } from "./Serve.js"

NodeRuntime.runMain(Effect.provideService(serveProgram, ShutdownSignals, listenForSignals()), {
  disableErrorReporting: true,
  disablePrettyLogger: true
})
