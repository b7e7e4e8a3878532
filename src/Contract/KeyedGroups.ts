/**
 * The runs and problems groups as the service serves them: with the errors the edge answers on a
 * keyed route (403 for a role, 503 for bodies in flight) and the API-key requirement in OpenAPI.
 * Api.ts adds them to the whole contract; the dashboard's client (src/Ui/app/api.ts) is built from
 * them alone, so its bundle carries these groups' schemas and no other.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { ForbiddenWire, OverloadedWire } from "../Errors.js"
import { ProblemsGroup } from "./ProblemsContract.js"
import { RunsGroup } from "./RunsContract.js"
import { apiKeyRequirement } from "./Security.js"

export const RunsApiGroup = RunsGroup.addError(ForbiddenWire).addError(OverloadedWire).annotateEndpoints(OpenApi.Override, apiKeyRequirement)

export const ProblemsApiGroup = ProblemsGroup.addError(ForbiddenWire).addError(OverloadedWire).annotateEndpoints(OpenApi.Override, apiKeyRequirement)
