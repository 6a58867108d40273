<?php
// tests/hosts/php.php EXT SMOKE: PHP 8.2's SQLite3 class (Debian
// php-sqlite3) loads the extension and runs the shared smoke set. Run as
//   php -d sqlite3.extension_dir=DIR tests/hosts/php.php DIR/nosql SMOKE
// SQLite3::loadExtension() only loads from the directory named by the
// sqlite3.extension_dir ini setting (PHP_INI_SYSTEM: php.ini or -d, not
// ini_set), and takes the file name with its suffix: "nosql.so".
//
// SQLite3::query() and SQLite3Stmt::execute() step the statement once
// themselves, and the first fetchArray() resets and steps it again: a
// function with a side effect (kv_incr, doc_update, a write through a
// virtual table) runs twice. Queries therefore go through querySingle()
// (one step) and statements through exec(); the smoke set's
// "kv_incr('hosts', 5), kv_get('hosts')  5|5" line fails otherwise.
[$ext, $smoke] = array_slice($argv, 1);
if (realpath(ini_get('sqlite3.extension_dir')) !== realpath(dirname($ext))) {
    fwrite(STDERR, "php.php: run with -d sqlite3.extension_dir=" . dirname($ext) . "\n");
    exit(2);
}
$db = new SQLite3(':memory:');
$db->enableExceptions(true);
$db->loadExtension(basename($ext) . '.so');
$npass = $nfail = 0;
foreach (file($smoke, FILE_IGNORE_NEW_LINES) as $line) {
    if ($line === '' || $line[0] === '#') {
        continue;
    }
    $parts = explode("\t", $line, 2);
    $sql = $parts[0];
    try {
        if (count($parts) === 2) {
            $row = $db->querySingle($sql, true);
            $got = implode('|', array_map(fn($v) => $v === null ? 'NULL' : (string)$v, $row));
        } else {
            $db->exec($sql);
            $got = '';
        }
    } catch (Exception $e) {
        $got = 'error: ' . $e->getMessage();
    }
    $want = $parts[1] ?? '';
    if ($got === $want) {
        $npass++;
    } else {
        $nfail++;
        echo "FAIL php: $sql\n  expected: $want\n  actual:   $got\n";
    }
}
echo "$npass passed, $nfail failed\n";
exit($nfail ? 1 : 0);
