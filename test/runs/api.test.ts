/** The runs API end to end on the embedded store, SQLite in the service's SVC_HOME (api-suite.ts). */
import { runsApiSuite } from "./api-suite.js"

runsApiSuite({ name: "SQLite", env: () => ({}) })
