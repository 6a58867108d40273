# tests/hosts/rsqlite.R EXT SMOKE: R's RSQLite (Debian r-cran-rsqlite, with
# its own bundled SQLite) loads the extension and runs the shared smoke set.
# RSQLite::initExtension() loads only the extensions RSQLite bundles; an
# outside one is loaded by SQL on a connection opened with
# loadable.extensions = TRUE (the default, spelled out here).
suppressPackageStartupMessages(library(DBI))
args <- commandArgs(trailingOnly = TRUE)
ext <- args[1]
smoke <- args[2]
db <- dbConnect(RSQLite::SQLite(), ":memory:", loadable.extensions = TRUE)
invisible(dbGetQuery(db, "SELECT load_extension(?)", params = list(ext)))
cell <- function(v) {
  if (is.list(v)) v <- v[[1]]
  if (length(v) == 0 || is.na(v)) "NULL" else as.character(v)
}
npass <- 0
nfail <- 0
for (line in readLines(smoke, encoding = "UTF-8")) {
  if (line == "" || startsWith(line, "#")) next
  parts <- strsplit(line, "\t", fixed = TRUE)[[1]]
  sql <- parts[1]
  want <- if (length(parts) > 1) parts[2] else ""
  got <- tryCatch({
    if (length(parts) > 1) {
      rows <- dbGetQuery(db, sql)
      if (nrow(rows) == 0) "" else paste(vapply(rows[1, , drop = FALSE], cell, ""), collapse = "|")
    } else {
      dbExecute(db, sql)
      ""
    }
  }, error = function(e) paste("error:", conditionMessage(e)))
  if (identical(got, want)) {
    npass <- npass + 1
  } else {
    nfail <- nfail + 1
    cat(sprintf("FAIL R: %s\n  expected: %s\n  actual:   %s\n", sql, want, got))
  }
}
dbDisconnect(db)
cat(sprintf("%d passed, %d failed\n", npass, nfail))
quit(status = if (nfail > 0) 1 else 0)
