// Bundles src/index.js into notebook_chat/static/widget.js (+ widget.css). `node build.mjs [--watch]`.
import * as esbuild from "esbuild";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * marked-katex-extension's KaTeX is evaluated on first use (src/katex_lazy.js), not when the widget loads: the bundle
 * holds KaTeX's minified build as a string ("katex-source"), so loading the widget does not parse it as code.
 */
const lazyKatex = {
  name: "lazy-katex",
  setup(build) {
    build.onResolve({ filter: /^katex$/ }, (args) =>
      args.importer.includes("marked-katex-extension") ? { path: path.join(here, "src/katex_lazy.js") } : undefined);
    build.onResolve({ filter: /^katex-source$/ }, () => ({ path: "katex-source", namespace: "katex-source" }));
    build.onLoad({ filter: /.*/, namespace: "katex-source" }, () => {
      const file = createRequire(import.meta.url).resolve("katex/dist/katex.min.js");
      return { contents: `export default ${JSON.stringify(readFileSync(file, "utf8"))};`, loader: "js" };
    });
  },
};

const options = {
  entryPoints: [path.join(here, "src/index.js")],
  plugins: [lazyKatex],
  outfile: path.join(here, "../../notebook_chat/static/widget.js"),
  bundle: true,
  format: "esm",
  target: ["es2020"],
  minify: true,
  legalComments: "eof",
  logLevel: "info",
};

if (process.argv.includes("--watch")) {
  const ctx = await esbuild.context({ ...options, minify: false });
  await ctx.watch();
} else {
  await esbuild.build(options);
}
