# tests/hosts/perl.pl EXT SMOKE: Perl DBI with DBD::SQLite (Debian
# libdbd-sqlite3-perl) loads the extension and runs the shared smoke set.
use strict;
use warnings;
use DBI;

my ($ext, $smoke) = @ARGV;
my $db = DBI->connect("dbi:SQLite:dbname=:memory:", "", "", {RaiseError => 1, PrintError => 0, sqlite_unicode => 1});
$db->sqlite_enable_load_extension(1);
$db->do("SELECT load_extension(?)", undef, $ext);
my ($npass, $nfail) = (0, 0);
open(my $f, "<:encoding(UTF-8)", $smoke) or die "cannot open $smoke";
while (my $line = <$f>) {
  chomp $line;
  next if $line eq "" || $line =~ /^#/;
  my ($sql, $want) = split /\t/, $line, 2;
  my $got;
  eval {
    my $sth = $db->prepare($sql);
    $sth->execute();
    my @row = $sth->fetchrow_array();
    $sth->finish();
    $got = @row ? join("|", map { defined $_ ? $_ : "NULL" } @row) : "";
    1;
  } or do { $got = "error: $@"; };
  if (!defined $want) { $want = ""; $got = "" unless $got =~ /^error/; }
  if ($got eq $want) { $npass++; } else { $nfail++; print "FAIL perl: $sql\n  expected: $want\n  actual:   $got\n"; }
}
print "$npass passed, $nfail failed\n";
exit($nfail ? 1 : 0);
