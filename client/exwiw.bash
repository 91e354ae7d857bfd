# bash completion for exwiw, the exwiw extension's command (client/).
# Installed as /usr/share/bash-completion/completions/exwiw by Debian's
# package; after "make install": source it from ~/.bashrc.  Self-contained
# (needs no bash-completion helpers).  t/012_cli_doc.pl checks that it
# names every long option of client/lib/options.c.

# _exwiw_options: the long options, one line.
_exwiw_options() {
	echo "--host= --port= --user= --username= --database= --dbname= --password
	--no-password --adapter= --target-table= --ids= --scope-column= --schema-dir=
	--config= --output-dir= --force --output-format= --with-schema --exclude-schema= --rails-env=
	--parallel-workers= --jobs= --split-rows= --compress= --allow-undecided --allow-missing-ids --all-tables
	--table= --query= --format= --rows-per-file= --rows=
	--after-insert-hook= --quiet --insert-only --analyze --verbose --from-db
	--fail-on= --log-level= --help --version --uri= --target-collection=
	--ids-field= --mongodb-query-timeout-ms= --single-transaction --commit-each-file --refresh
	--on-conflict= --no-verify --exact --since= --max-rows= --max-bytes= --config-dir= --cursor-parallel"
}

# _exwiw_values OPTION CUR: complete the value of OPTION.
_exwiw_values() {
	local opt=$1 cur=$2
	case $opt in
		--output-format) COMPREPLY=($(compgen -W "insert copy jsonl" -- "$cur")) ;;
		--format) COMPREPLY=($(compgen -W "sql copy jsonl text json" -- "$cur")) ;;
		--log-level) COMPREPLY=($(compgen -W "debug info warn error" -- "$cur")) ;;
		--fail-on) COMPREPLY=($(compgen -W "any stale" -- "$cur")) ;;
		--on-conflict) COMPREPLY=($(compgen -W "error skip" -- "$cur")) ;;
		--compress | -Z) COMPREPLY=($(compgen -W "gzip zstd none" -- "$cur")) ;;
		--adapter | -a) COMPREPLY=($(compgen -W "postgresql" -- "$cur")) ;;
		--schema-dir | --config-dir | --output-dir | -o) COMPREPLY=($(compgen -d -- "$cur")) ;;
		--config | -c | --after-insert-hook) COMPREPLY=($(compgen -f -- "$cur")) ;;
		--user | --username | -u | -U) COMPREPLY=($(compgen -u -- "$cur")) ;;
		--host | -h) COMPREPLY=($(compgen -A hostname -- "$cur")) ;;
		*) COMPREPLY=() ;;
	esac
}

# _exwiw: the completion function: subcommands, schema's and mask's verbs, options and
# their values (--flag=value and --flag value).
_exwiw() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= i w sub= verb=
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# an option's value: "--flag=" (bash splits at "="), or after "--flag"
	if [ "$cur" = "=" ]; then
		_exwiw_values "$prev" ""
		return 0
	fi
	if [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		_exwiw_values "${COMP_WORDS[COMP_CWORD - 2]}" "$cur"
		return 0
	fi
	case $prev in
		--output-format | --log-level | --fail-on | --on-conflict | --compress | -Z | --adapter | -a | --schema-dir | \
			--output-dir | -o | --config | -c | --after-insert-hook | --user | \
			--username | -u | -U | --host | -h | --format)
			_exwiw_values "$prev" "$cur"
			return 0
			;;
		--port | -p | --database | --dbname | -d | --target-table | --ids | \
			--parallel-workers | --jobs | -j | --split-rows | --scope-column | \
			--table | --query | --rows-per-file | --rows)
			return 0
			;;
	esac

	# the subcommand (and schema's verb) typed so far
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
			-*) ;;
			export | explain | schema | dump | load | mask) [ -z "$sub" ] && sub=$w ;;
			generate | check | tidy) [ "$sub" = schema ] && verb=$w ;;
			preview) [ "$sub" = mask ] && verb=$w ;;
		esac
	done

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_exwiw_options)" -- "$cur"))
		# "--flag=": no space after it, the value comes next
		[ ${#COMPREPLY[@]} -eq 1 ] && [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	if [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "export explain dump load verify schema mask" -- "$cur"))
	elif [ "$sub" = schema ] && [ -z "$verb" ]; then
		COMPREPLY=($(compgen -W "generate check tidy" -- "$cur"))
	elif [ "$sub" = mask ] && [ -z "$verb" ]; then
		COMPREPLY=($(compgen -W "preview" -- "$cur"))
	elif [ "$sub" = load ]; then
		# load DIR: the export's directory
		COMPREPLY=($(compgen -d -- "$cur"))
	fi
	return 0
}
complete -F _exwiw exwiw
