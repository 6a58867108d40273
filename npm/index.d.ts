/**
 * Absolute path of the nosql loadable extension for this platform (or for host, a
 * `${process.platform}-${process.arch}` name such as "linux-arm64" or "win32-x64").
 * Throws where none is packaged, naming the platforms the package holds.
 */
export declare function getLoadablePath(host?: string): string;
/** Loads the extension into db (better-sqlite3, or node:sqlite opened with allowExtension: true). */
export declare function load(db: { loadExtension(path: string): unknown }): void;
