/**
 * What an endpoint asks of the guards (DECISIONS §5, §16), carried by the endpoint itself as an
 * annotation of the contract: the least role of a key that may call it, whether it is open (no key
 * needed or even looked at) and whether the rate limit counts it. The edge's route table and the
 * guards' operation of each request are read from it (src/Edge/Routes.ts), so a new endpoint is
 * its declaration here and its handler. Not part of OpenAPI: the API-key requirement shows
 * through `OpenApi.Override` (Security.ts).
 */
import * as Context from "effect/Context"
import type { Role } from "../Config/KeyRoles.js"

export interface Access {
  /** The least role of a key that may call the endpoint. */
  readonly role: Role
  /** No key is needed or even looked at: the probes, metrics, the OpenAPI document, the docs. */
  readonly open: boolean
  /** Counted by the request rate limit (not the probes, metrics, the document, nor OTLP's spans, limited by the receiver). */
  readonly counted: boolean
}

/** The annotation's key: `HttpApiEndpoint.annotate(EndpointAccess, Access.read)`. */
export class EndpointAccess extends Context.Tag("EndpointAccess")<EndpointAccess, Access>() {}

export const Access = {
  /** A key of any role but `ingest`, counted: reading, analyzing, diagnosing. */
  read: { role: "read", open: false, counted: true },
  /** Submitting runs: what an `ingest` key may do and nothing else. */
  ingest: { role: "ingest", open: false, counted: true },
  /** OTLP's receivers: `ingest`, limited in spans per second by the receiver, not by the request limit (DECISIONS §18). */
  ingestUncounted: { role: "ingest", open: false, counted: false },
  /** Deleting, retrying, explaining again, resolving, merging and detaching. */
  admin: { role: "admin", open: false, counted: true },
  /** Probes, metrics and the OpenAPI document: no key, not counted. */
  open: { role: "read", open: true, counted: false },
  /** The documentation pages and their assets: no key, counted by the client's address. */
  openCounted: { role: "read", open: true, counted: true }
} as const satisfies Readonly<Record<string, Access>>
