#!/usr/bin/env bash
# test/lint/meta_json.sh: META.json against the PGXN Meta Spec 1.0.0
# (https://pgxn.org/meta/spec.txt): every required key with the type the
# spec gives, semantic versions, a known license, and the release it
# describes is the one the control file installs (the provided file exists,
# and its version is default_version).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ruby - "$root" <<'RUBY'
require "json"
root = ARGV[0]
meta = JSON.parse(File.read(File.join(root, "META.json")))
errors = []
semver = /\A\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+)?\z/
%w[name abstract maintainer license provides meta-spec version].each do |k|
  errors << "required key #{k} missing" unless meta.key?(k)
end
errors << "name must be a string without spaces" unless meta["name"].is_a?(String) && meta["name"] !~ /\s/
errors << "abstract must be a string" unless meta["abstract"].is_a?(String)
errors << "version #{meta["version"].inspect} is not a semantic version" unless meta["version"].to_s.match?(semver)
m = meta["maintainer"]
errors << "maintainer must be a string or a list of strings" unless m.is_a?(String) || (m.is_a?(Array) && m.all?(String) && !m.empty?)
licenses = %w[agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib restricted open_source unrestricted unknown]
errors << "license #{meta["license"].inspect} is not one the spec names" unless licenses.include?(meta["license"]) || meta["license"].is_a?(Hash)
ms = meta["meta-spec"]
errors << "meta-spec.version must be 1.0.0" unless ms.is_a?(Hash) && ms["version"] == "1.0.0"
%w[release_status].each do |k|
  next unless meta.key?(k)
  errors << "release_status must be stable, testing or unstable" unless %w[stable testing unstable].include?(meta[k])
end
provides = meta["provides"]
if provides.is_a?(Hash) && !provides.empty?
  provides.each do |ext, p|
    errors << "provides.#{ext} needs file and version" unless p.is_a?(Hash) && p["file"] && p["version"]
    next unless p.is_a?(Hash)
    errors << "provides.#{ext}.version is not semantic" unless p["version"].to_s.match?(semver)
    errors << "provides.#{ext}.file #{p["file"]} does not exist" unless p["file"] && File.exist?(File.join(root, p["file"]))
  end
else
  errors << "provides must name at least one extension"
end
control = File.read(File.join(root, "exwiw.control"))
dv = control[/^default_version\s*=\s*'([^']+)'/, 1]
ext = provides.is_a?(Hash) ? provides["exwiw"] : nil
if ext
  errors << "provides.exwiw.version #{ext["version"]} is not default_version #{dv} (as x.y.0)" unless ext["version"] == "#{dv}.0"
  errors << "provides.exwiw.file is not exwiw--#{dv}.sql" unless ext["file"] == "exwiw--#{dv}.sql"
end
errors << "version #{meta["version"]} is not default_version #{dv}" unless meta["version"] == "#{dv}.0"
if errors.empty?
  puts "ok: META.json follows the PGXN Meta Spec 1.0.0 and describes exwiw #{dv}"
else
  errors.each { |e| puts "not ok: META.json: #{e}" }
  exit 1
end
RUBY
