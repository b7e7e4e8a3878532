/** The catalogue endpoints: every body was serialised once when the catalogue loaded. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../Api.js"
import { unknownPattern, type UnknownPattern } from "../../Errors.js"
import { bytesAs, jsonBytes } from "./Responses.js"
import { Catalogue, type CatalogueEntry } from "../../Catalogue/Catalogue.js"

export const CatalogueHttpLive = HttpApiBuilder.group(Api, "catalogue", (handlers) =>
  Effect.gen(function*() {
    const catalogue = yield* Catalogue
    const find = (name: string): Effect.Effect<CatalogueEntry, UnknownPattern> => {
      const entry = catalogue.get(name)
      return entry === undefined ? Effect.fail(unknownPattern(name)) : Effect.succeed(entry)
    }
    return handlers
      .handle("listPatterns", () => Effect.succeed(jsonBytes(catalogue.listJson)))
      .handle("getPattern", ({ path }) => Effect.map(find(path.name), (entry) => jsonBytes(entry.recordJson)))
      .handle("getPlaybooks", ({ path }) => Effect.map(find(path.name), (entry) => jsonBytes(entry.playbooksJson)))
      .handle("getCitations", ({ path }) =>
        Effect.map(find(path.name), (entry) => bytesAs(entry.citations, "text/markdown; charset=utf-8")))
      .handle("getComposition", ({ path }) => Effect.map(find(path.name), (entry) => jsonBytes(entry.compositionJson)))
  }))
