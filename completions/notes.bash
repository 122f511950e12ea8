# bash completion for notes. Needs no bash-completion package: `source` this file from
# ~/.bashrc (or drop it in ~/.local/share/bash-completion/completions/ if you have it).
# Each TAB calls `notes` back, so note paths come from the notes folder as it is now.

# Splits $1 into words as bash will read them, quotes and backslashes removed, into
# _notes_words; _notes_raw is the last word as typed.
_notes_split() {
    local line=$1 word= raw= quote= started= c i n=${#1}
    _notes_words=()
    for ((i = 0; i < n; i++)); do
        c=${line:i:1}
        if [[ -n $quote ]]; then
            raw+=$c
            if [[ $c == "$quote" ]]; then
                quote=
            elif [[ $quote == '"' && $c == '\' ]] && ((i + 1 < n)); then
                ((i++))
                c=${line:i:1}
                raw+=$c
                [[ $c == [\"\\\$\`] ]] || word+='\'
                word+=$c
            else
                word+=$c
            fi
            continue
        fi
        case $c in
        ' ' | $'\t' | $'\n')
            [[ -n $started ]] && _notes_words+=("$word")
            word= raw= started=
            ;;
        \' | \")
            quote=$c raw+=$c started=1
            ;;
        \\)
            raw+=$c started=1
            if ((i + 1 < n)); then
                ((i++))
                raw+=${line:i:1} word+=${line:i:1}
            fi
            ;;
        *)
            raw+=$c word+=$c started=1
            ;;
        esac
    done
    _notes_words+=("$word")
    _notes_raw=$raw
}

_notes() {
    local _notes_words _notes_raw out candidate quoted space=true
    _notes_split "${COMP_LINE:0:COMP_POINT}"
    compopt +o nospace 2>/dev/null && space=false
    out=$(
        _CLAP_IFS=$'\013' \
        _CLAP_COMPLETE_INDEX=$((${#_notes_words[@]} - 1)) \
        _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE:-9} \
        _CLAP_COMPLETE_SPACE=$space \
        COMPLETE=bash \
        notes -- "${_notes_words[@]}" 2>/dev/null
    ) || return 1
    # bash replaces only the part of the word after the last `=` or `:`; the
    # candidates are whole words, so that part of the typed word comes off them.
    local typed=${_notes_raw%"$2"}
    [[ $typed$2 == "$_notes_raw" ]] || typed=
    COMPREPLY=()
    local IFS=$'\013'
    local -a found
    [[ -n $out ]] && read -r -d '' -a found < <(printf '%s\013' "$out")
    for candidate in "${found[@]}"; do
        printf -v quoted '%q' "$candidate"
        [[ -n $typed && $quoted == "$typed"* ]] && quoted=${quoted#"$typed"}
        COMPREPLY+=("$quoted")
    done
    if [[ $space == false && ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
complete -o nospace -o nosort -F _notes notes 2>/dev/null || complete -o nospace -F _notes notes
