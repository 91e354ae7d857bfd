# bench/client_style.rb: the Ruby client's own path, for comparison.
#
# Reads the rows of a query in libpq single-row mode (as the exwiw gem does),
# escapes every value by the dump format's rule (NULL bare, everything else
# single-quoted with ' doubled) and writes one INSERT statement, buffering
# 2,000 tuples at a time, to the file named on the command line.
#
#   ruby bench/client_style.rb 'SELECT * FROM t' t out.sql
require "pg"

query, table, path = ARGV
conn = PG.connect
conn.send_query(query)
conn.set_single_row_mode

header = nil
slice = []
first = true
File.open(path, "w") do |out|
  write_slice = lambda do
    out.write(first ? header : ",\n")
    out.write(slice.join(",\n"))
    first = false
    slice.clear
  end
  while (res = conn.get_result)
    res.check
    next if res.ntuples.zero?
    header ||= "INSERT INTO #{table} (#{res.fields.join(', ')}) VALUES\n"
    res.each_row do |row|
      slice << "(" + row.map { |v| v.nil? ? "NULL" : "'" + v.gsub("'", "''") + "'" }.join(", ") + ")"
      write_slice.call if slice.size >= 2000
    end
  end
  write_slice.call unless slice.empty?
  out.write(";\n") unless first
end
conn.close
