
// wasm/wrapper.mjs, appended by make wasm to emcc's factory (whose own
// export it replaces): the module's default export. It hands the factory
// the bytes of nosql.wasm, found beside this file: read from disk under
// Node, fetched elsewhere (a page, a classic or module Web Worker). emcc's
// own loader is not used because it cannot load the file from an ES module
// under Node 18+ (it calls fetch with a file: URL). Options are emcc's
// Module options: wasmBinary skips the load; locateFile(name, prefix), as
// sql.js users pass it, says where nosql.wasm is.
export default async function initNosql(options) {
  const opts = Object.assign({}, options);
  if (!opts.wasmBinary) {
    const here = new URL('.', import.meta.url).href;
    const url = new URL(opts.locateFile ? opts.locateFile('nosql.wasm', here) : 'nosql.wasm', here);
    if (typeof process === 'object' && process.versions && process.versions.node) {
      const fs = await import('node:fs/promises');
      opts.wasmBinary = await fs.readFile(url);
    } else {
      const response = await fetch(url);
      if (!response.ok) throw new Error('nosql: cannot load ' + url + ': HTTP ' + response.status);
      opts.wasmBinary = await response.arrayBuffer();
    }
  }
  return nosqlFactory(opts);
}
