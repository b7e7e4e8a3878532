/**
 * The runs (DECISIONS §17), the OTLP receiver (§18) and the problems (§19) as one Layer over the
 * analysis resources (Resources.ts: the configuration, scopes, redaction, checks, catalogue,
 * diagnose, cache, readiness and request tracker, the service's own spans), which it is given
 * built. Resources.ts loads this module when the Layer is built: `svc serve`, `svc mcp` and the
 * `svc runs` and `svc problems` commands do; `svc diagnose FILE` never does.
 */
import * as Layer from "effect/Layer"
import { RunStoreAccessLive } from "./Store/RunStoreAccess.js"
import { OtlpAssemblyLive, OtlpReassemblyLive } from "./Otlp/Assembly.js"
import { OtlpReceiverLive } from "./Otlp/Receiver.js"
import { AlertDeliveryLive, AlertRoutesLive } from "./Alerts/Delivery.js"
import { ProblemsServiceLive } from "./Problems/Service.js"
import { RunsServiceLive } from "./Runs/RunsService.js"
import { RunWorkersLive } from "./Runs/Workers.js"

/** `serving`: `svc serve`, which alone runs the workers, completes OTLP traces into runs and delivers alerts. */
export const RunsResourcesLive = (options: { readonly serving: boolean }) => {
  // The runs store (SVC_HOME/svc.db), opened on first use; `svc serve` alone runs workers over it,
  // which are finalized before it closes (each gives its run back first).
  const Store = RunStoreAccessLive.pipe(Layer.provide(AlertRoutesLive))
  // a retried run of an OTLP trace that could not be assembled is assembled again by its worker (Runs/Reassembly.ts)
  const Workers = options.serving ? RunWorkersLive.pipe(Layer.provide(OtlpReassemblyLive)) : Layer.empty
  const RunsServices = RunsServiceLive
  // OTLP in (DECISIONS §18): the receiver of every process that serves; `svc serve` also completes traces into runs
  const Receiver = OtlpReceiverLive
  const Assembly = options.serving ? OtlpAssemblyLive.pipe(Layer.provide(RunsServices)) : Layer.empty
  // problems (DECISIONS §19): read and changed by every surface; their alerts delivered by `svc serve`
  const Problems = ProblemsServiceLive
  const Deliveries = options.serving ? AlertDeliveryLive : Layer.empty
  return Layer.mergeAll(RunsServices, Workers, Receiver, Assembly, Problems, Deliveries).pipe(Layer.provideMerge(Store))
}
