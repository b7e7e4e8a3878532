/**
 * The built service's entry (dist/server.mjs); the application itself (main.ts and everything
 * it imports) is loaded from here, with the module compile cache on where Node has one
 * (Lifecycle/CompileCache.ts), after start-up's heap setting (Lifecycle/Heap.ts: the young
 * generation's growth held until the service is ready; Serve.ts sets the serving ones).
 * `npm start` also sets the held size's floor at 2 MiB (`--min-semi-space-size=2`, read only at
 * start): at V8's 1 MiB, start-up's 140 scavenges promoted short-lived objects that then sat in the
 * old generation as garbage (idle RSS −5 MiB).
 */
import { enableCompileCache } from "./Lifecycle/CompileCache.js"
import { holdForStartUp } from "./Lifecycle/Heap.js"

enableCompileCache()
holdForStartUp()
await import("./main.js")
