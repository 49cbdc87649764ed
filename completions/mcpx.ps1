# PowerShell completion for mcpx: load it with
#     mcpx completion powershell | Out-String | Invoke-Expression
# in your $PROFILE. Every suggestion comes from `mcpx __complete`,
# which asks the servers live within $MCPX_COMPLETE_TIMEOUT (default 2s).
# Each word is passed with a leading '.' so that an empty one survives
# Windows PowerShell's argument passing; __complete removes it.
# Generated from completions/templates/powershell by `mcpx completion powershell`; do not edit.

Register-ArgumentCompleter -Native -CommandName 'mcpx', 'mcpx.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $elements = $commandAst.CommandElements
    $prog = $elements[0].Extent.Text
    $words = @()
    foreach ($e in ($elements | Select-Object -Skip 1)) {
        if ($e.Extent.EndOffset -ge $cursorPosition) { break }
        if ($e -is [System.Management.Automation.Language.StringConstantExpressionAst]) {
            $words += '.' + $e.Value
        } else {
            $words += '.' + $e.Extent.Text
        }
    }
    $cur = $wordToComplete -replace "^['`"]", ''
    $out = @(& $prog __complete powershell -- @words ('.' + $cur) 2>$null)
    if ($out.Count -eq 0 -or $out[0] -eq 'files' -or $out[0] -eq 'dirs') {
        return # nothing, or a path: PowerShell completes paths itself
    }
    $out | Select-Object -Skip 1 | ForEach-Object {
        $value, $desc = $_ -split "`t", 2
        if (-not $value.StartsWith($cur, [System.StringComparison]::Ordinal)) { return }
        $text = $value
        if ($value -match '[\s''"`$(){}@;,&|<>#]') {
            $text = "'" + ($value -replace "'", "''") + "'"
        }
        if (-not $desc) { $desc = $value }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $desc)
    }
}
