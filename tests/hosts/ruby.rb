# tests/hosts/ruby.rb EXT SMOKE: Ruby's sqlite3 gem (Debian ruby-sqlite3)
# loads the extension and runs the shared smoke set.
require "sqlite3"

ext, smoke = ARGV
db = SQLite3::Database.new(":memory:")
db.enable_load_extension(true)
db.load_extension(ext)
db.enable_load_extension(false)
npass = nfail = 0
File.foreach(smoke, encoding: "UTF-8") do |line|
  line = line.chomp
  next if line.empty? || line.start_with?("#")
  sql, want = line.split("\t", 2)
  begin
    row = db.execute(sql).first
    got = row ? row.map { |v| v.nil? ? "NULL" : v.to_s }.join("|") : ""
  rescue SQLite3::Exception => e
    got = "error: #{e.message}"
  end
  if want.nil?
    want = ""
    got = "" unless got.start_with?("error")
  end
  if got == want
    npass += 1
  else
    nfail += 1
    puts "FAIL ruby: #{sql}\n  expected: #{want}\n  actual:   #{got}"
  end
end
puts "#{npass} passed, #{nfail} failed"
exit(nfail.zero? ? 0 : 1)
