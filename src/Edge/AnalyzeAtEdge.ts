/**
 * The REST analyze path the edge runs itself (AnalyzeAtEdgeLive in src/Surfaces/Rest/AnalyzeHttp.ts): a known
 * pattern's analyze request that is not a cache hit; the one path of analyze over REST. Its own tag, so the edge depends on it
 * without importing the analysis at run time.
 */
import * as Context from "effect/Context"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { EdgeRequest } from "./RequestContext.js"

export interface AnalyzeAtEdgeShape {
  /** Answers one analyze request of pattern `slug` whose body the edge read. */
  readonly serve: (slug: string, request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => void
}

export class AnalyzeAtEdge extends Context.Tag("AnalyzeAtEdge")<AnalyzeAtEdge, AnalyzeAtEdgeShape>() {}
