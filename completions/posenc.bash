# bash completion for posenc(1)                                    -*- shell-script -*-
#
# Installed as share/bash-completion/completions/posenc. Self-contained: it
# needs no function of the bash-completion package, so it also works when
# sourced by hand (`. posenc.bash`).
#
# Scheme specs contain ':' '=' and ',', which bash splits into words of their
# own (COMP_WORDBREAKS). The function therefore reads the word being
# completed from COMP_LINE up to COMP_POINT, completes the whole spec, and
# hands back only the part after what bash considers the current word.
#
# Commands and options come from the program's --help when it runs; the
# lists below are the fallback and, like the scheme keys, are checked against
# the program by tests/packaging/test_completion.py: a new option needs a line
# here and one in doc/posenc.1.in.

_posenc_commands='encode distance corr scatter profile decay freqs bias compare report inspect model help'
_posenc_common='-s --scheme --base -n --positions --start -d --dim -o --output --dtype --cmap
	--vmin --vmax --title --width --height --raw --max-memory --layer -q --quiet -h --help'
_posenc_schemes='sinusoidal rope learned binary file alibi t5 mrope'
_posenc_cmaps='viridis viridis_r magma magma_r inferno inferno_r plasma plasma_r cividis
	cividis_r RdBu RdBu_r gray gray_r'

# The program's own lists when it runs ($1 is the program as typed), so the
# completion cannot fall behind it; the lists above when it does not.
_posenc_can_run()
{
	[[ $1 == */* && -x $1 ]] || type -P -- "$1" >/dev/null 2>&1
}

_posenc_help_commands()
{
	local line in=0
	if _posenc_can_run "$1"; then
		while IFS= read -r line; do
			if [[ $line == Commands:* ]]; then
				in=1
			elif ((in)) && [[ -z $line ]]; then
				break
			elif ((in)) && [[ $line =~ ^\ +([a-z][a-z0-9-]*)\  ]]; then
				printf '%s\n' "${BASH_REMATCH[1]}"
			fi
		done < <("$1" --help 2>/dev/null)
	fi | { mapfile -t names; ((${#names[@]})) && echo "${names[*]} help" || echo "$_posenc_commands"; }
}

# Every option named after "Options:" in `posenc COMMAND --help`.
_posenc_help_options()
{
	local text w
	local -a words
	local -A seen
	if _posenc_can_run "$1" && text=$("$1" "$2" --help 2>/dev/null) && [[ $text == *Options:* ]]
	then
		read -r -d '' -a words <<<"${text#*Options:}"
		for w in "${words[@]}"; do
			w=${w%,}
			if [[ $w =~ ^(--[a-z][a-z-]*|-[a-zA-Z])$ && -z ${seen[$w]-} ]]; then
				seen[$w]=1
				printf '%s ' "$w"
			fi
		done
		((${#seen[@]})) && return
	fi
	if [[ $2 == inspect ]]; then
		echo -h --help
	else
		echo "$_posenc_common $(_posenc_command_options "$2")"
	fi
}

# The options of one command besides the common ones.
_posenc_command_options()
{
	case $1 in
	encode) echo --view ;;
	distance | compare | report) echo --metric ;;
	scatter) echo --metric --max-points ;;
	profile) echo --at --metric ;;
	decay) echo --max-offset --bound ;;
	freqs) echo --length --train-length ;;
	model) echo --length ;;
	esac
}

# Options that take a value (the next word, or --opt=value).
_posenc_takes_value()
{
	case $1 in
	-s | --scheme | --base | -n | --positions | --start | -d | --dim | -o | --output | \
		--dtype | --cmap | --vmin | --vmax | --title | --width | --height | --max-memory | \
		--view | --metric | --at | --max-points | --max-offset | --length | --train-length | \
		--layer)
		return 0 ;;
	esac
	return 1
}

# The keys of a scheme; for rope, those of the scaling named in the spec so far.
_posenc_scheme_keys()
{
	local name=$1 spec=${2#*:} scaling=none
	case $name in
	sinusoidal) echo base layout freq start label ;;
	rope)
		[[ ,$spec, =~ ,scaling=([a-z0-9]*), ]] && scaling=${BASH_REMATCH[1]}
		echo base layout rotary scaling label
		case $scaling in
		linear) echo factor ;;
		dynamic) echo factor original length ;;
		yarn) echo factor original beta-fast beta-slow mscale mscale-all-dim \
			attention-factor truncate ;;
		llama3) echo factor original low high ;;
		longrope) echo factor original length attention-factor long-factor short-factor ;;
		esac
		;;
	learned) echo seed std label ;;
	binary) echo label ;;
	file) echo path tensor rows label ;;
	alibi) echo heads form label ;;
	t5) echo buckets max-distance bidirectional label ;;
	mrope) echo base t h w interleaved frames height width label ;;
	esac
}

# The values of a key, if they form a closed set.
_posenc_key_values()
{
	case $1:$2 in
	sinusoidal:layout) echo interleaved blocks ;;
	rope:layout) echo interleaved half ;;
	sinusoidal:freq) echo paper t2t ;;
	rope:scaling) echo none linear dynamic yarn llama3 longrope ;;
	alibi:form) echo paper official ;;
	t5:bidirectional | rope:truncate | mrope:interleaved) echo 0 1 ;;
	esac
}

# Files a file scheme or `posenc inspect` can read, and folders to walk into.
_posenc_matrix_files()
{
	local f
	compgen -d -S / -- "$1"
	while IFS= read -r f; do
		case $f in
		*.npy | *.safetensors | *.csv) [[ -d $f ]] || printf '%s\n' "$f" ;;
		esac
	done < <(compgen -f -- "$1")
}

# Candidates for a scheme spec (the text typed so far is $1), one per line.
_posenc_spec()
{
	local spec=$1 name head last key k v
	if [[ $spec != *:* ]]; then
		compgen -W "$_posenc_schemes" -- "$spec"
		[[ -n $spec ]] && _posenc_matrix_files "$spec"
		return
	fi
	name=${spec%%:*}
	# Keep everything up to the last ',' (or the ':'), complete the last key=value.
	if [[ $spec == *:*,* ]]; then
		head=${spec%,*},
		last=${spec##*,}
	else
		head=$name:
		last=${spec#*:}
	fi
	if [[ $last == *=* ]]; then
		key=${last%%=*}
		v=${last#*=}
		if [[ $name:$key == file:path ]]; then
			_posenc_matrix_files "$v" | sed "s|^|$head$key=|"
			return
		fi
		for k in $(_posenc_key_values "$name" "$key"); do
			[[ $k == "$v"* ]] && printf '%s\n' "$head$key=$k"
		done
		return
	fi
	for k in $(_posenc_scheme_keys "$name" "$spec"); do
		# A key already given is not offered again.
		[[ ,${spec#*:}, == *,$k=* ]] && continue
		[[ $k == "$last"* ]] && printf '%s\n' "$head$k="
	done
}

_posenc()
{
	local IFS=$' \t\n' line words cur prev cmd="" i w
	if [[ -n ${COMP_LINE+set} ]]; then
		line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
		read -r -a words <<<"$line"
		[[ $line == *[[:space:]] || -z $line ]] && words+=("")
	else
		words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
	fi
	local n=${#words[@]}
	cur=${words[n - 1]}
	prev=""
	((n > 1)) && prev=${words[n - 2]}
	# The command: the first word after "posenc" that is not an option.
	for ((i = 1; i < n - 1; i++)); do
		w=${words[i]}
		if [[ $w != -* ]]; then
			cmd=$w
			break
		fi
	done

	# --option=value: complete the value, keep the prefix.
	local prefix=""
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		prefix=$prev=
		cur=${cur#*=}
	elif ! _posenc_takes_value "$prev"; then
		prev=""
	fi

	local -a cands=()
	local nospace=0 files=0
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t cands < <(compgen -W '--help --version' -- "$cur")
		else
			mapfile -t cands < <(compgen -W "$(_posenc_help_commands "$1")" -- "$cur")
		fi
	elif [[ -n $prev ]]; then
		case $prev in
		-s | --scheme)
			mapfile -t cands < <(_posenc_spec "$cur")
			nospace=1
			;;
		-o | --output)
			mapfile -t cands < <(compgen -f -- "$cur")
			files=1
			;;
		--cmap) mapfile -t cands < <(compgen -W "$_posenc_cmaps" -- "$cur") ;;
		--dtype) mapfile -t cands < <(compgen -W 'f64 f32' -- "$cur") ;;
		--view) mapfile -t cands < <(compgen -W 'angle cos sin rotated' -- "$cur") ;;
		--metric) mapfile -t cands < <(compgen -W 'l2 cosine l1 linf' -- "$cur") ;;
		esac
	elif [[ $cur == -* ]]; then
		mapfile -t cands < <(compgen -W "$(_posenc_help_options "$1" "$cmd")" -- "$cur")
	else
		case $cmd in
		help) mapfile -t cands < <(compgen -W "$(_posenc_help_commands "$1") schemes models" -- "$cur") ;;
		inspect)
			mapfile -t cands < <(_posenc_matrix_files "$cur")
			nospace=2
			;;
		esac
	fi

	# A spec may go on (NAME: KEY= VALUE,), so never a space after it; a file
	# name gets one unless it is a folder.
	if ((nospace == 2)); then
		for w in "${cands[@]}"; do
			case $w in
			*: | *= | */) ;;
			*) nospace=0 ;;
			esac
		done
		((${#cands[@]})) || nospace=0
	fi
	((nospace)) && compopt -o nospace 2>/dev/null
	((files)) && compopt -o filenames 2>/dev/null

	# Readline replaces only the text after the last word-break character
	# (rope: -> "", rope:lay -> "lay"), so hand back only what follows it.
	local full=$prefix$cur breaks=${COMP_WORDBREAKS-$' \t\n"\'><=;|&(:'} cut=0
	for ((i = ${#full} - 1; i >= 0; i--)); do
		if [[ $breaks == *"${full:i:1}"* ]]; then
			cut=$((i + 1))
			break
		fi
	done
	COMPREPLY=()
	for w in "${cands[@]}"; do
		w=$prefix$w
		COMPREPLY+=("${w:cut}")
	done
}

complete -F _posenc posenc
