# tests/hosts/tcl.tcl EXT SMOKE: Tcl's sqlite3 package (Debian libsqlite3-tcl)
# loads the extension and runs the shared smoke set.
package require sqlite3
lassign $argv ext smoke
sqlite3 db :memory:
db nullvalue NULL
db enable_load_extension 1
db eval {SELECT load_extension($ext)}
set npass 0
set nfail 0
set f [open $smoke r]
fconfigure $f -encoding utf-8
while {[gets $f line] >= 0} {
  if {$line eq "" || [string index $line 0] eq "#"} continue
  set tab [string first "\t" $line]
  if {$tab >= 0} {
    set sql [string range $line 0 [expr {$tab - 1}]]
    set want [string range $line [expr {$tab + 1}] end]
  } else {
    set sql $line
    set want ""
  }
  if {[catch {
    set got ""
    set first 1
    db eval $sql row {
      if {$first} {
        set vals {}
        foreach c $row(*) { lappend vals $row($c) }
        set got [join $vals |]
        set first 0
      }
    }
  } err]} {
    set got "error: $err"
  }
  if {$tab < 0 && ![string match "error:*" $got]} { set got "" }
  if {$got eq $want} {
    incr npass
  } else {
    incr nfail
    puts "FAIL tcl: $sql\n  expected: $want\n  actual:   $got"
  }
}
close $f
puts "$npass passed, $nfail failed"
exit [expr {$nfail > 0}]
