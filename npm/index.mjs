// ES module entry of sqlite-nosql: the same two functions as index.cjs.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const nosql = require("./index.cjs");
export const getLoadablePath = nosql.getLoadablePath;
export const load = nosql.load;
export default nosql;
