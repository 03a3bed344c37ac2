// The one program `npm start` and `opsbot` run: the bundle in dist/, with source maps, through Node's compile cache.
// A bundle that is missing, or that no longer matches the files it was built from (a source edited, a package
// updated), is built again first, and the start says so: an edited .ts file always runs as edited.
import module, { enableCompileCache } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildBundle, builtTime, bundleStatus } from './bundle.js';
import { ROOT } from './bundle-options.js';

/**
 * Where Node keeps the compiled bundle: inside dist/, so that each build starts a cache of its own and the old
 * bundle's goes with it (Node never prunes one). NODE_COMPILE_CACHE, when set, takes precedence (Node has then
 * enabled it before this runs), and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
const COMPILE_CACHE = join(ROOT, 'dist', '.compile-cache');

/**
 * Imports `main` (which exports runServer) or `cli` (runCli and processIo) from dist/, building it first when
 * needed. Returns the module and a line saying which program runs, for the start-up log and `opsbot --version`.
 * A build that fails writes why and exits 1: an out-of-date bundle is never run in its place.
 */
export async function loadProgram(entry) {
  const status = bundleStatus();
  let builtAt = status.builtAt;
  let when = '';
  if (!status.fresh) {
    process.stderr.write(`opsbot: ${status.why}: building it (npm run build)\n`);
    const started = performance.now();
    try {
      builtAt = await buildBundle();
    } catch (error) {
      process.stderr.write(
        `opsbot: the build failed, so opsbot cannot start: ${error instanceof Error ? error.message : error}\n` +
          'Fix what it names, or run `npm run build` where dist/ is writable, then start again.\n',
      );
      process.exit(1);
    }
    process.stderr.write(`opsbot: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    when = ' at this start';
  }
  // Enabled once dist/ is settled, since the cache lives inside it; nothing of the program has loaded yet.
  const cache = enableCompileCache(COMPILE_CACHE);
  enableSourceMaps();
  const program = await import(pathToFileURL(join(ROOT, 'dist', `${entry}.js`)).href);
  return {
    program,
    description: `bundle dist/${entry}.js, built ${builtTime(builtAt)}${when}; source maps on; ${describeCache(cache)}`,
  };
}

/**
 * Stack traces name the .ts file and line through the bundle's source maps. Not for node_modules where Node can
 * tell (22.14 and later): the Slack SDK alone ships 400 maps, each read at load, and maps its own compiled code.
 */
function enableSourceMaps() {
  if (module.setSourceMapsSupport) module.setSourceMapsSupport(true, { nodeModules: false });
  else process.setSourceMapsEnabled(true);
}

function describeCache(result) {
  if (result.directory) return `compile cache in ${shortPath(result.directory)}`;
  return `compile cache off (${result.message ?? 'not enabled'})`;
}

function shortPath(path) {
  const inside = relative(ROOT, path);
  return inside.startsWith('..') ? path : inside;
}
