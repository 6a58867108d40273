/*
** wasm/shell_id.c: preloaded (LD_PRELOAD) into Debian's sqlite3 shell when
** tests/wasm/ run it on build/wasm/native/libsqlite3.so.0, the native
** build of the WebAssembly module's amalgamation. The shell refuses to run
** on a library whose sqlite3_sourceid() differs from the one it was
** compiled with ("SQLite header and source version mismatch"); this answers
** with the shell's own (SHELL_SOURCE_ID, read from `sqlite3 -version` by the
** Makefile). Only the shell's check and sqlite_source_id() see it; every
** other call goes to the native library.
*/
const char *sqlite3_sourceid(void) { return SHELL_SOURCE_ID; }
