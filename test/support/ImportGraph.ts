/**
 * The import graph of src/, read with TypeScript's own parser: static imports and re-exports,
 * type-only or not, and dynamic `import()`s. Shared by the architecture tests
 * (test/architecture/imports.test.ts, fast-lanes.test.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"

export const repo = resolve(import.meta.dirname, "../..")

export interface Edge {
  readonly to: string
  /** Erased at run time (`import type`, or every named import is `type`). */
  readonly typeOnly: boolean
}

export const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

/** Relative imports of a file, resolved to repository paths (`.js` specifiers name `.ts` files). */
export const importsOf = (file: string): Array<Edge> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const edges: Array<Edge> = []
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith(".")) return
    edges.push({ to: relative(repo, resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))), typeOnly })
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const named = clause?.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : []
      const typeOnly = clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && named.length > 0 && named.every((element) => element.isTypeOnly)))
      add(node.moduleSpecifier.text, typeOnly)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly)
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

const loaded = new Map<string, Array<Edge>>()
const load = (file: string) => {
  if (loaded.has(file)) return
  const edges = importsOf(join(repo, file))
  loaded.set(file, edges)
  for (const edge of edges) load(edge.to)
}
for (const file of sourceFiles(join(repo, "src"))) load(relative(repo, file))

/** Every file of src/ and what it imports (repository paths). */
export const graph: ReadonlyMap<string, ReadonlyArray<Edge>> = loaded

/** Files reachable from `from`, following run-time imports only or every import. */
export const reachable = (from: string, runtimeOnly: boolean): Set<string> => {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const file = stack.pop()
    if (file === undefined || seen.has(file)) continue
    seen.add(file)
    for (const edge of graph.get(file) ?? []) if (!(runtimeOnly && edge.typeOnly)) stack.push(edge.to)
  }
  return seen
}
