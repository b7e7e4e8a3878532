/** `svc serve`: the service, exactly as `npm start` runs it. */
import * as Command from "@effect/cli/Command"
import type * as Effect from "effect/Effect"
import type { StartFailure } from "../../../Program.js"
import { commandHelp } from "../Help.js"
import { endProgram } from "../Running.js"

/**
 * `serve`: the service's program, given by the entry (src/cli.ts), which loads the server only
 * when this command runs and knows from then on that a signal stops it as intended (it drains,
 * and the process ends with 0, as `npm start`). A start-up failure has printed its one line: a
 * configuration error is a usage error.
 */
export const makeServe = (serve: Effect.Effect<never, StartFailure>) =>
  Command.make("serve", {}, () => endProgram(serve)).pipe(
    Command.withDescription(
      commandHelp(
        "Run the service (as `npm start`): JSON over HTTP on SVC_HOST:SVC_PORT (default 127.0.0.1:8000), configured from the environment (README, Configuration). SIGTERM drains.",
        [["svc serve", "serve on 127.0.0.1:8000"], ["SVC_PORT=9000 OPENAI_API_KEY=sk-... svc serve", "another port, a hosted provider"]]
      )
    )
  )
