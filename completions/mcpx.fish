# fish completion for mcpx: install it with
#     mcpx completion fish > ~/.config/fish/completions/mcpx.fish
# Every suggestion comes from `mcpx __complete`, which asks the servers
# live within $MCPX_COMPLETE_TIMEOUT (default 2s).
# Generated from completions/templates/fish by `mcpx completion fish`; do not edit.

function __mcpx_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l word (string unescape -- "$cur" 2>/dev/null; or printf '%s\n' "$cur")
    set -l cmd $tokens[1]
    string match -q -- '~/*' "$cmd"; and set cmd $HOME/(string sub -s 3 -- "$cmd")
    command -q -- $cmd; or return 0
    set -l out (command $cmd __complete fish -- $tokens[2..-1] "$word[1]" 2>/dev/null)
    or return 0
    # --flag=PATH: complete the path after the '=' and put the flag back
    set -l pre (string match -r -- '^-[^=]*=' "$cur")
    set -l path (string replace -r -- '^-[^=]*=' '' "$cur")
    switch "$out[1]"
        case files
            __fish_complete_path "$path" | string replace -r -- '^' "$pre"
        case dirs
            __fish_complete_directories "$path" '' | string replace -r -- '^' "$pre"
        case '*'
            set -e out[1]
            printf '%s\n' $out
    end
end

complete -c mcpx -e
complete -c mcpx -f -a '(__mcpx_complete)'
