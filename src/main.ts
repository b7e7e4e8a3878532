/**
 * `npm start` (through boot.ts): the service (Serve.ts, shared with `svc serve`) under the one
 * launcher (Program.ts): `NodeRuntime.runMain` interrupts it on the first SIGTERM or SIGINT and the
 * process exits with 0, or with 1 when it failed (its one line on stderr).
 */
import * as Program from "./Program.js"
import { serve } from "./Serve.js"

Program.run(serve)
