/**
 * The stack's own floor for the command line (issue 52 item 3): an `@effect/cli` program with one
 * command that reads a file and prints its size, and none of the service's code. bench/startup.ts
 * bundles it as `svc` is bundled (scripts/build-options.mjs) and runs it beside `node -e 0` and
 * `svc`, in the same rounds: what the chosen stack costs a command before the product's code runs.
 *
 *   node floor-cli.mjs size FILE
 */
import * as Args from "@effect/cli/Args"
import * as CliCommand from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"

const size = CliCommand.make("size", { file: Args.file({ name: "FILE", exists: "yes" }) }, ({ file }) =>
  Console.log(`${file}: ${readFileSync(file).byteLength} bytes`))

const floor = CliCommand.make("floor").pipe(CliCommand.withSubcommands([size]))

const run = CliCommand.run(floor, { name: "floor", version: "0.0.0" })

NodeRuntime.runMain(run(process.argv).pipe(Effect.provide(NodeContext.layer)), { disableErrorReporting: false })
