/**
 * Decoders compiled from a schema's AST for the two values every analysis decodes, the trace (a
 * pattern's input) and the model's answer (its model output), and for the catalogue's files read
 * at start-up (playbooks and composition: through the general parser they cost 20 MB of garbage
 * and a fifth of start-up, docs/performance.md). `Schema.decodeUnknownEither`
 * interprets the AST through a general parser that wraps every value in an `Either`, collects
 * issues, sorts keyed results and builds error trees it may not need: for a 20-step trace that is
 * about 88 KB of garbage, a fifth of all an analysis allocates (docs/performance.md).
 *
 * A compiled decoder answers only "valid, and here is the decoded value": it follows the parser's
 * rules for the node kinds the catalogue's schemas use (structs with optional keys and string index
 * signatures, arrays, literals, the keywords, unions whose members but one are primitives,
 * refinements through their own `filter`, and transformations whose decode is synchronous) and
 * builds the same value, keys in the same order. Anything else, and every invalid input, goes to
 * `Schema`'s own decoder, which decides and names every issue: errors are unchanged. A schema with
 * a node kind outside that list compiles to `undefined` and always takes the general decoder.
 * test/catalogue/fast-decode.test.ts checks both decoders agree on every pattern's schemas, on
 * generated valid values and on broken ones.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

/** What a compiled parser returns for an input it does not accept. */
const FAIL: unique symbol = Symbol("FastDecode.fail")
type Parser = (input: unknown) => unknown


/** True for nodes whose decoded value is the input itself and that never accept an object. */
const isPrimitive = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Literal":
    case "UndefinedKeyword":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
      return true
    case "Refinement":
      return isPrimitive(ast.from)
    default:
      return false
  }
}

const compileNode = (ast: SchemaAST.AST, options: SchemaAST.ParseOptions): Parser | undefined => {
  switch (ast._tag) {
    case "Literal": {
      const literal = ast.literal
      return (u) => (u === literal ? u : FAIL)
    }
    case "UndefinedKeyword":
      return (u) => (u === undefined ? u : FAIL)
    case "StringKeyword":
      return (u) => (typeof u === "string" ? u : FAIL)
    case "NumberKeyword":
      return (u) => (typeof u === "number" ? u : FAIL)
    case "BooleanKeyword":
      return (u) => (typeof u === "boolean" ? u : FAIL)
    case "UnknownKeyword":
      return (u) => u
    case "Refinement": {
      const from = compileNode(ast.from, options)
      if (from === undefined) return undefined
      const filter = ast.filter
      return (u) => {
        const decoded = from(u)
        return decoded === FAIL || Option.isSome(filter(decoded, options, ast)) ? FAIL : decoded
      }
    }
    case "TupleType": {
      // Arrays only (no fixed elements, one rest element): a new array of the decoded elements.
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const [rest] = ast.rest
      const element = rest === undefined ? undefined : compileNode(rest.type, options)
      if (element === undefined) return undefined
      return (u) => {
        if (!Array.isArray(u)) return FAIL
        const out: Array<unknown> = new Array(u.length)
        for (let i = 0; i < u.length; i++) {
          const decoded = element(u[i])
          if (decoded === FAIL) return FAIL
          out[i] = decoded
        }
        return out
      }
    }
    case "TypeLiteral": {
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return undefined
      const properties: Array<{ readonly name: string; readonly optional: boolean; readonly parse: Parser }> = []
      for (const signature of ast.propertySignatures) {
        if (typeof signature.name !== "string") return undefined
        const parse = compileNode(signature.type, options)
        if (parse === undefined) return undefined
        properties.push({ name: signature.name, optional: signature.isOptional, parse })
      }
      // At most one index signature, keyed by any string (a record): its keys are the input's own.
      if (ast.indexSignatures.length > 1) return undefined
      const [index] = ast.indexSignatures
      let indexValue: Parser | undefined = undefined
      if (index !== undefined) {
        if (index.parameter._tag !== "StringKeyword") return undefined
        indexValue = compileNode(index.type, options)
        if (indexValue === undefined) return undefined
      }
      const expected = new Set(properties.map((property) => property.name))
      // `onExcessProperty: "preserve"` keeps unknown keys, which this parser drops: not compiled.
      if (options.onExcessProperty === "preserve") return undefined
      // `"error"` refuses them (with an index signature no key is excess).
      const refuseExcess = options.onExcessProperty === "error" && indexValue === undefined
      return (u) => {
        if (!Predicate.isRecord(u)) return FAIL
        if (refuseExcess) for (const key of Object.keys(u)) if (!expected.has(key)) return FAIL
        const out: Record<string, unknown> = {}
        for (let i = 0; i < properties.length; i++) {
          const property = properties[i]
          if (property === undefined) continue
          // Like the parser: a missing required key is decoded as `undefined`, which most types refuse.
          if (property.optional && !Object.hasOwn(u, property.name)) continue
          const decoded = property.parse(u[property.name])
          if (decoded === FAIL) return FAIL
          out[property.name] = decoded
        }
        if (indexValue !== undefined) {
          for (const key of Object.keys(u)) {
            const decoded = indexValue(u[key])
            if (decoded === FAIL) return FAIL
            if (!expected.has(key)) out[key] = decoded
          }
        }
        return out
      }
    }
    case "Union": {
      // Primitive members give the input back and never accept an object, so with at most one
      // other member the parser's choice among candidates cannot change the result.
      const primitives: Array<Parser> = []
      let other: Parser | undefined = undefined
      for (const member of ast.types) {
        const parse = compileNode(member, options)
        if (parse === undefined) return undefined
        if (isPrimitive(member)) primitives.push(parse)
        else if (other === undefined) other = parse
        else return undefined
      }
      const rest = other
      return (u) => {
        for (let i = 0; i < primitives.length; i++) {
          const parse = primitives[i]
          if (parse !== undefined && parse(u) !== FAIL) return u
        }
        return rest === undefined ? FAIL : rest(u)
      }
    }
    case "Transformation": {
      const from = compileNode(ast.from, options)
      const to = compileNode(ast.to, options)
      if (from === undefined || to === undefined) return undefined
      const transformation = ast.transformation
      switch (transformation._tag) {
        case "ComposeTransformation":
          return (u) => {
            const decoded = from(u)
            return decoded === FAIL ? FAIL : to(decoded)
          }
        case "FinalTransformation": {
          const decode = transformation.decode
          return (u) => {
            const decoded = from(u)
            if (decoded === FAIL) return FAIL
            // A synchronous decode returns an Either; anything effectful is the parser's to run.
            const result: unknown = decode(decoded, options, ast, u)
            return Either.isEither(result) && Either.isRight(result) ? to(result.right) : FAIL
          }
        }
        case "TypeLiteralTransformation": {
          // The parser edits the struct its `from` side built (a new object), key by key.
          if (ast.from._tag !== "TypeLiteral") return undefined
          const steps = transformation.propertySignatureTransformations.map((step) => ({
            from: step.from,
            to: step.to,
            decode: step.decode
          }))
          return (u) => {
            const decoded = from(u)
            if (!Predicate.isRecord(decoded)) return FAIL
            const out: Record<PropertyKey, unknown> = decoded
            for (const step of steps) {
              const value = step.decode(Object.hasOwn(out, step.from) ? Option.some(out[step.from]) : Option.none())
              delete out[step.from]
              if (Option.isSome(value)) out[step.to] = value.value
            }
            return to(out)
          }
        }
      }
      return undefined
    }
    default:
      return undefined
  }
}

/** True when the AST has a transformation (its encoded form may differ from its decoded one). */
export const hasTransformation = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Transformation":
      return true
    case "Refinement":
      return hasTransformation(ast.from)
    case "TupleType":
      return ast.elements.some((element) => hasTransformation(element.type)) || ast.rest.some((rest) => hasTransformation(rest.type))
    case "TypeLiteral":
      return ast.propertySignatures.some((signature) => hasTransformation(signature.type)) ||
        ast.indexSignatures.some((signature) => hasTransformation(signature.type))
    case "Union":
      return ast.types.some(hasTransformation)
    default:
      return false
  }
}

/** Whether every node of the AST is of a kind the compiler handles (the fast path is taken). */
export const compiles = (ast: SchemaAST.AST): boolean => compileNode(ast, {}) !== undefined

interface Box {
  value: unknown
}

/**
 * The schema's compiled decoder (with the parse options the general decoder is called with), or
 * undefined when the schema has a node kind it does not compile. The decoder returns undefined for
 * any input it does not accept: decode those with `Schema` for the verdict and the issues.
 */
export const compileDecoder = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options: SchemaAST.ParseOptions
): ((input: unknown) => Either.Either<A, undefined>) | undefined => {
  const parse = compileNode(schema.ast, options)
  if (parse === undefined) return undefined
  // The compiled parser is the schema's own check (see the header): what it accepts decodes to A.
  const decodes = (input: unknown, box: Box): box is { value: A } => {
    const decoded = parse(input)
    if (decoded === FAIL) return false
    box.value = decoded
    return true
  }
  return (input) => {
    const box: Box = { value: undefined }
    return decodes(input, box) ? Either.right(box.value) : Either.left(undefined)
  }
}

/**
 * The schema's decoder: the compiled one for what it accepts, `Schema`'s own for everything else
 * (the verdict and its issues). The same results as `Schema.decodeUnknownEither(schema, options)`.
 */
export const decoderOf = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options: SchemaAST.ParseOptions
): ((input: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  const fast = compileDecoder(schema, options)
  const general = Schema.decodeUnknownEither(schema, options)
  return (input) => {
    const decoded = fast?.(input)
    return decoded !== undefined && Either.isRight(decoded) ? Either.right(decoded.right) : general(input)
  }
}
