// Lint: typescript-eslint's recommended rules plus the house rules (no any, no unchecked casts).
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules", "dist", "packages/*/dist", "bench/results", "coverage"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-assertions": ["error", { assertionStyle: "never" }],
      "@typescript-eslint/no-namespace": "off"
    }
  },
  {
    // What is bundled imports each Effect module by its own path (`effect/Effect`), never the `effect`
    // barrel: esbuild keeps every export of a module the barrel names as a namespace, and all they
    // reach (issue 52: start-up loaded 1.45 MB of Effect through the barrel, 0.72 MB by paths).
    files: ["src/**/*.ts", "src/**/*.tsx", "patterns/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "effect", message: "Import the module by its path (import * as Effect from \"effect/Effect\"): the barrel bundles every export." }] }
      ]
    }
  },
  {
    // The dashboard writes text only (DECISIONS §22: strict CSP with Trusted Types): no HTML from strings.
    files: ["src/Ui/app/**/*.ts", "src/Ui/app/**/*.tsx"],
    rules: {
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "Write text (textContent, JSX children); the dashboard never parses HTML." },
        { property: "outerHTML", message: "Write text (textContent, JSX children); the dashboard never parses HTML." },
        { property: "insertAdjacentHTML", message: "Write text (textContent, JSX children); the dashboard never parses HTML." },
        { object: "document", property: "write", message: "The dashboard never parses HTML." }
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: "The dashboard never parses HTML." },
        { selector: "CallExpression[callee.name='eval']", message: "No eval." }
      ]
    }
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" } }
  }
)
