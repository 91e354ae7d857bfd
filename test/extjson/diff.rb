# test/extjson/diff.rb: differential test of exwiw's Extended JSON against
# the reference, Ruby's bson gem:
#
#   JSON.generate(value.as_extended_json(mode: :relaxed))
#
# Connects with the usual PG* environment variables (the extension must be
# installed in the database).  Random inputs come from a fixed seed;
# EXWIW_DIFF_SEED picks another, EXWIW_DIFF_SCALE multiplies the counts
# (1 = CI: 1,000,000 random doubles plus every power of two and ten).
#
# Every mismatch prints the input; the script exits 1 when there was one.
require 'pg'
require 'bson'
require 'json'

SEED = Integer(ENV.fetch('EXWIW_DIFF_SEED', '20261130'))
SCALE = Float(ENV.fetch('EXWIW_DIFF_SCALE', '1'))
RNG = Random.new(SEED)
$conn = PG.connect
$conn.exec("SET client_min_messages = warning")
$conn.exec("SET TimeZone = 'UTC'")
$failures = 0
$compared = Hash.new(0)

def ref(value)
  JSON.generate(value.as_extended_json(mode: :relaxed))
rescue StandardError, NotImplementedError => e
  warn "reference: #{e.class}: #{e.message[0, 200]}" if ENV['EXWIW_DIFF_DEBUG']
  "ERROR"
end

def check(kind, input, expected, got)
  $compared[kind] += 1
  return if expected == got
  $failures += 1
  if $failures <= 20
    puts "MISMATCH #{kind}: input #{input.inspect}"
    puts "  expected #{expected}"
    puts "  got      #{got}"
  end
end

# COPY rows (arrays of strings or nil) into a fresh temp table.
def load(table, columns, rows)
  $conn.exec("DROP TABLE IF EXISTS #{table}")
  $conn.exec("CREATE TEMP TABLE #{table} (#{columns})")
  enc = PG::TextEncoder::CopyRow.new
  $conn.copy_data("COPY #{table} FROM STDIN", enc) do
    rows.each { |r| $conn.put_copy_data(r) }
  end
end

# The lines of exwiw_dump_jsonl over query.
def jsonl(query, oid_columns: nil)
  q = $conn.escape_literal(query)
  oc = oid_columns ? ", oid_columns => #{$conn.escape_literal("{#{oid_columns.join(',')}}")}" : ""
  $conn.exec("SELECT exwiw_dump_jsonl(#{q}#{oc})").values.flatten.join("\n").split("\n", -1)
end

def random_double
  case RNG.rand(4)
  when 0 then [RNG.rand(2**64)].pack('Q<').unpack1('E')        # any bit pattern
  when 1 then RNG.rand * 10.0**RNG.rand(-30..30)                 # everyday sizes
  when 2 then (RNG.rand(2**53) * 10.0**RNG.rand(-20..25)) * (RNG.rand(2).zero? ? 1 : -1)
  else RNG.rand(-10**6..10**6) / 10.0**RNG.rand(0..8)            # short decimals
  end
end

# ---------------------------------------------------------------- doubles
def test_doubles
  n = (1_000_000 * SCALE).to_i
  values = []
  (-1074..1023).each { |e| values << 2.0**e; values << -(2.0**e) }
  (-323..308).each { |e| values << "1e#{e}".to_f; values << -"1e#{e}".to_f }
  values += [0.0, -0.0, Float::NAN, Float::INFINITY, -Float::INFINITY,
             5e-324, Float::MAX, Float::MIN, 1e16, 9007199254740993.0,
             1e15, 9.999999999999999e15, 1e-4, 9.999999999999999e-05, 0.1, 100.0]
  n.times { values << random_double }
  # float8in reads Ruby's shortest digits back exactly
  load('xd', 'id int, d float8', values.each_with_index.map { |v, i| [i.to_s, v.to_s] })
  lines = jsonl('SELECT d FROM xd ORDER BY id')
  values.each_with_index do |v, i|
    check('double', v, ref({ 'd' => v }), lines[i])
  end
  # float4 is widened exactly to a double
  f4 = Array.new((20_000 * SCALE).to_i) { [random_double].pack('f').unpack1('f') }
  load('xf', 'id int, f float4', f4.each_with_index.map { |v, i| [i.to_s, v.to_s] })
  exact = $conn.exec('SELECT f::float8::text FROM xf ORDER BY id').values.flatten
  lines = jsonl('SELECT f FROM xf ORDER BY id')
  exact.each_with_index do |t, i|
    check('float4', t, ref({ 'f' => Float(t.sub('Infinity', 'Infinity')) }), lines[i]) unless t =~ /NaN|Infinity/
  end
end

# --------------------------------------------------------------- numerics
def random_numeric
  case RNG.rand(10)
  when 0 then %w[NaN Infinity -Infinity 0 -0 0.000 1e-6176].sample(random: RNG)
  else
    digits = Array.new(RNG.rand(1..40)) { RNG.rand(10) }.join
    digits += '0' * RNG.rand(0..6) if RNG.rand(3).zero?
    scale = RNG.rand(-10..45)
    s = if scale <= 0 then digits + '0' * -scale
        elsif scale >= digits.length then '0.' + '0' * (scale - digits.length) + digits
        else digits[0...-scale] + '.' + digits[-scale..]
        end
    (RNG.rand(2).zero? ? '-' : '') + s
  end
end

def test_numerics
  vals = Array.new((20_000 * SCALE).to_i) { random_numeric }
  load('xn', 'id int, n numeric', vals.each_with_index.map { |v, i| [i.to_s, v] })
  $conn.exec(<<~SQL)
    CREATE OR REPLACE FUNCTION pg_temp.try_row(n numeric) RETURNS text
    LANGUAGE plpgsql AS $$
    BEGIN RETURN exwiw_ext_json(ROW(n)); EXCEPTION WHEN others THEN RETURN 'ERROR'; END $$
  SQL
  rows = $conn.exec('SELECT n::text, pg_temp.try_row(n) FROM xn ORDER BY id').values
  rows.each do |t, got|
    expected = begin
      ref({ 'f1' => BSON::Decimal128.new(t) })
    rescue StandardError
      'ERROR'
    end
    check('numeric', t, expected, got)
  end
end

# ------------------------------------------------------------- timestamps
def time_of(usec)
  ::Time.at(usec.div(1_000_000), usec % 1_000_000, :usec).utc
end

def test_timestamps
  lo = -210_000_000_000_000_000 # about 4700 BC
  hi = 9_000_000_000_000_000_000 # about 287000 AD
  us = Array.new((50_000 * SCALE).to_i) do
    case RNG.rand(4)
    when 0 then RNG.rand(lo..hi)
    when 1 then RNG.rand(-2_000_000_000_000_000..253_402_300_799_999_999) # around 1970..9999
    when 2 then RNG.rand(-100..100) * 1_000_000 + [0, 500, 999, 999_999, 1000].sample(random: RNG)
    else RNG.rand(0..253_402_300_800) * 1_000_000 + RNG.rand(0..999) # sub-millisecond
    end
  end
  us += [0, -1, 1, 500, -500, 253_402_300_799_999_999, 253_402_300_800_000_000, -62_135_596_800_000_000]
  load('xt', 'id int, u bigint', us.each_with_index.map { |v, i| [i.to_s, v.to_s] })
  lines = jsonl(<<~SQL)
    SELECT ts, ts::timestamp AS t, ts::date AS d FROM (
      SELECT 'epoch'::timestamptz + (u / 86400000000) * interval '1 day'
             + (u % 86400000000) * interval '1 microsecond' AS ts FROM xt ORDER BY id) s
  SQL
  us.each_with_index do |u, i|
    t = time_of(u)
    day = time_of(u.div(86_400_000_000) * 86_400_000_000)
    check('timestamp', u, ref({ 'ts' => t, 't' => t, 'd' => day }), lines[i])
  end
end

# ---------------------------------------------------------- jsonb documents
STR_CHARS = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\b", "\f", "\r", "\u0001",
             "\u001f", "\u007f", "é", "€", "\u2028", "\u2029", "😀", "$", "."].freeze

def random_string(max = 8)
  Array.new(RNG.rand(0..max)) { STR_CHARS.sample(random: RNG) }.join
end

def random_hex(n)
  Array.new(n) { '0123456789abcdefABCDEF'[RNG.rand(22)] }.join
end

def random_wrapper
  case RNG.rand(18)
  when 0 then { '$oid' => random_hex(24) }
  when 1 then { '$date' => time_of(RNG.rand(0..253_402_300_799_999)* 1000).strftime('%Y-%m-%dT%H:%M:%S.%LZ') }
  when 2 then { '$date' => time_of(RNG.rand(0..253_402_300_799) * 1_000_000).strftime('%Y-%m-%dT%H:%M:%SZ') }
  when 3 then { '$date' => { '$numberLong' => RNG.rand(-10**14..10**15).to_s } }
  when 4 then { '$numberLong' => RNG.rand(-2**63..2**63 - 1).to_s }
  when 5 then { '$numberInt' => RNG.rand(-2**31..2**31 - 1).to_s }
  when 6 then { '$numberDouble' => [random_double.to_s, 'NaN', 'Infinity', '-Infinity'].sample(random: RNG) }
  when 7 then { '$numberDecimal' => random_numeric.then { |s| s.length > 30 ? s[0, 30].sub(/\.$/, '') : s } }
  when 8 then { '$binary' => { 'base64' => [Random.new(RNG.rand(1000)).bytes(RNG.rand(0..80))].pack('m0'),
                               'subType' => %w[00 01 02 03 04 05 06 07 80].sample(random: RNG) } }
  when 9 then { '$binary' => [Random.new(RNG.rand(1000)).bytes(RNG.rand(0..50))].pack('m0'), '$type' => %w[00 04 80].sample(random: RNG) }
  when 10 then { '$uuid' => [8, 4, 4, 4, 12].map { |n| random_hex(n) }.join('-') }
  when 11 then { '$regularExpression' => { 'pattern' => random_string.delete('\\'), 'options' => %w[i imx s].sample(random: RNG) } }
  when 12 then { '$timestamp' => { 't' => RNG.rand(0..2**32 - 1), 'i' => RNG.rand(0..2**32 - 1) } }
  when 13 then [{ '$minKey' => 1 }, { '$maxKey' => 1 }].sample(random: RNG)
  when 14 then { '$symbol' => random_string }
  when 15 then { '$code' => random_string }
  when 16 then { '$regex' => random_string.delete('\\'), '$options' => 'i' }
  else # a DBRef: $ref and $id go first
    { 'x' => random_value(3), '$id' => [{ '$oid' => random_hex(24) }, RNG.rand(100), random_string].sample(random: RNG),
      '$ref' => random_string }
  end
end

def random_value(depth)
  r = RNG.rand(depth > 3 ? 8 : 11)
  case r
  when 0 then nil
  when 1 then RNG.rand(2).zero?
  when 2 then RNG.rand(-2**63..2**63 - 1)
  when 3 then RNG.rand(-1000..1000)
  when 4 then v = random_double; v.finite? && v.abs < 1e15 ? v : 0.5 # jsonb prints big floats as integers
  when 5, 6 then random_string(12)
  when 7 then random_wrapper
  when 8, 9 then Hash[Array.new(RNG.rand(0..5)) { [random_string(6).sub(/\A\$/, '_'), random_value(depth + 1)] }]
  else Array.new(RNG.rand(0..5)) { random_value(depth + 1) }
  end
end

def test_documents
  docs = Array.new((10_000 * SCALE).to_i) do
    Hash[Array.new(RNG.rand(1..8)) { [random_string(6).sub(/\A\$/, '_'), random_value(0)] }]
  end
  docs << { 'deep' => (1..45).inject(1) { |v, _| { 'a' => [v] } } }
  docs << { 'e' => {}, 'a' => [], 'n' => [[], [{}]] }
  texts = docs.map { |d| JSON.generate(d) }
  load('xj', 'id int, j jsonb, t json', texts.each_with_index.map { |t, i| [i.to_s, t, t] })
  canon = $conn.exec('SELECT j::text FROM xj ORDER BY id').values.flatten
  jb = jsonl('SELECT j FROM xj ORDER BY id')
  js = jsonl('SELECT t FROM xj ORDER BY id')
  texts.each_with_index do |t, i|
    e = begin
      ref({ 'j' => BSON::ExtJSON.parse(canon[i], mode: :bson) })
    rescue StandardError, NotImplementedError => ex
      warn "reference: #{ex.class}: #{ex.message[0, 200]}" if ENV['EXWIW_DIFF_DEBUG']
      'ERROR'
    end
    check('jsonb', canon[i], e, jb[i])
    e = begin
      ref({ 't' => BSON::ExtJSON.parse(t, mode: :bson) })
    rescue StandardError, NotImplementedError => ex
      warn "reference: #{ex.class}: #{ex.message[0, 200]}" if ENV['EXWIW_DIFF_DEBUG']
      'ERROR'
    end
    check('json', t, e, js[i])
  end
end

# ------------------------------------------------------------- typed rows
def pg_float(t)
  { 'NaN' => Float::NAN, 'Infinity' => Float::INFINITY, '-Infinity' => -Float::INFINITY }.fetch(t) { Float(t) }
end

def test_rows
  n = (10_000 * SCALE).to_i
  rows = Array.new(n) do |i|
    null = ->(v) { RNG.rand(8).zero? ? nil : v }
    [i.to_s,
     null.(RNG.rand(-32768..32767).to_s),
     null.(RNG.rand(-2**31..2**31 - 1).to_s),
     null.(RNG.rand(-2**63..2**63 - 1).to_s),
     null.([random_double].pack('f').unpack1('f').then { |f| f.nan? ? '1.5' : f.to_s }),
     null.(random_double.to_s),
     null.(random_numeric.then { |s| s.length > 30 ? '1.25' : s }),
     null.(RNG.rand(2).zero? ? 't' : 'f'),
     null.(random_string(10).delete("\u0000")),
     null.(RNG.rand(2).zero? ? random_hex(24) : random_string(10)),
     null.(RNG.rand(-2_000_000_000_000_000..9_000_000_000_000_000).to_s),
     null.('\\x' + Random.new(RNG.rand(1000)).bytes(RNG.rand(0..70)).unpack1('H*')),
     null.([8, 4, 4, 4, 12].map { |k| random_hex(k) }.join('-')),
     null.(JSON.generate(random_value(1).then { |v| v.is_a?(Hash) ? v : { 'v' => v } })),
     null.("{#{Array.new(RNG.rand(0..4)) { RNG.rand(2).zero? ? 'NULL' : RNG.rand(-9..9).to_s }.join(',')}}")]
  end
  load('xr', 'id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, b bool, t text, nm name, ' \
             'u bigint, by bytea, uu uuid, j jsonb, a int[]', rows)
  $conn.exec(<<~SQL)
    CREATE TEMP VIEW xrv AS
    SELECT id, i2, i4, i8, f4, f8, n, b, t, nm, oc, u,
           'epoch'::timestamptz + (u / 86400000000) * interval '1 day'
             + (u % 86400000000) * interval '1 microsecond' AS ts,
           by, uu, j, a
    FROM (SELECT *, CASE WHEN nm ~ '^[0-9a-fA-F]{24}$' THEN nm::text END AS oc FROM xr) s
  SQL
  text = $conn.exec('SELECT i2, i4, i8, f4::float8::text, f8::text, n::text, b, t, nm, oc, u, ' \
                    'encode(by, \'hex\'), uu, j::text, array_to_json(a)::text FROM xrv ORDER BY id').values
  lines = jsonl('SELECT i2, i4, i8, f4, f8, n, b, t, nm, oc, ts, by, uu, j, a FROM xrv ORDER BY id',
                oid_columns: ['oc'])
  text.each_with_index do |r, i|
    i2, i4, i8, f4, f8, num, b, t, nm, oc, u, by, uu, j, a = r
    doc = {
      'i2' => i2&.to_i, 'i4' => i4&.to_i, 'i8' => i8&.to_i,
      'f4' => f4 && pg_float(f4), 'f8' => f8 && pg_float(f8),
      'n' => num && BSON::Decimal128.new(num), 'b' => b && b == 't', 't' => t,
      'nm' => nm && (nm =~ /\A\h{24}\z/ ? BSON::ObjectId.from_string(nm) : nm),
      'oc' => oc && BSON::ObjectId.from_string(oc),
      'ts' => u && time_of(u.to_i),
      'by' => by && BSON::Binary.new([by].pack('H*'), :generic),
      'uu' => uu && BSON::Binary.from_uuid(uu),
      'j' => j && BSON::ExtJSON.parse(j, mode: :bson),
      'a' => a && JSON.parse(a)
    }
    check('row', r, ref(doc), lines[i])
  end
end

t0 = Time.now
%w[doubles numerics timestamps documents rows].each do |part|
  t = Time.now
  send("test_#{part}")
  warn format('  %-10s %.1fs', part, Time.now - t)
end
puts "compared: #{$compared.map { |k, v| "#{k}=#{v}" }.join(' ')} (seed #{SEED}, scale #{SCALE}, #{(Time.now - t0).round(1)}s)"
puts "#{$failures} mismatches"
exit($failures.zero? ? 0 : 1)
