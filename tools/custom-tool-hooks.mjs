// Module hooks for a custom tools folder (tools/load-custom-tools.ts): the folder's own .ts and .js files are ES
// modules wherever the folder is. Outside a package whose package.json says "type": "module", Node and tsx would
// read them as CommonJS, where top-level await fails, and where on Node 22 each import becomes a require() of
// opsbot's ES modules that can fail. Packages in the folder's own node_modules keep their own format.
// Plain JavaScript: the hooks run on Node's loader thread, before any TypeScript loader there.

/** File URLs of the folders, each ending in a slash. */
const folders = [];

export function initialize(data) {
  folders.push(data.folder);
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  return isFolderModule(resolved.url) ? { ...resolved, format: 'module' } : resolved;
}

function isFolderModule(url) {
  if (!folders.some((folder) => url.startsWith(folder))) return false;
  const { pathname } = new URL(url);
  return !pathname.includes('/node_modules/') && /\.(ts|js)$/.test(pathname);
}
