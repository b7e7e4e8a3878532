/**
 * The built service's entry (dist/server.mjs); the application itself (main.ts and everything
 * it imports) is loaded from here, with the module compile cache on where Node has one
 * (Lifecycle/CompileCache.ts), after one V8 setting:
 * start-up allocates mostly long-lived data (the catalogue, the API's schemas), and V8 would grow
 * the young generation for it, up to 2 × 16 MiB that then sit empty, although all of it is
 * promoted anyway. Growth is held until the service is ready; Serve.ts restores V8's default
 * factor then, so under load the young generation grows as usual. Measured: idle RSS 117 → 86 MiB
 * (docs/performance.md). `npm start` also sets the held size's floor at 2 MiB
 * (`--min-semi-space-size=2`, read only at start): at V8's 1 MiB, start-up's 140 scavenges
 * promoted short-lived objects that then sat in the old generation as garbage (idle RSS −5 MiB).
 */
import { setFlagsFromString } from "node:v8"
import { enableCompileCache } from "./Lifecycle/CompileCache.js"

enableCompileCache()
setFlagsFromString("--semi-space-growth-factor=1")
await import("./main.js")
