/** Absolute path of the nosql loadable extension for this platform. Throws where none is packaged. */
export declare function getLoadablePath(): string;
/** Loads the extension into db (better-sqlite3, or node:sqlite opened with allowExtension: true). */
export declare function load(db: { loadExtension(path: string): unknown }): void;
