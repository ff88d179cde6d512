// Bundles src/index.js into notebook_chat/static/widget.js (+ widget.css). `node build.mjs [--watch]`.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
/** marked-katex-extension's KaTeX is evaluated on first use (src/katex_lazy.js), not when the widget loads. */
const lazyKatex = {
  name: "lazy-katex",
  setup(build) {
    build.onResolve({ filter: /^katex$/ }, (args) =>
      args.importer.includes("marked-katex-extension") ? { path: path.join(here, "src/katex_lazy.js") } : undefined);
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
