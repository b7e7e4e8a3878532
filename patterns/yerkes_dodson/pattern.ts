import { definePattern } from "../../src/Catalogue/Pattern.js"
import { contract } from "./contract.js"
import { deriveFromTrace } from "./reading.js"
import { yerkesSignals } from "./signals.js"

export const pattern = definePattern(contract, yerkesSignals, deriveFromTrace)
