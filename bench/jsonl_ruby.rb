# bench/jsonl_ruby.rb: the Ruby reference writing bench_jsonl as JSON Lines,
# the way the exwiw client does (JSON.generate(doc.as_extended_json)).
# Only the serialization is timed (the rows are fetched first).
require 'pg'
require 'bson'
require 'json'
conn = PG.connect
conn.exec("SET TimeZone = 'UTC'")
res = conn.exec('SELECT _id, n, title, score::text, price::text, ' \
                '(extract(epoch from created) * 1000000)::bigint AS us, active, meta::text FROM bench_jsonl')
rows = res.values
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
File.open(ARGV[0], 'w') do |f|
  rows.each do |id, n, title, score, price, us, active, meta|
    us = us.to_i
    doc = { '_id' => BSON::ObjectId.from_string(id), 'n' => n.to_i, 'title' => title,
            'score' => Float(score), 'price' => BSON::Decimal128.new(price),
            'created' => Time.at(us.div(1_000_000), us % 1_000_000, :usec).utc,
            'active' => active == 't', 'meta' => BSON::ExtJSON.parse(meta, mode: :bson) }
    f.puts JSON.generate(doc.as_extended_json(mode: :relaxed))
  end
end
warn format('ruby serialize: %.2fs', Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0)
