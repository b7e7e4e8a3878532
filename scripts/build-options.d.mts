import type { BuildOptions } from "esbuild"

/** esbuild's code-generation options for the service's node bundles, paths under `repository`. */
export declare const nodeCodegen: (repository: string) => BuildOptions
