# bash completion for mcpx: load it with
#     source <(mcpx completion bash)
# or install this file as /usr/share/bash-completion/completions/mcpx.
# It is self-contained (no bash-completion package needed) and never
# evaluates what it reads: every suggestion comes from `mcpx __complete`,
# which asks the servers live within $MCPX_COMPLETE_TIMEOUT (default 2s) and
# prints the text to insert, already escaped.
# Generated from completions/templates/bash by `mcpx completion bash`; do not edit.

__mcpx_complete() {
    local cmd=${COMP_WORDS[0]} out directive entry nl=$'\n'
    [[ $cmd == "~/"* ]] && cmd=$HOME/${cmd#"~/"}
    COMPREPLY=()
    out=$(command "$cmd" __complete bash "${COMP_TYPE:-9}" "$COMP_WORDBREAKS" "${COMP_LINE:0:COMP_POINT}" 2>/dev/null) || return 0
    [[ -n $out ]] || return 0
    directive=${out%%"$nl"*}
    case $directive in
    files | dirs)
        local cur=${COMP_WORDS[COMP_CWORD]} action=file
        [[ $cur == "=" ]] && cur= # --flag=<TAB>: readline completes after the '='
        [[ $directive == dirs ]] && action=directory
        while IFS= read -r entry; do
            COMPREPLY+=("$entry")
        done < <(compgen -A "$action" -- "$cur")
        type compopt &>/dev/null && compopt -o filenames 2>/dev/null
        return 0
        ;;
    esac
    [[ $out == *"$nl"* ]] || return 0
    while IFS= read -r entry; do
        COMPREPLY+=("$entry")
    done <<<"${out#*"$nl"}"
    if [[ $directive == nospace ]] && type compopt &>/dev/null; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}

complete -F __mcpx_complete mcpx
