import { definePattern } from "../../src/Catalogue/Pattern.js"
import { contract } from "./contract.js"
import { lencioniSignals } from "./signals.js"

export const pattern = definePattern(contract, lencioniSignals)
