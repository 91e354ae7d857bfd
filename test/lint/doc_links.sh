#!/usr/bin/env bash
# test/lint/doc_links.sh: the documents hold together.
#
#  1. Every relative link of every tracked Markdown file names a file that
#     exists, and, where it has one, an anchor that a heading of that file
#     makes (GitHub's rule: lower case, punctuation dropped, spaces become
#     hyphens, a repeated heading gains -1, -2 ...).
#  2. README.md is a front page: at most 300 lines, and its first 60 lines
#     show the two commands a newcomer runs (test/demo and test/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if ! command -v git >/dev/null || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "not ok: the files to check are git's, and this is not a git checkout with git installed"
	exit 1
fi
git ls-files -z '*.md' | xargs -0 ruby -e '
def slugs(path)
  @slugs ||= {}
  @slugs[path] ||= begin
    seen = Hash.new(0)
    inblock = false
    File.readlines(path).filter_map do |l|
      inblock = !inblock if l.start_with?("```")
      next if inblock || l !~ /\A\#{1,6} (.*)/
      s = $1.strip.downcase.gsub(/[^\p{L}\p{N}\s_-]/, "").gsub(" ", "-")
      n = seen[s]
      seen[s] += 1
      n.zero? ? s : "#{s}-#{n}"
    end
  end
end
bad = 0
links = 0
ARGV.each do |f|
  inblock = false
  File.readlines(f).each_with_index do |l, i|
    inblock = !inblock if l.start_with?("```")
    next if inblock
    l.gsub(/`[^`]*`/, "").scan(/\]\(([^)\s]+)\)/).flatten.each do |t|
      next if t =~ /\A[a-z]+:/
      links += 1
      path, anchor = t.split("#", 2)
      target = path.empty? ? f : File.expand_path(path, File.dirname(f)).delete_prefix(Dir.pwd + "/")
      if !File.exist?(target)
        puts "not ok: #{f}:#{i + 1}: #{t}: no file #{target}"
        bad += 1
      elsif anchor && target.end_with?(".md") && !slugs(target).include?(anchor)
        puts "not ok: #{f}:#{i + 1}: #{t}: #{target} has no heading that makes ##{anchor}"
        bad += 1
      end
    end
  end
end
puts "ok: #{links} relative links of #{ARGV.size} Markdown files name files and headings that exist" if bad.zero?
exit(bad.zero? ? 0 : 1)
'
lines=$(wc -l <README.md)
if [ "$lines" -le 300 ]; then
	echo "ok: README.md is a front page ($lines lines, at most 300)"
else
	echo "not ok: README.md has $lines lines (a front page has at most 300; the reference belongs in doc/)"
	exit 1
fi
if head -60 README.md | grep -q '^test/demo ' && head -60 README.md | grep -q '^test/run '; then
	echo "ok: README.md's first 60 lines show test/demo and test/run"
else
	echo "not ok: README.md's first 60 lines do not show both test/demo and test/run"
	exit 1
fi
