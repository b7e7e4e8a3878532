/**
 * The `svc` command line's entry (dist/cli.mjs, which bin/svc runs): the command line itself
 * (cli.ts and everything it imports) is loaded from here, with the module compile cache on where
 * Node has one (Lifecycle/CompileCache.ts; Node writes it as the command exits).
 */
import { enableCompileCache } from "./Lifecycle/CompileCache.js"

enableCompileCache()
await import("./cli.js")
