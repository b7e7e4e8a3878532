/**
 * V8's heap settings for the service, in one place: what the service's start-up holds (boot.ts for
 * `npm start`, cli.ts for `svc serve`) and what it sets once it serves (Serve.ts). Neither caps the
 * heap: the heap grows as far as the live data needs, as before. Only the young generation's size
 * (`--max-semi-space-size`, `--min-semi-space-size`), which V8 reads only when the process starts,
 * is on `npm start`'s command line. Measured in docs/performance.md.
 */
import { setFlagsFromString } from "node:v8"

/**
 * Whether this V8 keeps the pages a collection frees resident for reuse (its page pool, V8 13 and
 * later: Node 24), releasing them only after a collection made to reduce memory, which a service
 * under steady intake does not get: there the old generation's highest point stays resident, where
 * Node 20's V8 gives freed pages back to the system as it sweeps.
 */
export const POOLS_FREED_PAGES = Number(process.versions.v8.split(".")[0]) >= 13

/**
 * The old generation's growth after a full collection, in percent of what it kept alive: 75, and 50
 * where V8 pools the pages it frees (measured in docs/performance.md, "The old generation's growth
 * where V8 pools freed pages").
 */
export const OLD_GENERATION_GROWTH_PERCENT = POOLS_FREED_PAGES ? 50 : 75

/**
 * Start-up allocates mostly long-lived data (the catalogue, the API's schemas), and V8 would grow
 * the young generation for it, up to 2 × 16 MiB that then sit empty, although all of it is
 * promoted anyway: the growth is held until the service is ready (idle RSS 117 → 86 MiB).
 */
export const holdForStartUp = (): void => {
  setFlagsFromString("--semi-space-growth-factor=1")
}

/**
 * Once the service is ready: V8's default young-generation growth again, so under load the young
 * generation grows as usual; and the old generation's next limit after a full collection set at
 * 1.75 times what that collection kept alive (`--heap-growing-percent=75`; 1.5 where V8 pools freed
 * pages, `POOLS_FREED_PAGES` above), where V8 would choose up to 4 times when its collector is fast
 * against the rate objects are promoted. Under OTLP intake at 8,000–9,500 spans/s the old
 * generation kept 35 to 40 MiB alive and V8 let it reach 110 to 150 MiB before collecting: the
 * million spans peaked at 341–455 MiB RSS, 239–245 MiB with this factor. More full collections are
 * the cost: about 7% more CPU over the million (its rate 0.96, within the machine's spread; since
 * given back by the store's statements kept prepared, Store/SqliteConnection.ts), 2% per uncached
 * analysis and 7% per cached answer; a factor of 2 cost 3–5% on cached answers but peaked at
 * 252–257 MiB, over the 256 MiB asked for (docs/performance.md, "The old generation's growth
 * bounded"). Where V8 pools the pages it frees (Node 24), the old generation's highest point stays
 * resident, and 1.75 peaked at 255–264 MiB; 1.5 there: 243–250 MiB at the same rate and about the
 * same CPU over the million, for about 8% more CPU per cached answer (docs/performance.md, "The old
 * generation's growth where V8 pools freed pages"). A limit, not a cap: it moves with the live
 * data, so a service that keeps more alive gets a larger heap.
 */
export const setForServing = (): void => {
  setFlagsFromString("--semi-space-growth-factor=2")
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`)
}
