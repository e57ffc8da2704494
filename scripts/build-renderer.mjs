#!/usr/bin/env node
/**
 * Builds the dashboard into dist/renderer (or --out DIR):
 *
 *   index.html                   the page (its CSP in a <meta>, on top of the header it is served with)
 *   assets/*.js                  renderer/**\/*.ts as browser ES modules, one file each (no bundler)
 *   assets/words/*.js            main/words/**\/*.ts, the words (languages, outcomes, message catalogues)
 *   assets/api/*.js              main/api/*.ts, the API's contract (routes, wire types, client, headline);
 *                                its subfolders (the server, the composition root) run in Node and stay out
 *   assets/style.css, assets/icon.svg
 *   assets/vendor/uPlot.esm.js   the chart library's ESM build, its CSS and its licence
 *
 * The daemon's server (and the app's app://dashboard scheme) answers `/` with index.html and `/assets/…`
 * with the files under assets/, nothing else, so that is the whole layout. Types are checked separately (`tsc -p renderer/tsconfig.json`): this
 * script only transpiles, file by file, which `verbatimModuleSyntax` in that tsconfig makes safe.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'renderer');
const words = join(root, 'main', 'words');
const api = join(root, 'main', 'api');

/**
 * A renderer module imports the tiers it shares with the core as `(../)*../main/words/x.js` and
 * `(../)*../main/api/x.js`; in assets/ those sit in `words/` and `api/` beside the renderer's modules, one level
 * up less. The API's contract reaches the words as `../words/x.js`, which holds in both places.
 */
function tierImportsRelocated(code) {
  return code.replace(
    /(['"])((?:\.\.\/)*)\.\.\/main\/(words|api)\//g,
    (_, quote, ups, tier) => `${quote}${ups || './'}${tier}/`,
  );
}

function parseArgs(argv) {
  const outAt = argv.indexOf('--out');
  if (outAt !== -1 && argv[outAt + 1] === undefined) throw new Error('--out needs a directory');
  return { out: resolve(outAt === -1 ? join(root, 'dist', 'renderer') : argv[outAt + 1]) };
}

/** Every .ts file under `dir` except declarations (the vendor type shims). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const compilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  verbatimModuleSyntax: true,
  sourceMap: true,
  removeComments: false,
};

/** Where an npm package is installed; a missing one is named with the fix. */
function packageDir(name) {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  } catch {
    throw new Error(`the ${name} package is not installed (a devDependency of BreakerBar): run npm ci`);
  }
}

export function buildRenderer(out) {
  rmSync(out, { recursive: true, force: true });
  const assets = join(out, 'assets');
  mkdirSync(join(assets, 'vendor'), { recursive: true });

  // The tiers the dashboard shares with the core: the words, and the API's contract (not its Node subfolders).
  const contract = readdirSync(api).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  const inputs = [
    ...sources(source).map((file) => ({ file, name: relative(source, file) })),
    ...sources(words).map((file) => ({ file, name: join('words', relative(words, file)) })),
    ...contract.map((name) => ({ file: join(api, name), name: join('api', name) })),
  ];
  for (const { file, name: tsName } of inputs) {
    const name = tsName.replace(/\.ts$/, '.js');
    const target = join(assets, name);
    mkdirSync(dirname(target), { recursive: true });
    const result = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions,
      fileName: file,
      reportDiagnostics: true,
    });
    const problems = (result.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (problems.length > 0) {
      throw new Error(
        `${relative(root, file)}: ${problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`,
      );
    }
    const map = JSON.parse(result.sourceMapText);
    map.sources = [relative(dirname(target), file)];
    writeFileSync(target, tierImportsRelocated(result.outputText));
    writeFileSync(`${target}.map`, JSON.stringify(map));
  }

  copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
  copyFileSync(join(source, 'style.css'), join(assets, 'style.css'));
  copyFileSync(join(source, 'icon.svg'), join(assets, 'icon.svg'));

  const uplot = packageDir('uplot');
  copyFileSync(join(uplot, 'dist', 'uPlot.esm.js'), join(assets, 'vendor', 'uPlot.esm.js'));
  copyFileSync(join(uplot, 'dist', 'uPlot.min.css'), join(assets, 'vendor', 'uPlot.min.css'));
  // MIT: the notice travels with the copy.
  copyFileSync(join(uplot, 'LICENSE'), join(assets, 'vendor', 'uPlot.LICENSE.txt'));
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const out = buildRenderer(parseArgs(process.argv.slice(2)).out);
    console.error(`dashboard built into ${relative(process.cwd(), out) || '.'}`);
  } catch (error) {
    console.error(`build-renderer: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
